// The gather form's expert Gather fetched after route (routed_fetch.h, src/core/expert_gather.h):
// its table as a routed operand (expected and reserved bytes, its router), a routed plan that
// verifies and one whose reservation misses the worst routing, the Gathers of one router
// drawing the same experts, and a plan whose timing only the expected routing holds. Hand plans
// on support/routed_gather.h: unit rates (1 B/ns links with 1000 ns latency).
#include "support/routed_gather.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "hyperplan/cost.h"
#include "hyperplan/plan/expert_residency.h"
#include "hyperplan/plan/routing_spread.h"
#include "hyperplan/plan/verify.h"
#include "hyperplan/routed_fetch.h"
#include "hyperplan/routing_samples.h"

namespace hyperplan {
namespace {

using testing::RoutedGather;

VerifyResult Verify(const RoutedGather& f, const EvaluatedPlan& planned) {
  return VerifyPlan(f.graph, f.profile, planned.plan, planned.evaluation);
}

TEST_CASE("an expert Gather's table is a routed operand of its router's picks") {
  const RoutedGather f;
  // E = 8 (the table's first axis), k = 2 (the indices' last), T = 1: top 2 of 8 uniform, so
  // 8 * 2/8 = 2 experts of 16384 / 8 = 2048 B expected (4096 B), min(8, 2 * 1) = 2 at worst.
  const std::optional<RoutedOperand> operand = RoutedOperandOf(f.graph, f.gather, f.table);
  REQUIRE(operand);
  CHECK(operand->routing.experts == 8);
  CHECK(operand->routing.experts_per_token == 2);
  CHECK(operand->routing.tokens == 1);
  CHECK(operand->slice_bytes == 2048);
  CHECK(operand->router == f.route);
  CHECK(operand->routing.draw == f.route);  // drawn as its router's picks
  CHECK(ExpectedRoutedBytes(*operand, {}) == 4096);
  CHECK(ReservedRoutedBytes(*operand, 0) == 4096);
  // Experts 1 and 6 resident: the other 6 at 2/8 each, 6 * 0.25 * 2048 = 3072 B expected; 2
  // picks of the 6 at worst, 4096 B.
  CHECK(ExpectedRoutedBytes(*operand, {1, 6}) == 3072);
  CHECK(ReservedRoutedBytes(*operand, 2) == 4096);
  // The indices are the routing, not a routed operand.
  CHECK_FALSE(RoutedOperandOf(f.graph, f.gather, f.indices));
  CHECK(RoutingInputOf(f.graph, f.gather) == f.indices);
  CHECK(RoutingInputOf(f.graph, f.route) == kNoValue);
}

TEST_CASE("two tokens of an expert Gather reserve four picks and expect 3.5 experts") {
  const RoutedGather f(2);
  const std::optional<RoutedOperand> operand = RoutedOperandOf(f.graph, f.gather, f.table);
  REQUIRE(operand);
  CHECK(operand->routing.tokens == 2);
  // Each expert untouched by both tokens with probability (6/8)^2 = 0.5625: 8 * 0.4375 = 3.5
  // experts of 2048 B = 7168 B expected; min(8, 2 * 2) = 4 picks at worst, 8192 B.
  CHECK(ExpectedRoutedBytes(*operand, {}) == 7168);
  CHECK(ReservedRoutedBytes(*operand, 0) == 8192);
}

TEST_CASE("a Gather that is not an expert pick has no routed operand") {
  SECTION("along axis 1") {
    RoutedGather f;
    f.graph.nodes[f.gather].int_attributes["axis"] = 1;
    CHECK_FALSE(RoutedOperandOf(f.graph, f.gather, f.table));
    CHECK_FALSE(MoeRoutingOf(f.graph, f.gather));
  }
  SECTION("a table another node reads too") {
    RoutedGather f;
    const ValueId out = testing::Tensor(f.graph, "out", {1});
    testing::Op(f.graph, "other", "Work", {f.table}, {out});
    CHECK_FALSE(RoutedOperandOf(f.graph, f.gather, f.table));
    CHECK(MoeRoutingOf(f.graph, f.gather));  // still routed: its read is the picked slices
  }
  SECTION("a table of rank 2 (an embedding's rows, not stacked experts)") {
    RoutedGather f;
    f.graph.values[f.table].shape = {8, 512};
    CHECK_FALSE(RoutedOperandOf(f.graph, f.gather, f.table));
  }
}

// A second table of `f`'s 3-token fixture (a layer's up projection beside its gate), picked
// by the same indices; its Gather.
NodeId AddUpGather(RoutedGather& f) {
  const ValueId up = testing::Tensor(f.graph, "up", {8, 32, 16});
  f.graph.values[up].is_initializer = true;
  const ValueId up_picked = testing::Tensor(f.graph, "up_picked", {1, 3, 2, 32, 16});
  return testing::Op(f.graph, "up_gather", "Gather", {up, f.indices}, {up_picked});
}

TEST_CASE("the Gathers of one router draw the same experts in every sampled routing") {
  RoutedGather f(3);
  const NodeId up_gather = AddUpGather(f);
  const std::optional<MoeRouting> gate = MoeRoutingOf(f.graph, f.gather);
  const std::optional<MoeRouting> up_routing = MoeRoutingOf(f.graph, up_gather);
  REQUIRE(gate);
  REQUIRE(up_routing);
  for (int64_t index = 0; index < 16; ++index) {
    const std::vector<char> touched = SampleTouchedExperts(*gate, 7, index);
    CHECK(touched == SampleTouchedExperts(*up_routing, 7, index));
    // 3 tokens of 2 distinct picks: between 2 and 6 experts.
    const auto distinct = std::count(touched.begin(), touched.end(), 1);
    CHECK(distinct >= 2);
    CHECK(distinct <= 6);
  }
}

TEST_CASE("a layer's expert Gathers under one routing profile draw the same skewed experts") {
  RoutedGather f(3);
  const NodeId up_gather = AddUpGather(f);
  // What --expert-stats writes for the layer: the one list under each Gather's name. Expert 0
  // is in every token's top 2 (p = 1), experts 1 and 2 share the other pick, 3..7 never.
  const std::vector<double> profile = {1.0, 0.5, 0.5, 0, 0, 0, 0, 0};
  f.graph.expert_selection["gather"] = profile;
  f.graph.expert_selection["up_gather"] = profile;
  const std::optional<MoeRouting> gate = MoeRoutingOf(f.graph, f.gather);
  const std::optional<MoeRouting> up_routing = MoeRoutingOf(f.graph, up_gather);
  REQUIRE(gate);
  REQUIRE(up_routing);
  CHECK(gate->selection_probability == profile);
  CHECK(up_routing->selection_probability == profile);
  for (int64_t index = 0; index < 16; ++index) {
    const std::vector<char> touched = SampleTouchedExperts(*gate, 7, index);
    CHECK(touched == SampleTouchedExperts(*up_routing, 7, index));
    // Systematic sampling picks a p = 1 expert always and a p = 0 one never: expert 0 and
    // one or both of experts 1 and 2 (3 tokens), nothing else.
    CHECK(touched[0] == 1);
    CHECK(touched[1] + touched[2] >= 1);
    CHECK(std::count(touched.begin() + 3, touched.end(), 1) == 0);
  }
  // The routed fetch of the table expects 2048 * sum_e 1 - (1 - p_e)^3 = 2048 * (1 + 2 *
  // 0.875) = 5632 B (uniform: 8 * (1 - 0.75^3) = 4.625 experts, 9472 B).
  const std::optional<RoutedOperand> table = RoutedOperandOf(f.graph, f.gather, f.table);
  REQUIRE(table);
  CHECK(ExpectedRoutedBytes(*table, {}) == 5632);
}

TEST_CASE("a routed Prefetch of an expert Gather's table verifies and stalls for two slices") {
  const RoutedGather f;
  const EvaluatedPlan routed = f.Finish(f.HandPlan(true, 4096, 4096));
  const VerifyResult verdict = Verify(f, routed);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  // route [0, 5000]; the fetch waits for it: 5000 + 1000 latency + 4096 B at 1 B/ns = 10096;
  // gather [10096, 13096].
  CHECK(routed.evaluation.timeline.steps[1].end_ns == 10096);
  CHECK(routed.evaluation.timeline.makespan_ns == 13096);
  // The device holds 4096 B of the table, not 16384: at gather 16 + 4096 + 4096 = 8208.
  CHECK(routed.evaluation.summary.peak_bytes == 8208);
  SECTION("reserving one slice misses the worst routing: 2 picks need 4096 B") {
    const VerifyResult short_block = Verify(f, f.Finish(f.HandPlan(true, 2048, 2048)));
    CHECK_FALSE(short_block.ok);
    CHECK(short_block.invariant == 2);
    CHECK(short_block.message.find("needs 4096") != std::string::npos);
  }
  SECTION("a routed Prefetch that does not wait for the router fails") {
    Plan plan = f.HandPlan(true, 4096, 4096);
    plan.steps[1].waits_for.clear();
    const VerifyResult unordered = Verify(f, f.Finish(std::move(plan)));
    CHECK_FALSE(unordered.ok);
    CHECK(unordered.invariant == 4);
    CHECK(unordered.message.find("router 'route'") != std::string::npos);
  }
  SECTION("every sampled routing picks 2 slices: the plan verifies under each") {
    const RoutingSpread spread =
        EvaluateRoutingSpread(f.graph, f.profile, routed.plan, {0, 0}, {16, 3});
    CHECK(spread.samples == 16);
    CHECK(spread.failed_sample == -1);
    CHECK(spread.mean_distinct_experts == 2.0);
  }
}

TEST_CASE("an expert Gather costs the sampled routing's slices of its table") {
  const RoutedGather f;
  // At the expectation (2 experts of one token): 4096 B of the table + 4096 B written + 16 B
  // of indices = 8208 B, 8208 ns at 1 B/ns (a Gather has no FLOPs).
  CHECK(EstimateNodeCost(f.graph, f.graph.nodes[f.gather], f.profile).time_ns == 8208);
  // A routing touching 3 experts (as 2 tokens could): 6144 + 4096 + 16 = 10256 B.
  CHECK(MoeNodeCostOn(ComputeUnit::kDevice, f.graph, f.gather, f.profile, 3.0).time_ns == 10256);
}

TEST_CASE("the residency line counts a router's expert Gathers as one layer") {
  RoutedGather f;
  const ValueId up = testing::Tensor(f.graph, "up", {8, 32, 16});
  f.graph.values[up].is_initializer = true;
  const ValueId up_picked = testing::Tensor(f.graph, "up_picked", {1, 1, 2, 32, 16});
  const NodeId up_gather =
      testing::Op(f.graph, "up_gather", "Gather", {up, f.indices}, {up_picked});
  // Both tables routed to the device after route; the gate table holds experts 1 and 3, the up
  // table expert 1: only expert 1 is resident in both, so 1 of 8 for the layer.
  Plan plan;
  plan.order = {f.route, f.gather, up_gather};
  for (NodeId node : plan.order) {
    PlanStep run;
    run.node = node;
    plan.steps.push_back(run);
  }
  for (ValueId table : {f.table, up}) {
    PlanStep fetch = f.FetchTable(true, 4096, 4096);
    fetch.value = table;
    fetch.routed_by = table == up ? up_gather : f.gather;
    plan.steps.push_back(fetch);
  }
  ResidentInterval gate_held{f.table, kNoNode, 0, 2, 4096, -1, -1};
  gate_held.experts = {1, 3};
  ResidentInterval up_held{up, kNoNode, 0, 2, 2048, -1, -1};
  up_held.experts = {1};
  plan.residency = {gate_held, up_held};
  const std::vector<MoeLayerExperts> layers = FindResidentExperts(f.graph, f.profile, plan);
  REQUIRE(layers.size() == 1);
  CHECK(layers[0].node == f.gather);
  CHECK(layers[0].experts == 8);
  CHECK(layers[0].resident == 1);
  CHECK(DescribeResidentExperts(layers) ==
        "experts: 1 of 8 resident in 1 MoE node without a layer, the rest fetched after route");
}

// RoutedGather(4) with the table resident and a node `use` reading the picked slices and a
// 30000 B weight w fetched from ddr at 1 B/ns (1000 ns latency: lands at 31000 ns).
//   0 Prefetch w     no waits: [0, 31000]
//   1 route          [0, 5000]
//   2 gather         [5000, 5000 + its time]
//   3 use            waits `use_waits`; without a wait for 0 it relies on gather outlasting w.
// At the expected routing gather reads 8 * (1 - 0.75^4) = 5.46875 experts: 16384 * 5.46875 / 8
// = 11200 B of the table, writes 4 * 4096 = 16384 B and reads 4 * 16 = 64 B of indices:
// 27648 B, 27648 ns at 1 B/ns (no FLOPs), so it ends at 32648 >= 31000. A routing of d
// experts ends it at 5000 + 16448 + 2048 d, before 31000 for d <= 4.
EvaluatedPlan TimedPlan(const RoutedGather& f, ValueId w, NodeId use, ValueId z,
                        std::vector<int32_t> use_waits) {
  Plan plan;
  plan.order = {f.route, f.gather, use};
  plan.node_time_ns = {RoutedGather::kRouteNs,
                       EstimateNodeCost(f.graph, f.graph.nodes[f.gather], f.profile).time_ns, 100};
  PlanStep fetch;
  fetch.kind = StepKind::kPrefetch;
  fetch.value = w;
  fetch.bytes = 30000;
  fetch.src_tier = 1;
  fetch.dst_tier = 0;
  fetch.link = 1;
  fetch.channel = 0;
  PlanStep run_route;
  run_route.node = f.route;
  PlanStep run_gather;
  run_gather.node = f.gather;
  run_gather.boundary = 1;
  PlanStep run_use;
  run_use.node = use;
  run_use.boundary = 2;
  run_use.waits_for = std::move(use_waits);
  plan.steps = {fetch, run_route, run_gather, run_use};
  plan.residency.push_back({f.x, kNoNode, 0, 0, 256, -1, 1});
  plan.residency.push_back({f.indices, kNoNode, 0, 1, 64, 1, 2});
  plan.residency.push_back({f.table, kNoNode, 0, 2, 16384, -1, -1});
  plan.residency.push_back({f.picked, kNoNode, 1, 2, 16384, 2, -1});
  plan.residency.push_back({w, kNoNode, 0, 2, 30000, 0, 3});
  plan.residency.push_back({z, kNoNode, 2, 2, 4, 3, -1});
  plan.tier_copies.push_back({w, 1, 30000, -1, -1, 0});  // w's home copy on ddr
  return f.Finish(std::move(plan));
}

TEST_CASE(
    "an expert Gather's time follows the sampled routing: a plan on its expected timing "
    "fails under a sparser one") {
  RoutedGather f(4);
  const ValueId w = testing::Weight(f.graph, "w", 30000);
  const ValueId z = testing::Tensor(f.graph, "z", {1});
  testing::MarkOutput(f.graph, z);
  const NodeId use = testing::Op(f.graph, "use", "Work", {f.picked, w}, {z});
  const EvaluatedPlan lucky = TimedPlan(f, w, use, z, {});
  REQUIRE(lucky.plan.node_time_ns[1] == 27648);
  const VerifyResult expected = Verify(f, lucky);
  INFO(expected.message);
  REQUIRE(expected.ok);
  // P(4 or fewer of 8 experts over 4 tokens of 2) is about a quarter: 64 routings all above 4
  // would be a 0.75^64 chance.
  const RoutingSpread spread =
      EvaluateRoutingSpread(f.graph, f.profile, lucky.plan, {0, 0}, {64, 5});
  CHECK(spread.failed_sample >= 0);
  CHECK(spread.failure.rfind("invariant 1", 0) == 0);
  CHECK(spread.mean_distinct_experts == Approx(5.469).margin(0.75));
  // Waiting for w, every routing verifies; none ends before w lands and use runs: 31100 ns.
  const RoutingSpread safe =
      EvaluateRoutingSpread(f.graph, f.profile, TimedPlan(f, w, use, z, {0}).plan, {0, 0}, {64, 5});
  CHECK(safe.failed_sample == -1);
  CHECK(safe.mean_ns >= 31100);
}

}  // namespace
}  // namespace hyperplan
