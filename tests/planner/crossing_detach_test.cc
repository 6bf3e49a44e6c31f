// Where a crossing Detach is issued (planner/crossing_detaches.h): a device value a host step
// reads last is Stored to the host and then Detached on the device's stream, after its Store.
// Issued right after the host read, the Detach holds the device until the Store ends; issued
// once the device has computed for the Store's time, the device runs on beside the Store,
// unless holding the value longer would raise the plan's live peak. Unit rates as
// host_update_test.cc: the device computes 1 FLOP/ns, its links move 1 byte/ns each way; the
// host unit reads ddr at 4 B/ns and computes 0.5 FLOP/ns. Every number is worked out beside
// its assertion.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "forward_backward.h"
#include "hyperplan/loop.h"
#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/problem.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// Two layers' updates right after their gradients, the second gradient's Store queued behind the
// first's: forward n0 (x, W1) -> a, n1 (a, W2) -> a2 (4 B, 10 FLOP each); n2 a2 -> g2 (W2's
// gradient, 100 B, 100 FLOP); Adam on the host n3 (g2, M2) -> M2.updated, n4 (W2, M2.updated)
// -> W2.updated; n5 a -> g1 (W1's gradient, 4 B, 10 FLOP); Adam n6, n7 for W1 likewise; the
// rest of the backward pass on the device: n8 a2 -> b (4 B, 50 FLOP), n9 b -> c (4 B, 3000
// FLOP), n10 c -> d (4 B, 3000 FLOP, an output). W and M: 200 B each (each Adam node 200 FLOP).
struct QueuedGradients {
  Graph graph;
  ValueId g1, g2;
  QueuedGradients() {
    const ValueId x = Input(graph, "x", 4);
    const ValueId w1 = Weight(graph, Layer(1), 200);
    const ValueId w2 = Weight(graph, Layer(2), 200);
    const ValueId m1 = Moment(1);
    const ValueId m2 = Moment(2);
    const ValueId a = Work(graph, "n0", {x, w1}, "a", 4, 10);
    const ValueId a2 = Work(graph, "n1", {a, w2}, "a2", 4, 10);
    g2 = Work(graph, "n2", {a2}, Layer(2) + ".grad", 100, 100);
    Update(3, g2, m2, w2, 2);
    g1 = Work(graph, "n5", {a}, Layer(1) + ".grad", 4, 10);
    Update(6, g1, m1, w1, 1);
    const ValueId b = Work(graph, "n8", {a2}, "b", 4, 50);
    const ValueId c = Work(graph, "n9", {b}, "c", 4, 3000);
    MarkOutput(graph, Work(graph, "n10", {c}, "d", 4, 3000));
  }
  static std::string Layer(int layer) { return "model.layers." + std::to_string(layer) + ".mlp.w"; }
  ValueId Moment(int layer) {
    const ValueId m = Input(graph, Layer(layer) + ".exp_avg", 200);
    graph.values[m].value_class = ValueClass::kOptimizerState;
    return m;
  }
  // Nodes n<first> (g, M) -> M.updated and n<first + 1> (W, M.updated) -> W.updated.
  void Update(int first, ValueId g, ValueId m, ValueId w, int layer) {
    const std::string name = Layer(layer);
    const ValueId m_updated =
        Work(graph, "n" + std::to_string(first), {g, m}, name + ".updated.exp_avg", 200, 200);
    MarkOutput(graph, m_updated);
    MarkOutput(graph, Work(graph, "n" + std::to_string(first + 1), {w, m_updated},
                           name + ".updated", 200, 200));
  }
};

// The index in plan.steps of `node`'s compute step.
size_t ComputeOf(const Plan& plan, NodeId node) {
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (plan.steps[i].kind == StepKind::kCompute && plan.steps[i].node == node) return i;
  }
  FAIL("no compute step for node " << node);
  return 0;
}

// `graph` planned as the CLI plans it, with its Adam chains (`updates`) on the host, verified.
PlanResult PlanUpdatesOnHost(const Graph& graph, const std::vector<NodeId>& updates) {
  const HardwareProfile profile = HalfFlopHostProfile();
  PlanOptions options;
  options.aliases = FindAliases(graph, {});
  const Problem problem = BuildProblem(graph, profile, options);
  const std::vector<HostPart> parts = FindHostParts(problem);
  std::vector<NodeId> part_nodes;
  for (const HostPart& part : parts) {
    part_nodes.insert(part_nodes.end(), part.nodes.begin(), part.nodes.end());
  }
  std::sort(part_nodes.begin(), part_nodes.end());
  REQUIRE(part_nodes == updates);
  PlanResult result = PlanOffload(PlaceUnits(problem, NodeUnitsOf(*problem.graph, parts)), options);
  const VerifyResult verdict = VerifyPlan(graph, profile, result.plan, result.evaluation);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  for (NodeId node : updates) {
    CHECK(result.plan.steps[ComputeOf(result.plan, node)].unit == ComputeUnit::kHost);
  }
  return result;
}

PlanResult PlanUpdateOnHost(const UpdateBesideBackward& model) {
  return PlanUpdatesOnHost(model.graph, {2, 3});
}

// g's one crossing Detach, which waits for g's one Store.
const PlanStep& DetachOfGradient(const Plan& plan, ValueId g) {
  const std::vector<int32_t> stores = StepsOf(plan, StepKind::kStore, g);
  const std::vector<int32_t> detaches = StepsOf(plan, StepKind::kDetach, g);
  REQUIRE(stores.size() == 1);
  REQUIRE(detaches.size() == 1);
  const PlanStep& detach = plan.steps[detaches[0]];
  CHECK(std::count(detach.waits_for.begin(), detach.waits_for.end(), stores[0]) == 1);
  return detach;
}

}  // namespace

