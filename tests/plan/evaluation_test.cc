// A plan's evaluation (src/plan/evaluation.cc) and the body scratch every plan holds
// (AddBodyScratch in src/plan/plan.cc): the numbers worked out by hand on the skip graph.
#include "hyperplan/plan/evaluation.h"

#include <catch2/catch.hpp>
#include <utility>

#include "planner/planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// The catalogue's skip graph: s (100 B) made at step 0 and read at step 4; n2 needs 200 B of
// body scratch. Node times 10, 100, 50, 100, 10 ns: 270 ns of compute.
struct Skip {
  Graph graph;
  ValueId s = kNoValue;
  Skip() {
    graph.name = "skip";
    s = Work(graph, "n0", {}, "s", 100, 10);
    const ValueId a = Work(graph, "n1", {s}, "a", 1, 100);
    const ValueId b = Work(graph, "n2", {a}, "b", 1, 50, 200);
    const ValueId c = Work(graph, "n3", {b}, "c", 1, 100);
    MarkOutput(graph, Work(graph, "n4", {c, s}, "y", 1, 10));
  }
};

}  // namespace

TEST_CASE("evaluation: the replay, the fit and the summary of a plan, from one function") {
  const Skip skip;
  const HardwareProfile profile = UnitProfile();
  // At 250 B the planner offloads s over steps 1..3: peak 302 B -> 202 B (summary_test.cc).
  const PlanResult result = PlanAndVerify(skip.graph, profile, Budget(250));
  Plan plan = result.plan;
  const PlanEvaluation evaluation = EvaluatePlan(skip.graph, profile, plan, {302, 302});
  CHECK(evaluation.fits);                                  // arena 202 B <= budget 250 B
  CHECK(evaluation.timeline.makespan_ns == 270);           // the transfers hide: compute alone
  CHECK(evaluation.timeline.baseline_makespan_ns == 270);  // 10 + 100 + 50 + 100 + 10
  CHECK(evaluation.summary.baseline_peak_bytes == 302);    // the reference as given
  CHECK(evaluation.summary.peak_bytes == 202);             // n2: b 1 + a 1 + scratch 200
  CHECK(evaluation.summary.arena_bytes == plan.layout.arena_bytes);
  CHECK(evaluation.summary.offloaded_values == 1);
  // The planner's evaluation, beside its plan, is the one FinishPlan computed.
  CHECK(evaluation.summary.makespan_ns == result.evaluation.summary.makespan_ns);
  CHECK(evaluation.summary.peak_bytes == result.evaluation.summary.peak_bytes);
  CHECK(evaluation.timeline.steps.size() == plan.steps.size());

  // A budget under the arena (202 B) does not fit; the replay is the same.
  plan.budget_bytes = 201;
  const PlanEvaluation over = EvaluatePlan(skip.graph, profile, plan, {302, 302});
  CHECK_FALSE(over.fits);
  CHECK(over.timeline.makespan_ns == 270);
}

TEST_CASE("evaluation: FinishPlan lays out, replays and summarises in one step") {
  const Skip skip;
  const HardwareProfile profile = UnitProfile();
  const Plan planned = PlanAndVerify(skip.graph, profile, Budget(250)).plan;
  Plan plan = planned;
  plan.layout = {};
  const EvaluatedPlan finished =
      FinishPlan(skip.graph, profile, LayoutOptions{}, {302, 302}, std::move(plan));
  CHECK(finished.plan.layout.arena_bytes == planned.layout.arena_bytes);
  CHECK(finished.plan.layout.offset_bytes == planned.layout.offset_bytes);
  CHECK(finished.evaluation.timeline.makespan_ns == 270);  // the transfers hide: compute alone
  CHECK(finished.evaluation.summary.peak_bytes == 202);    // n2: b 1 + a 1 + scratch 200
  CHECK(finished.evaluation.fits);                         // arena 202 B <= budget 250 B
}

TEST_CASE("body scratch: one step of the node's scratch bytes, opened and closed by its step") {
  const Skip skip;
  // Steps in the model's order; compute steps at sequence indices 0, 2, 3, 5, 6 (cache ops in
  // between). Only n2 (step 2) has a body: 200 B, held by sequence index 3 alone.
  const std::vector<NodeId> order = {0, 1, 2, 3, 4};
  const std::vector<int32_t> compute_index = {0, 2, 3, 5, 6};
  std::vector<ResidentInterval> residency(1);  // appended after what is there
  AddBodyScratch(skip.graph, order, compute_index, residency);
  REQUIRE(residency.size() == 2);
  const ResidentInterval& scratch = residency[1];
  CHECK(scratch.value == kNoValue);
  CHECK(scratch.scratch_node == 2);
  CHECK(scratch.first_step == 2);
  CHECK(scratch.last_step == 2);
  CHECK(scratch.bytes == 200);
  CHECK(scratch.opened_by == 3);
  CHECK(scratch.closed_by == 3);
}
