// No offloading: hand-worked peak and makespan, and equality with the planner's own baseline.
#include "baselines/no_offload.h"

#include "baseline_support.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::baselines_test {
namespace {

using baselines::BuildBaselineContext;
using baselines::NoOffloadPlan;

TEST_CASE("no offload: every value stays from producer to last use, nothing moves") {
  const TwoLayers t = MakeTwoLayers(150);
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildBaselineContext(t.graph, profile, t.times);
  const Plan plan = NoOffloadPlan(context);
  RequireVerified(t.graph, profile, plan);
  // Step 0: x 10 + w0 100 + w1 100 + a 10 = 220; step 1 adds the output b: 230.
  CHECK(plan.layout.live_peak_bytes == 230);
  CHECK(plan.summary.peak_bytes == 230);
  // Compute alone: 150 + 150 ns.
  CHECK(plan.timeline.makespan_ns == 300);
  CHECK(Kinds(plan) == std::vector<StepKind>{StepKind::kCompute, StepKind::kCompute});
  CHECK_FALSE(plan.offload_enabled);
}

TEST_CASE("no offload equals the planner with offloading off") {
  const Stash s = MakeStash();
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildBaselineContext(s.graph, profile, s.times);
  const Plan ours = NoOffloadPlan(context);
  PlanOptions options;
  options.offload = false;
  options.node_time_ns = s.times;
  const Plan theirs = PlanOffload(s.graph, profile, options).plan;
  RequireVerified(s.graph, profile, ours);
  // Live bytes: x+a 110, x+a+b 120, x+a+b+c 130, x+a+c+d 130.
  CHECK(ours.layout.live_peak_bytes == 130);
  CHECK(ours.layout.live_peak_bytes == theirs.layout.live_peak_bytes);
  CHECK(ours.layout.arena_bytes == theirs.layout.arena_bytes);
  CHECK(ours.timeline.makespan_ns == theirs.timeline.makespan_ns);
  CHECK(ours.timeline.makespan_ns == 220);  // 10 + 100 + 100 + 10
  CHECK(ours.residency.size() == theirs.residency.size());
  CHECK(context.baseline_peak_bytes == 130);
  CHECK(context.baseline_arena_bytes == theirs.layout.arena_bytes);
}

}  // namespace
}  // namespace hyperplan::baselines_test
