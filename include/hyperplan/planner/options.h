// PlanOptions: what the caller asks of the offload planner.
//
// Two modes. With `budget_bytes`, the planner looks for the lowest simulated makespan whose
// device arena fits the budget, and reports infeasibility (with the lowest peak it reached and
// the node that blocks going lower) when none does. Without a budget, it cuts the device peak
// as far as it can while the simulated slowdown stays within `max_overhead_ppm` of the
// no-offload makespan; the device tier's capacity still applies (when the baseline does not
// fit the device, the capacity becomes the budget). With `offload` off, the plan is the
// baseline: the model's order and no cache ops (docs/design.md invariant 6).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hyperplan/layout/layout.h"
#include "hyperplan/loop.h"

namespace hyperplan {

struct PlanOptions {
  bool offload = true;
  std::optional<int64_t> budget_bytes;  // device arena budget; unset: no-budget mode
  int64_t max_overhead_ppm = 10'000;    // no-budget mode: allowed slowdown, 10'000 ppm = 1%
  bool allow_reorder = true;            // also try a memory-aware topological order
  // Per-node compute times (indexed by NodeId) to plan with instead of the roofline cost
  // model, e.g. measured kernel times; empty: EstimateCosts.
  std::vector<int64_t> node_time_ns;
  // By default a plan is one iteration of a loop (plan.h Plan::periodic) whose outputs feed
  // back through `aliases` (loop.h FindAliases); single_run plans one run from a free preload.
  bool single_run = false;
  std::vector<ValueAlias> aliases;
  // Where the profile has a host unit, let the planner run layer parts there (host_placement.h);
  // false plans every node on the device (a runtime that cannot compute on the host).
  bool host_compute = true;
  // MoE/QMoE models: fetch a streamed stacked expert operand after route, only the experts the
  // router picks, and keep hot experts resident (planner/expert_placement.h); false moves
  // stacked expert tensors whole (a runtime without routed Prefetches).
  bool route_fetch = true;
  LayoutOptions layout;  // how hard the arena and tier-buffer layouts try (layout.h)
};

}  // namespace hyperplan
