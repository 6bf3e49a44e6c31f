// Test support: a router feeding a one-token float32 com.microsoft MoE (E = 8, k = 2), with
// hand plans around it: fc2 and fc3 resident, fc1 brought by a whole or a routed Prefetch over
// a 1 B/ns link with 1000 ns of latency. Every number below is hand arithmetic.
#pragma once

#include <vector>

#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "support/routed_prefetch.h"
#include "support/tiny_graph.h"

namespace hyperplan::testing {

// x [1, 1, 16] (64 B) -> route (Work) -> router [1, 8] (32 B); moe reads x, router and the
// stacked fc1, fc2, fc3 [8, 32, 16] float32 (16384 B each, one expert's slice 2048 B) and
// writes y [1, 1, 16] (64 B). One token, top 2 of 8: 2 experts touched, 2 * 2048 = 4096 B of
// each stacked operand.
struct RoutedMoe {
  Graph graph;
  HardwareProfile profile = UnitProfile();
  NodeId route = 0, moe = 1;
  ValueId x, router, fc1, fc2, fc3, y;
  static constexpr int64_t kRouteNs = 5000;
  static constexpr int64_t kMoeNs = 3000;
  static constexpr int64_t kLatencyNs = 1000;

  RoutedMoe() {
    x = Tensor(graph, "x", {1, 1, 16});
    router = Tensor(graph, "router", {1, 8});
    fc1 = Tensor(graph, "fc1", {8, 32, 16});
    fc2 = Tensor(graph, "fc2", {8, 16, 32});
    fc3 = Tensor(graph, "fc3", {8, 32, 16});
    y = Tensor(graph, "y", {1, 1, 16});
    route = Op(graph, "route", "Work", {x}, {router});
    moe = Op(graph, "moe", "MoE", {x, router, fc1, fc2, fc3}, {y});
    graph.nodes[moe].domain = "com.microsoft";
    graph.nodes[moe].int_attributes["k"] = 2;
    graph.values[x].is_graph_input = true;
    graph.values[x].value_class = ValueClass::kGraphInput;
    graph.inputs.push_back(x);
    for (ValueId w : {fc1, fc2, fc3}) {
      graph.values[w].is_initializer = true;
      graph.values[w].value_class = ValueClass::kWeight;
    }
    graph.values[y].is_graph_output = true;
    graph.values[y].value_class = ValueClass::kGraphOutput;
    graph.outputs.push_back(y);
    profile.links[1].latency_ns = kLatencyNs;  // ddr -> hbm
  }

  // The fc1 Prefetch ddr -> hbm: whole at boundary 0 with no waits, or routed at boundary 1
  // waiting for route (step 0), moving `bytes` and reserving `reserved_bytes`.
  PlanStep FetchFc1(bool routed, int64_t bytes, int64_t reserved_bytes) const {
    return StackedPrefetch(fc1, moe, routed, bytes, reserved_bytes);
  }

  // Steps: whole: 0 Prefetch fc1, 1 route, 2 moe (waits 0); routed: 0 route, 1 Prefetch fc1
  // (waits 0), 2 moe (waits 1). fc1's block holds `block_bytes` from the Prefetch to moe;
  // `resident` experts of fc1 (2048 B each) stay on the device the whole run.
  Plan HandPlan(bool routed, int64_t bytes, int64_t block_bytes,
                std::vector<int32_t> resident = {}) const {
    Plan plan;
    plan.order = {route, moe};
    plan.node_time_ns = {kRouteNs, kMoeNs};
    PlanStep run_route;
    run_route.node = route;
    PlanStep run_moe;
    run_moe.node = moe;
    run_moe.boundary = 1;
    run_moe.waits_for = {routed ? 1 : 0};
    const PlanStep fetch = FetchFc1(routed, bytes, block_bytes);
    plan.steps = routed ? std::vector<PlanStep>{run_route, fetch, run_moe}
                        : std::vector<PlanStep>{fetch, run_route, run_moe};
    const int32_t route_step = routed ? 0 : 1;
    const int32_t fetch_step = routed ? 1 : 0;
    plan.residency.push_back({x, kNoNode, 0, 1, 64, -1, 2});
    plan.residency.push_back({router, kNoNode, 0, 1, 32, route_step, 2});
    plan.residency.push_back({fc1, kNoNode, routed ? 1 : 0, 1, block_bytes, fetch_step, 2});
    plan.residency.push_back({fc2, kNoNode, 0, 1, 16384, -1, -1});
    plan.residency.push_back({fc3, kNoNode, 0, 1, 16384, -1, -1});
    plan.residency.push_back({y, kNoNode, 1, 1, 64, 2, -1});
    if (!resident.empty()) {
      ResidentInterval held{fc1, kNoNode, 0, 1, 2048 * static_cast<int64_t>(resident.size()),
                            -1,  -1};
      held.experts = std::move(resident);
      plan.residency.push_back(held);
    }
    plan.tier_copies.push_back({fc1, 1, 16384, -1, -1, 0});  // fc1's home copy on ddr
    return plan;
  }

  // fc1 homed on an NVMe tier behind DDR (1 B/ns, no latency; adds the tier and its link to
  // `profile`): 0 route; 1 fc1 nvme -> ddr routed, into a staging copy of `staging_bytes`;
  // 2 fc1 ddr -> hbm routed (waits 0 and 1); 3 moe.
  Plan TwoHopPlan(int64_t staging_bytes) {
    profile.tiers.push_back({"nvme", int64_t{1} << 50, false});
    profile.links.push_back({2, 1, 1'000'000'000, 0, 1});
    Plan plan = HandPlan(true, 4096, 4096);
    PlanStep stage = plan.steps[1];
    stage.src_tier = 2;
    stage.dst_tier = 1;
    stage.link = 2;
    plan.steps.insert(plan.steps.begin() + 1, stage);
    plan.steps[2].waits_for = {0, 1};
    plan.steps[3].waits_for = {2};
    for (ResidentInterval& block : plan.residency) {
      if (block.opened_by >= 1) ++block.opened_by;
      if (block.closed_by >= 1) ++block.closed_by;
    }
    plan.tier_copies = {{fc1, 2, 16384, -1, -1, 0}, {fc1, 1, staging_bytes, 1, 2, 0}};
    return plan;
  }

  EvaluatedPlan Finish(Plan plan) const {
    return FinishPlan(graph, profile, LayoutOptions{}, {0, 0}, std::move(plan));
  }
};

}  // namespace hyperplan::testing
