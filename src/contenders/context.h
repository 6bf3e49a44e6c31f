// ContenderContext: what every contender derives from (graph, profile) before deciding, built
// once and shared, so a benchmark that runs five policies on one model pays for it once.
//
// The model's own order (every contender keeps it: the alternatives do not reorder), node
// times (the roofline cost model, or the caller's), lifetimes in that order, routes and value
// homes (hyperplan/homes.h), and the no-offload peak and arena that summaries compare
// against. Cost: O(nodes + values + uses) plus one arena layout of the no-offload residency.
// Limits: the graph and profile must outlive the context (it keeps references).
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

namespace hyperplan::contenders {

struct ContenderContext {
  // The graph the policies plan: the model, or for a periodic plan its loop graph (loop.h),
  // owned here, so that every contender plans the same in-place loop as the planner.
  const Graph* graph = nullptr;
  const Graph* model = nullptr;  // the model as imported (what PlanOffload and VerifyPlan take)
  std::shared_ptr<const Graph> loop_graph;
  bool periodic = false;
  std::vector<ValueAlias> aliases;
  std::vector<uint8_t> persistent;  // by ValueId; empty for a one-shot plan
  const HardwareProfile* profile = nullptr;
  std::vector<NodeId> order;
  std::vector<int64_t> node_time_ns;  // by NodeId
  LifetimeAnalysis lifetimes;
  DeviceRoutes routes;
  ValueHomes homes;
  int64_t baseline_peak_bytes = 0;   // no offloading: live bytes
  int64_t baseline_arena_bytes = 0;  // no offloading: its arena

  Step step_count() const { return static_cast<Step>(order.size()); }
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

}  // namespace hyperplan::contenders
