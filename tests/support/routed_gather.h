// Test support: a router feeding the gather form's expert Gather (src/core/expert_gather.h):
// float32 table [8, 32, 16] stacking E = 8 experts, picked by the router's [1, T, 2] indices
// (top 2 of 8 per token), with hand plans around it: the table brought by a whole or a routed
// Prefetch over a 1 B/ns link with 1000 ns of latency. Every number below is hand arithmetic.
#pragma once

#include <vector>

#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "support/routed_prefetch.h"
#include "support/tiny_graph.h"

namespace hyperplan::testing {

// x [1, T, 16] (64 T B) -> route (Work) -> indices [1, T, 2] int64 (16 T B); gather reads the
// table [8, 32, 16] float32 (16384 B, one expert's slice 2048 B) at those indices along axis 0
// and writes picked [1, T, 2, 32, 16] (4096 T B), a graph output.
struct RoutedGather {
  Graph graph;
  HardwareProfile profile = UnitProfile();
  NodeId route = 0, gather = 1;
  ValueId x, indices, table, picked;
  int64_t tokens = 1;
  static constexpr int64_t kRouteNs = 5000;
  static constexpr int64_t kGatherNs = 3000;
  static constexpr int64_t kLatencyNs = 1000;

  explicit RoutedGather(int64_t token_count = 1) : tokens(token_count) {
    x = Tensor(graph, "x", {1, tokens, 16});
    indices = Tensor(graph, "indices", {1, tokens, 2}, DType::kInt64);
    table = Tensor(graph, "table", {8, 32, 16});
    picked = Tensor(graph, "picked", {1, tokens, 2, 32, 16});
    route = Op(graph, "route", "Work", {x}, {indices});
    gather = Op(graph, "gather", "Gather", {table, indices}, {picked});
    graph.nodes[gather].int_attributes["axis"] = 0;
    graph.values[x].is_graph_input = true;
    graph.values[x].value_class = ValueClass::kGraphInput;
    graph.inputs.push_back(x);
    graph.values[table].is_initializer = true;
    graph.values[table].value_class = ValueClass::kWeight;
    MarkOutput(graph, picked);
    profile.links[1].latency_ns = kLatencyNs;  // ddr -> hbm
  }

  // The table's Prefetch ddr -> hbm: whole at boundary 0 with no waits, or routed at boundary
  // 1 waiting for route (step 0), moving `bytes` and reserving `reserved_bytes`.
  PlanStep FetchTable(bool routed, int64_t bytes, int64_t reserved_bytes) const {
    return StackedPrefetch(table, gather, routed, bytes, reserved_bytes);
  }

  // Steps: whole: 0 Prefetch table, 1 route, 2 gather (waits 0); routed: 0 route, 1 Prefetch
  // table (waits 0), 2 gather (waits 1). The table's block holds `block_bytes` from the
  // Prefetch to gather; `resident` experts (2048 B each) stay on the device the whole run.
  Plan HandPlan(bool routed, int64_t bytes, int64_t block_bytes,
                std::vector<int32_t> resident = {}) const {
    Plan plan;
    plan.order = {route, gather};
    plan.node_time_ns = {kRouteNs, kGatherNs};
    PlanStep run_route;
    run_route.node = route;
    PlanStep run_gather;
    run_gather.node = gather;
    run_gather.boundary = 1;
    run_gather.waits_for = {routed ? 1 : 0};
    const PlanStep fetch = FetchTable(routed, bytes, block_bytes);
    plan.steps = routed ? std::vector<PlanStep>{run_route, fetch, run_gather}
                        : std::vector<PlanStep>{fetch, run_route, run_gather};
    const int32_t route_step = routed ? 0 : 1;
    const int32_t fetch_step = routed ? 1 : 0;
    plan.residency.push_back({x, kNoNode, 0, 0, 64 * tokens, -1, route_step});
    plan.residency.push_back({indices, kNoNode, 0, 1, 16 * tokens, route_step, 2});
    plan.residency.push_back({table, kNoNode, routed ? 1 : 0, 1, block_bytes, fetch_step, 2});
    plan.residency.push_back({picked, kNoNode, 1, 1, 4096 * tokens, 2, -1});
    if (!resident.empty()) {
      ResidentInterval held{table, kNoNode, 0, 1, 2048 * static_cast<int64_t>(resident.size()),
                            -1,    -1};
      held.experts = std::move(resident);
      plan.residency.push_back(held);
    }
    plan.tier_copies.push_back({table, 1, 16384, -1, -1, 0});  // the table's home on ddr
    return plan;
  }

  EvaluatedPlan Finish(Plan plan) const {
    return FinishPlan(graph, profile, LayoutOptions{}, {0, 0}, std::move(plan));
  }
};

}  // namespace hyperplan::testing
