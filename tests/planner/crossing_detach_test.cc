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
#include <vector>

#include "forward_backward.h"
#include "hyperplan/loop.h"
#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/problem.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// The index in plan.steps of `node`'s compute step.
size_t ComputeOf(const Plan& plan, NodeId node) {
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (plan.steps[i].kind == StepKind::kCompute && plan.steps[i].node == node) return i;
  }
  FAIL("no compute step for node " << node);
  return 0;
}

// `model` planned as the CLI plans it, with its Adam chain (n2, n3) on the host, verified.
PlanResult PlanUpdateOnHost(const UpdateBesideBackward& model) {
  const HardwareProfile profile = HalfFlopHostProfile();
  PlanOptions options;
  options.aliases = FindAliases(model.graph, {});
  const Problem problem = BuildProblem(model.graph, profile, options);
  const std::vector<HostPart> parts = FindHostParts(problem);
  REQUIRE(parts.size() == 1);
  REQUIRE(parts[0].nodes == std::vector<NodeId>{2, 3});
  PlanResult result = PlanOffload(PlaceUnits(problem, NodeUnitsOf(*problem.graph, parts)), options);
  const VerifyResult verdict = VerifyPlan(model.graph, profile, result.plan, result.evaluation);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  CHECK(result.plan.steps[ComputeOf(result.plan, 2)].unit == ComputeUnit::kHost);
  CHECK(result.plan.steps[ComputeOf(result.plan, 3)].unit == ComputeUnit::kHost);
  return result;
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
