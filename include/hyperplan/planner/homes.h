// Value homes: where each value's copy off the device lives. One policy, shared by the
// planner, every contender and the lower bound, so that all of them move the same bytes over
// the same routes.
//
// Preferred tiers. Weights live in the profile's weight home tier (kNoTier there: pinned on
// the device). KV cache and optimizer state that enter as graph inputs, and in a loop every
// value that persists across iterations, are "homed" in the offload tier: a copy exists off
// the device from the start, so leaving the device is a Detach alone. Every other value
// (activations, graph inputs and outputs, state the run produces) is "stored": leaving the
// device takes a Store to the offload tier first. The offload tier of a value is the
// non-device tier with routes both ways whose round trip for its size is cheapest (ties:
// lower tier id).
// Capacity and spill. Home copies occupy their tier for the whole run, and a tier takes them
// up to its capacity less a staging reserve (1/kStagingReserveDivisor of it, kept for Stores
// and for the staging hops of routes through it). When a tier's homes do not fit, the
// earliest-used ones (by first use in the model's order) move, each to the tier with the
// fastest route to the device that still has room (NVMe behind DDR; a value written in place
// needs a tier it can be written back to), until the rest fit. The earliest-used are the
// values a plan keeps on the device longest (layer streaming keeps the leading layers; on a
// loop every homed value is used once an iteration, and a plan keeps what it reaches first),
// and a value that never leaves the device costs nothing where its home is. A value no tier
// has room for stays in its preferred tier (the planner then reports the tier full).
// Cost: O(tiers * links) for routes; O(values log values + uses + values * tiers * hops).
// Limits: one home per value, chosen before planning from the model alone (which values stay
// on the device is the plan's choice, so which values spill is a rule, not a search);
// measured alternatives (hyperplan-bench compare, 2026-11-26): spreading the spill over the
// iteration by whole layers, after the layers the device can keep, wins where both links carry
// a share (Llama-3-405B prefill on a100-pcie4: 54.8 s against 69.8 s; gh200: 28.3 s against
// 32.2 s) and loses on h100-sxm (405B: 106.7 s against 87.1 s; 70B decode at batch 16: 14.5 s
// against 12.6 s); spread value by value it loses more (a layer's tensors alone on NVMe's four
// channels get a quarter of the link each). No rule of the link rates alone picked the better,
// so the simpler rule is kept. Stored values' copies are not counted here (the planner and the
// contenders reserve them as they place Stores).
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/planner/routes.h"

namespace hyperplan {

// A tier keeps this fraction (1/16) of its capacity free of home copies when they spill.
inline constexpr int64_t kStagingReserveDivisor = 16;

struct ValueHomes {
  // By ValueId. home_tier: a copy lives there from the run's start (kNoTier: none).
  // store_tier: where a Store sends it (kNoTier: it cannot leave the device, or it is homed).
  std::vector<TierId> home_tier;
  std::vector<TierId> store_tier;
  // By TierId: the bytes of the home copies in the tier, and of those the bytes that spilled
  // into it because their preferred tier was full.
  std::vector<int64_t> homed_bytes_per_tier;
  std::vector<int64_t> spilled_in_bytes_per_tier;

  bool Homed(ValueId value) const { return home_tier[value] != kNoTier; }
  bool CanLeave(ValueId value) const {
    return home_tier[value] != kNoTier || store_tier[value] != kNoTier;
  }
  // The tier a copy is fetched back from.
  TierId OffTier(ValueId value) const {
    return home_tier[value] != kNoTier ? home_tier[value] : store_tier[value];
  }
  int64_t SpilledBytes() const;
};

// Whether a value of this class that enters the run is homed (weights, KV cache, optimizer
// state); produced values are stored.
bool HomedClass(ValueClass value_class);

// The non-device tier with routes both ways and the cheapest round trip for `bytes`, or
// kNoTier when no tier has both routes.
TierId OffloadTier(const HardwareProfile& profile, const DeviceRoutes& routes, int64_t bytes);

// `persistent` (by ValueId; empty for a one-shot plan): values that persist across iterations
// are homed whatever their class.
ValueHomes DecideHomes(const Graph& graph, const HardwareProfile& profile,
                       const DeviceRoutes& routes, const std::vector<uint8_t>& persistent = {});

}  // namespace hyperplan
