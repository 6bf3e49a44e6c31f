// The staging reserve: how much of a tier's capacity its home copies leave free for the copies
// that pass through it or are stored in it during a run (homes.h spills homes past the rest).
//
// A tier keeps, of its capacity, at most 1/kStagingReserveDivisor (the old flat rule), and less
// when the model cannot use that much: the bytes of every value whose stored copy may sit in it
// at once (each value stored to it, and each produced value when the host computes from it: a
// host step's output is written there), plus, when some route to or from the device stages in
// it (NVMe behind DDR), one copy of the largest value any route may stage there (every homed or
// stored value, whatever tier the spill sends it to). That much room lets every Store and every
// single staged transfer, of the largest value moved whole, run against the homes, whichever
// policy plans them; more staging copies at once are the plan's choice, which the planner's
// tier checks and the verifier hold to the capacity (room for them is not kept from the homes).
// Why: on DeepSeek-V3 int4 on h100-sxm the flat 1/16 kept 16 GB of ddr free of homes, while
// a fetch after route stages 8 experts' slices (117 MB of one layer's fc1) and the largest
// value staged whole is 3.76 GB: with the values stored there the reserve is 4.6 GB, and 11.4
// GB more experts live in ddr instead of behind the drive (578.9 -> 447.3 ms, bench 2026-11-29).
// Cost: O(values + tiers * hops). Limits: counted from the model and the preferred homes
// alone, before the spill (homes.h decides which values spill from the room this leaves).
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/routes.h"

namespace hyperplan {

// A tier keeps at most this fraction (1/16) of its capacity free of home copies.
inline constexpr int64_t kStagingReserveDivisor = 16;

// By TierId: the bytes of the tier's capacity its home copies leave free (0 for an unbounded
// tier, capacity <= 0). `home_tier` and `store_tier` by ValueId, as ValueHomes holds them
// before the spill.
std::vector<int64_t> StagingReserveBytes(const Graph& graph, const HardwareProfile& profile,
                                         const DeviceRoutes& routes,
                                         const std::vector<TierId>& home_tier,
                                         const std::vector<TierId>& store_tier);

}  // namespace hyperplan
