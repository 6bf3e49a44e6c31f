// ContenderContext: what every contender derives from (graph, profile) before deciding, built
// once and shared, so a benchmark that runs five policies on one model pays for it once.
//
// The problem bundle (hyperplan/planner/problem.h: the model's own order, which every
// contender keeps, node times, lifetimes in that order, routes and value homes), and the
// no-offload peak and arena that summaries compare against. Cost: O(nodes + values + uses) plus one
// arena layout of the no-offload residency. Limits: the graph and profile must outlive the context
// (it keeps references).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/homes.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/loop.h"
#include "hyperplan/planner/options.h"
#include "hyperplan/planner/problem.h"

namespace hyperplan::contenders {

// The problem (problem.h: graph, loop, order, node times, lifetimes, routes, homes) and the
// no-offload reference every summary compares against.
struct ContenderContext : Problem {
  int64_t baseline_peak_bytes = 0;   // no offloading: live bytes
  int64_t baseline_arena_bytes = 0;  // no offloading: its arena

  int64_t device_capacity_bytes() const;
  // The budget clamped to the device capacity; unset: the capacity (unbounded: INT64_MAX / 4).
  int64_t EffectiveBudget(std::optional<int64_t> budget_bytes) const;
};

// Throws Error(kProfile) without a device tier, Error(kUsage) when `node_time_ns` is neither
// empty nor one non-negative entry per node.
// Node times (given or estimated) are the model's own, before the loop rewrite.
ContenderContext BuildContenderContext(const Graph& graph, const HardwareProfile& profile,
                                       std::vector<int64_t> node_time_ns = {},
                                       const LoopSpec& loop = {});

// The contenders' context for a problem built already (PlanBest shares it with the planner).
ContenderContext BuildContenderContext(const Problem& problem);

// The planner's options for the device side of a contender's placed problem (the host
// placement contenders: llama_cpp_ffn.h, moe_offload.h, placed_plan.h): the budget, the
// context's node times, its loop (one run or an iteration) and aliases.
PlanOptions DeviceSideOptions(const ContenderContext& context, int64_t budget_bytes);

}  // namespace hyperplan::contenders
