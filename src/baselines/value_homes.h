// Value homes: where each value's copies off the device live, under the same policy the
// planner uses, so that every baseline moves the same bytes over the same routes.
//
// Weights live in the profile's weight home tier (kNoTier there: pinned on the device). KV
// cache and optimizer state that enter as graph inputs are "homed" in the offload tier: a copy
// exists off the device from the start, so leaving the device is a Detach alone. Every other
// value (activations, graph inputs and outputs, state the run produces) is "stored": leaving
// the device takes a Store to the offload tier first. The offload tier of a value is the
// non-device tier with routes both ways whose round trip for its size is cheapest (ties: lower
// tier id). Routes are fewest-hop chains of links (breadth-first, ties by lower link index),
// so NVMe behind DDR is two hops.
// Cost: O(tiers * links) for routes, O(values * tiers * hops) for homes.
// Limits: one home per value; no link is ever chosen for being less busy.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/planner/routes.h"

namespace hyperplan::baselines {

struct Routes {
  std::vector<std::optional<Route>> to_device;    // by TierId
  std::vector<std::optional<Route>> from_device;  // by TierId
};

// Routes between the device and every other tier (hyperplan/planner/routes.h).
Routes FindRoutes(const HardwareProfile& profile);

struct ValueHomes {
  // By ValueId. home_tier: a copy lives there from the run's start (kNoTier: none).
  // store_tier: where a Store sends it (kNoTier: it cannot leave the device, or it is homed).
  std::vector<TierId> home_tier;
  std::vector<TierId> store_tier;

  bool Homed(ValueId value) const { return home_tier[value] != kNoTier; }
  bool CanLeave(ValueId value) const {
    return home_tier[value] != kNoTier || store_tier[value] != kNoTier;
  }
  // The tier a copy is fetched back from.
  TierId OffTier(ValueId value) const {
    return home_tier[value] != kNoTier ? home_tier[value] : store_tier[value];
  }
};

// `persistent` (by ValueId; empty for a one-shot plan): values that persist across iterations
// are homed whatever their class, as the planner homes them (candidates.h).
ValueHomes DecideHomes(const Graph& graph, const HardwareProfile& profile, const Routes& routes,
                       const std::vector<uint8_t>& persistent = {});

}  // namespace hyperplan::baselines
