// The eager-update order under a unit placement (planner.cc WithEagerHostUpdates): with the
// optimizer on the host, the model's order runs every update after the whole backward pass, so
// a gradient waits on the device for its crossing Store (or, where the device is full, is sent
// down, fetched back and sent down again) and the host waits for the backward pass to end; in
// the eager-update order (order.h) each layer's update runs on the host beside the rest of the
// backward pass. Unit rates as host_update_test.cc: the device computes 1 FLOP/ns, its
// links move 1 byte/ns each way; the host unit reads ddr at 4 B/ns and computes 0.5 FLOP/ns.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "hyperplan/loop.h"
#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/problem.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// Two layers' training step. Forward n0 (x, W0) -> a0, n1 (a0, W1) -> a1 (4 B, 10 FLOP each);
// backward n2 a1 -> W1's gradient g1 (100 B, 100 FLOP), n3 (a1, W1) -> da (layer 1's data
// gradient, 4 B, 10 FLOP), n4 (da, W0) -> dx (layer 0's, a graph output, 4 B, 1000 FLOP: the
// long rest of the backward pass), n5 (da, a0) -> g0 (W0's gradient, 100 B, 100 FLOP); Adam
// per layer: n6 (g1, M1) -> M1 in place, n7 (W1, M1') -> W1 in place, n8 (g0, M0) -> M0, n9
// (W0, M0') -> W0 (100 B, 100 FLOP each). W and M: 100 B each.
struct TwoLayerTrain {
  Graph graph;
  ValueId g1;
  TwoLayerTrain() {
    const ValueId x = Input(graph, "x", 4);
    const ValueId w0 = Weight(graph, Layer(0), 100);
    const ValueId w1 = Weight(graph, Layer(1), 100);
    const ValueId m0 = Moment(0);
    const ValueId m1 = Moment(1);
    const ValueId a0 = Work(graph, "n0", {x, w0}, "a0", 4, 10);
    const ValueId a1 = Work(graph, "n1", {a0, w1}, "a1", 4, 10);
    g1 = Work(graph, "n2", {a1}, Layer(1) + ".grad", 100, 100);
    const ValueId da = Work(graph, "n3", {a1, w1}, "da", 4, 10);
    MarkOutput(graph, Work(graph, "n4", {da, w0}, "dx", 4, 1000));
    const ValueId g0 = Work(graph, "n5", {da, a0}, Layer(0) + ".grad", 100, 100);
    Update(6, g1, m1, w1, 1);
    Update(8, g0, m0, w0, 0);
  }
  static std::string Layer(int layer) { return "model.layers." + std::to_string(layer) + ".mlp.w"; }
  ValueId Moment(int layer) {
    const ValueId m = Input(graph, Layer(layer) + ".exp_avg", 100);
    graph.values[m].value_class = ValueClass::kOptimizerState;
    return m;
  }
  // Nodes n<first> (g, M) -> M.updated and n<first + 1> (W, M.updated) -> W.updated.
  void Update(int first, ValueId g, ValueId m, ValueId w, int layer) {
    const std::string name = Layer(layer);
    const ValueId m_updated =
        Work(graph, "n" + std::to_string(first), {g, m}, name + ".updated.exp_avg", 100, 100);
    MarkOutput(graph, m_updated);
    MarkOutput(graph, Work(graph, "n" + std::to_string(first + 1), {w, m_updated},
                           name + ".updated", 100, 100));
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

// The plan of `model` on a 150 B device with its Adam chains on the host, verified.
PlanResult PlanOnHost(const TwoLayerTrain& model, const HardwareProfile& profile,
                      bool allow_reorder) {
  PlanOptions options;
  options.aliases = FindAliases(model.graph, {});
  options.allow_reorder = allow_reorder;
  const Problem problem = BuildProblem(model.graph, profile, options);
  const Problem placed = PlaceUnits(problem, NodeUnitsOf(*problem.graph, FindHostParts(problem)));
  PlanResult result = PlanOffload(placed, options);
  const VerifyResult verdict = VerifyPlan(model.graph, profile, result.plan, result.evaluation);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  for (NodeId node = 6; node <= 9; ++node) {
    CHECK(result.plan.steps[ComputeOf(result.plan, node)].unit == ComputeUnit::kHost);
  }
  return result;
}

}  // namespace

// 150 B of device: W (100 B) and a gradient (100 B) never fit together, so a gradient waiting
// on the device across n4 (which reads W0) must leave and come back.
TEST_CASE("eager host updates: the model's order sends the gradient down and back up",
          "[planner][host]") {
  const TwoLayerTrain model;
  const PlanResult result = PlanOnHost(model, HalfFlopHostProfile(150), /*allow_reorder=*/false);
  // g1 (made by n2 at step 2, read first by the host n6 at step 6) is Stored after n2, Detached
  // for W0 during n4, Prefetched back before n6 and Stored again for it: two Stores, a Prefetch.
  CHECK(StepsOf(result.plan, StepKind::kStore, model.g1).size() == 2);
  CHECK(StepsOf(result.plan, StepKind::kPrefetch, model.g1).size() == 1);
  // W0 [0, 100], n0 [100, 110], W1 [110, 210], n1 [210, 220], n2 [220, 320], g1 down [320,
  // 420], n3 [420, 430], W0 again [430, 530], n4 [530, 1530] (1000 FLOP); dx (4 B) leaves
  // [1530, 1534] for g1 to come back up [1534, 1634] beside n5 [1534, 1634]; g1 down again
  // [1634, 1734]; the host runs n6..n9 back to back from 1734, 200 ns each (100 FLOP at 0.5
  // FLOP/ns, over 300 B at 4 B/ns = 75 ns): 1734 + 800 = 2534.
  CHECK(result.evaluation.timeline.makespan_ns == 2534);
}

TEST_CASE("eager host updates: each update runs on the host beside the backward pass",
          "[planner][host]") {
  const TwoLayerTrain model;
  const PlanResult result = PlanOnHost(model, HalfFlopHostProfile(150), /*allow_reorder=*/true);
  const Plan& plan = result.plan;
  // Eager updates (order.h): n0 n1 n3 n2 n6 n7 n4 n5 n8 n9 (layer 1's update after n3, the
  // last other reader of W1; layer 0's after n4, the last other reader of W0).
  CHECK(plan.order_name == kEagerUpdateOrder);
  CHECK(plan.order == std::vector<NodeId>{0, 1, 3, 2, 6, 7, 4, 5, 8, 9});
  // g1 crosses once, right after n2: one Store, no Prefetch.
  CHECK(StepsOf(plan, StepKind::kStore, model.g1).size() == 1);
  CHECK(StepsOf(plan, StepKind::kPrefetch, model.g1).empty());
  // W0 [0, 100], n0 [100, 110], W1 [110, 210], n1 [210, 220], n3 [220, 230], n2 [230, 330],
  // g1 down [330, 430]; the host runs n6 [430, 630] and n7 [630, 830] while the device fetches
  // W0 again [430, 530] and runs n4 [530, 1530]; n5 [1530, 1630], g0 down [1630, 1730], n8
  // [1730, 1930], n9 [1930, 2130]: 2130, against 2534 in the model's order.
  const std::vector<StepTiming>& timing = result.evaluation.timeline.steps;
  CHECK(timing[ComputeOf(plan, 6)].start_ns == 430);
  CHECK(timing[ComputeOf(plan, 7)].end_ns == 830);
  CHECK(timing[ComputeOf(plan, 4)].end_ns == 1530);
  CHECK(result.evaluation.timeline.makespan_ns == 2130);
}
