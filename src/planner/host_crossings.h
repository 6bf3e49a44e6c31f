// Host crossings: the transfers a unit placement needs (docs/design.md "Compute units").
//
// A host node reads a device value from a copy a crossing Store writes to the host tier H
// just before its first host reader; a device node reads a host-written value from the device
// copy a crossing Prefetch brings just before its first device reader (lifetimes.h:
// Lifetime::crosses_in). Each crossing is one hop on the direct link between the device and H
// (the profile must have both; PlaceUnits' callers place only where it does), on its channel
// 0, FIFO behind the planner's own transfers there: crossings are activations, a few KiB at
// decode, and the planner's link schedule does not reserve time for them (a limit: at prefill
// they can delay the planner's Prefetches, which the replay then shows as stalls).
// Cost: O(nodes + uses). Limits: one hop only; a host tier behind another tier cannot compute.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/lifetimes.h"

namespace hyperplan::planner {

struct HostCrossings {
  TierId host_tier = kNoTier;
  int32_t store_link = -1;     // device -> H
  int32_t prefetch_link = -1;  // H -> device
  // By ValueId. store_boundary: the crossing Store's boundary (its first host reader's
  // step), -1: none. last_host_read: the last step whose host node reads the value (its copy
  // on H is freed there, or by the crossing Prefetch when that comes later), -1: none.
  std::vector<Step> store_boundary;
  std::vector<Step> last_host_read;

  bool empty() const { return host_tier == kNoTier; }
};

// A copy on the host tier that crossings or host steps write (assemble.cc lists it), by the
// steps it occupies there, inclusive.
struct HostCopySpan {
  Step first_step = 0;
  Step last_step = 0;
  int64_t bytes = 0;
};

// The spans of every crossing Store's copy (its boundary to its last host reader) and every
// host output's copy (its producer to its last reader, a host step or the crossing Prefetch;
// to the last step for a graph output or a value nothing reads), so the planner keeps room for
// them beside its staging copies. Empty when `crossings` is.
std::vector<HostCopySpan> HostCopySpans(const Graph& graph, const LifetimeAnalysis& lifetimes,
                                        const UnitPlacement& units, const HostCrossings& crossings);

// The link index from `from` to `to`, -1 when the profile has none.
int32_t DirectLink(const HardwareProfile& profile, TierId from, TierId to);

// Whether the profile links the device and its host compute tier both ways: where it does not,
// no node may run on the host (FindHostCrossings throws; the host placement search skips).
bool HostLinkedBothWays(const HardwareProfile& profile);

// The crossings of `units` in the device view `lifetimes`; empty when no node runs on the
// host. Throws Error(kInternal) when a host node runs where the device and H are not linked
// both ways.
HostCrossings FindHostCrossings(const Graph& graph, const HardwareProfile& profile,
                                const LifetimeAnalysis& lifetimes, const UnitPlacement& units);

}  // namespace hyperplan::planner
