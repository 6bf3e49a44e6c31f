// No offloading: hand-worked peak and makespan, and equality with the planner's own baseline.
#include "contenders/no_offload.h"

#include "contender_support.h"
#include "hyperplan/layout/plan_layout.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::BuildContenderContext;
using contenders::NoOffloadPlan;

TEST_CASE("no offload: every value stays from producer to last use, nothing moves") {
  const TwoLayers t = MakeTwoLayers(150);
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(t.graph, profile, t.times);
  const auto [plan, evaluation] = NoOffloadPlan(context);
  RequireVerified(t.graph, profile, plan, evaluation);
  // Step 0: x 10 + w0 100 + w1 100 + a 10 = 220; step 1 adds the output b: 230.
  CHECK(plan.layout.live_peak_bytes == 230);
  CHECK(evaluation.summary.peak_bytes == 230);
  // Compute alone: 150 + 150 ns.
  CHECK(evaluation.timeline.makespan_ns == 300);
  CHECK(Kinds(plan) == std::vector<StepKind>{StepKind::kCompute, StepKind::kCompute});
  CHECK_FALSE(plan.offload_enabled);
}

TEST_CASE("no offload equals the planner with offloading off") {
  const Stash s = MakeStash();
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(s.graph, profile, s.times);
  const auto [ours, ours_evaluation] = NoOffloadPlan(context);
  PlanOptions options;
  options.offload = false;
  options.node_time_ns = s.times;
  const PlanResult theirs_result = PlanOffload(s.graph, profile, options);
  const Plan& theirs = theirs_result.plan;
  const PlanEvaluation& theirs_evaluation = theirs_result.evaluation;
  RequireVerified(s.graph, profile, ours, ours_evaluation);
  // Live bytes: x+a 110, x+a+b 120, x+a+b+c 130, x+a+c+d 130.
  CHECK(ours.layout.live_peak_bytes == 130);
  CHECK(ours.layout.live_peak_bytes == theirs.layout.live_peak_bytes);
  CHECK(ours.layout.arena_bytes == theirs.layout.arena_bytes);
  CHECK(ours_evaluation.timeline.makespan_ns == theirs_evaluation.timeline.makespan_ns);
  CHECK(ours_evaluation.timeline.makespan_ns == 220);  // 10 + 100 + 100 + 10
  CHECK(ours.residency.size() == theirs.residency.size());
  CHECK(context.baseline_peak_bytes == 130);
  CHECK(context.baseline_arena_bytes == theirs.layout.arena_bytes);
}

TEST_CASE("no offload: one arena for the planner's summary and the contenders'") {
  const Stash s = MakeStash();
  const HardwareProfile profile = UnitProfile();
  const std::vector<NodeId> order = {0, 1, 2, 3};
  // Live bytes peak at 130 B (steps 2 and 3, above), so no layout is smaller; greedy by size
  // reaches it: a 100 B (steps 0-3) at 0, x 10 B (0-3) at 100, b 10 B (1-2) at 110, c 10 B
  // (2-3) at 120, d 10 B (3) at 110 where b ended.
  CHECK(NoOffloadArenaBytes(s.graph, profile, order, AnalyzeLifetimes(s.graph, order)) == 130);
  CHECK(BuildContenderContext(s.graph, profile, s.times).baseline_arena_bytes == 130);
  // The planner offloads to fit 120 B; its summary still compares against those 130 B.
  PlanOptions options;
  options.budget_bytes = 120;
  options.node_time_ns = s.times;
  const PlanResult planned_result = PlanOffload(s.graph, profile, options);
  const Plan& planned = planned_result.plan;
  const PlanEvaluation& planned_evaluation = planned_result.evaluation;
  CHECK(planned_evaluation.summary.baseline_arena_bytes == 130);
  CHECK(planned.layout.arena_bytes <= 120);
}

}  // namespace
}  // namespace hyperplan::contenders_test