TEST_CASE("crossing detach: issued once the device has computed for its Store's time",
          "[planner][host]") {
  const UpdateBesideBackward model(/*b_bytes=*/4);
  const PlanResult result = PlanUpdateOnHost(model);
  const Plan& plan = result.plan;
  // Steps n0..n5 at 0..5. g is made at step 1 and read last by n2 (host) at step 2; its Store
  // takes 50 ns (50 B at 1 B/ns). After n1 the device computes nothing on steps 2 and 3 (host)
  // and 300 ns on step 4 (n4): the Detach goes before step 5, not step 3.
  CHECK(DetachOfGradient(plan, model.g).boundary == 5);
  // Live bytes (x, an input, stays throughout), the Detach at 5: step 0 x 4 + W 100 + a 4 =
  // 108; steps 1-3 x 4 + a 4 + g 50 = 58; step 4 x 4 + a 4 + b 4 + g 50 = 62; step 5 x 4 + b 4
  // + c 4 = 12. g's stay over steps 3-4 raises no step above step 0's 108.
  CHECK(plan.layout.live_peak_bytes == 108);
  // Time: W fetched from its home [0, 100]; n0 [100, 110]; n1 [110, 210]; g Stored [210,
  // 260]; the host runs n2 [260, 460] (100 FLOP at 0.5 FLOP/ns; 250 B at 4 B/ns is 62.5 ns)
  // and n3 [460, 660]; the device runs n4 [210, 510] beside the Store, the Detach (its Store
  // ended at 260) and n5 [510, 810]. With the Detach before step 3 the device would wait for
  // the Store: n4 [260, 560], n5 [560, 860].
  const std::vector<StepTiming>& timing = result.evaluation.timeline.steps;
  CHECK(timing[ComputeOf(plan, 4)].start_ns == 210);
  CHECK(timing[ComputeOf(plan, 2)].start_ns == 260);
  CHECK(timing[ComputeOf(plan, 5)].end_ns == 810);
  CHECK(result.evaluation.timeline.makespan_ns == 810);
}

TEST_CASE("crossing detach: stays where holding the value longer would raise the live peak",
          "[planner][host]") {
  const UpdateBesideBackward model(/*b_bytes=*/200);
  const PlanResult result = PlanUpdateOnHost(model);
  const Plan& plan = result.plan;
  // The no-budget mode cuts what it can at its peak within 1% overhead: x (4 B, read by n0
  // alone) is Stored at the start and Detached after n0. Live bytes with g's Detach right
  // after n2 (boundary 3): step 0 x 4 + W 100 + a 4 = 108; steps 1-2 a 4 + g 50 = 54; step 3
  // a 4; step 4 a 4 + b 200 = 204; step 5 b 200 + c 4 = 204, the peak. Step 3 holds g too
  // (54 <= 204); step 4 would hold 254: the Detach moves over the host step n3 alone, to
  // boundary 4, and the peak stays.
  CHECK(DetachOfGradient(plan, model.g).boundary == 4);
  CHECK(plan.layout.live_peak_bytes == 204);
  // The device waits at the Detach for g's Store [210, 260]: n4 [260, 560], n5 [560, 860].
  const std::vector<StepTiming>& timing = result.evaluation.timeline.steps;
  CHECK(timing[ComputeOf(plan, 4)].start_ns == 260);
  CHECK(result.evaluation.timeline.makespan_ns == 860);
}

TEST_CASE("crossing detach: a Store queued behind another's on its link", "[planner][host]") {
  const QueuedGradients model;
  const PlanResult result = PlanUpdatesOnHost(model.graph, {3, 4, 6, 7});
  const Plan& plan = result.plan;
  // The device's clock before each step (its compute, the host's steps 3, 4, 6, 7 none): step
  // 2 at 20, 3-5 at 120, 6-8 at 130, 9 at 180, 10 at 3180. g2's Store (100 B) runs from its
  // writer's end, 120, to 220; g1's (4 B), made by n5 (ending at 130), queues behind it: 220
  // to 224. g2's Detach moves from boundary 4 (after n3) to the first boundary at or past
  // 220, 10; g1's from 7 (after n6) to 10 too (at 9 the clock says 180 < 224; g1's own Store
  // alone, 130 to 134, would have stopped it at 9, where the device would wait for the queue).
  CHECK(DetachOfGradient(plan, model.g2).boundary == 10);
  CHECK(DetachOfGradient(plan, model.g1).boundary == 10);
  // Time: W1 fetched [0, 200]; n0 [200, 210]; W2 fetched once n0 and W1's Detach are done (a
  // Prefetch waits for the device-stream step before it, whose memory it may reuse) [210,
  // 410]; n1 [410, 420], n2 [420, 520]; g2 Stored [520, 620], g1 [620, 624]; the device runs
  // on: n5 [520, 530], n8 [530, 580], n9 [580, 3580], the Detaches (their Stores ended), n10
  // [3580, 6580]. The host's four Adam steps (200 FLOP at 0.5 FLOP/ns: 400 ns each) end at
  // 620 + 1600 = 2220. With g1's Detach at 9 the device would wait there for 624: 6624.
  const std::vector<StepTiming>& timing = result.evaluation.timeline.steps;
  CHECK(timing[ComputeOf(plan, 9)].start_ns == 580);
  CHECK(result.evaluation.timeline.makespan_ns == 6580);
}
