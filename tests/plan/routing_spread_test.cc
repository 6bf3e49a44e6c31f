// A plan over sampled routings (hyperplan/plan/routing_spread.h): a plan that is valid at the
// expected routing but relies on its timing fails under a routing that touches fewer experts,
// and the same plan with the wait it lacked verifies under every one.
#include "hyperplan/plan/routing_spread.h"

#include <catch2/catch.hpp>

#include "hyperplan/cost.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/verify.h"
#include "support/moe_graphs.h"

namespace hyperplan {
namespace {

using testing::FloatMoe;
using testing::Op;
using testing::Tensor;

// FloatMoe(4) (E = 8, k = 2, 4 tokens, experts of 6144 B) feeding a node `use` that also reads
// a 30000 B weight w fetched from ddr at 1 B/ns.
struct Fixture {
  Graph graph = FloatMoe(4);
  HardwareProfile profile = testing::UnitProfile();
  NodeId moe = 0, use = 1;
  ValueId w, y, z;

  Fixture() {
    for (const char* name : {"x", "router"}) {
      const ValueId id = graph.FindValue(name);
      graph.values[id].is_graph_input = true;
      graph.values[id].value_class = ValueClass::kGraphInput;
      graph.inputs.push_back(id);
    }
    for (const char* name : {"fc1", "fc2", "fc3"}) {
      const ValueId id = graph.FindValue(name);
      graph.values[id].is_initializer = true;
      graph.values[id].value_class = ValueClass::kWeight;
    }
    y = graph.FindValue("y");
    w = Tensor(graph, "w", {30000}, DType::kUint8);
    graph.values[w].is_initializer = true;
    graph.values[w].value_class = ValueClass::kWeight;
    z = Tensor(graph, "z", {4});
    use = Op(graph, "use", "Work", {y, w}, {z});
    graph.values[z].is_graph_output = true;
    graph.values[z].value_class = ValueClass::kGraphOutput;
    graph.outputs.push_back(z);
  }

  // Steps, at the expected routing (8 * (1 - 0.75^4) = 5.469 experts: 640 B of activations +
  // 49152 * 5.469 / 8 = 33600 B of experts = 34240 B, memory-bound at 1 B/ns over the 24576 ns
  // of FLOPs: 34240 ns):
  //   0 Prefetch w ddr->hbm    no waits: [0, 30000]
  //   1 moe (device)           [0, 34240]
  //   2 use (device)           waits `use_waits`: [34240, 34340]; without a wait for 0 it
  //                            relies on moe outlasting the Prefetch.
  // A routing touching 4 experts or fewer makes moe read at most 640 + 4 * 6144 = 25216 B:
  // max(24576 ns of FLOPs, 25216 ns) = 25216 ns < 30000, so use starts before w lands.
  EvaluatedPlan Plan(std::vector<int32_t> use_waits) const {
    hyperplan::Plan plan;
    plan.order = {moe, use};
    plan.node_time_ns = {EstimateNodeCost(graph, graph.nodes[moe], profile).time_ns, 100};
    PlanStep fetch;
    fetch.kind = StepKind::kPrefetch;
    fetch.value = w;
    fetch.bytes = 30000;
    fetch.src_tier = 1;
    fetch.dst_tier = 0;
    fetch.link = 1;  // ddr -> hbm
    fetch.channel = 0;
    fetch.boundary = 0;
    plan.steps.push_back(fetch);
    PlanStep run_moe;
    run_moe.node = moe;
    run_moe.boundary = 0;
    plan.steps.push_back(run_moe);
    PlanStep run_use;
    run_use.node = use;
    run_use.boundary = 1;
    run_use.waits_for = std::move(use_waits);
    plan.steps.push_back(run_use);
    for (const char* name : {"x", "router", "fc1", "fc2", "fc3"}) {
      const ValueId id = graph.FindValue(name);
      plan.residency.push_back({id, kNoNode, 0, 0, graph.values[id].bytes, -1, 1});
    }
    plan.residency.push_back({y, kNoNode, 0, 1, graph.values[y].bytes, 1, 2});
    plan.residency.push_back({w, kNoNode, 0, 1, 30000, 0, 2});
    plan.residency.push_back({z, kNoNode, 1, 1, graph.values[z].bytes, 2, -1});
    plan.tier_copies.push_back({w, 1, 30000, -1, -1, 0});  // w's home copy on ddr
    return FinishPlan(graph, profile, LayoutOptions{}, {0, 0}, std::move(plan));
  }
};

TEST_CASE("a plan relying on the expected routing's timing fails under a sparser routing") {
  const Fixture f;
  const EvaluatedPlan lucky = f.Plan({});
  // 34240 ns at the expectation, as the comment above works out.
  REQUIRE(lucky.plan.node_time_ns[f.moe] == 34240);
  // Valid when every routing is the expected one...
  const VerifyResult expected = VerifyPlan(f.graph, f.profile, lucky.plan, lucky.evaluation);
  INFO(expected.message);
  REQUIRE(expected.ok);
  // ...but not under every sampled routing: P(4 or fewer of 8 experts over 4 tokens) is about
  // a quarter, so 64 routings all above 4 would be a 0.75^64 chance.
  const RoutingSpread spread =
      EvaluateRoutingSpread(f.graph, f.profile, lucky.plan, {0, 0}, {64, 5});
  CHECK(spread.samples == 64);
  CHECK(spread.failed_sample >= 0);
  CHECK(spread.failure.rfind("invariant 1", 0) == 0);
  // Some routing is faster than the plan's 34340 ns, and none slower than all 8 experts:
  // moe at 640 + 8 * 6144 = 49792 ns, then use: 49892 ns.
  CHECK(spread.max_ns <= 49892);
  CHECK(spread.mean_distinct_experts == Approx(5.469).margin(0.75));

  // With use waiting for the Prefetch, every routing verifies.
  const EvaluatedPlan ordered = f.Plan({0});
  const RoutingSpread safe =
      EvaluateRoutingSpread(f.graph, f.profile, ordered.plan, {0, 0}, {64, 5});
  CHECK(safe.failed_sample == -1);
  CHECK(safe.failure.empty());
  // Each routing's iteration: use after max(moe, 30000) for 100 ns; the fastest moe is
  // 24576 ns (FLOPs bound, 2 experts), so no sample is under 30100 ns.
  CHECK(safe.mean_ns >= 30100);
  CHECK(safe.p99_ns >= safe.mean_ns);
  CHECK(DescribeRoutingSpread(safe).find("the plan verifies under each") != std::string::npos);
}

}  // namespace
}  // namespace hyperplan
