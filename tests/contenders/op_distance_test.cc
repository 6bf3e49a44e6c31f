// Fixed op-distance offloading: gaps chosen by size at the peak, prefetch N ops ahead.
#include "contenders/op_distance.h"

#include "contender_support.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::BuildContenderContext;
using contenders::OpDistanceOptions;
using contenders::OpDistancePlan;

TEST_CASE("op distance 0: store after the producer, release after use, fetch at the use") {
  const Stash s = MakeStash();
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(s.graph, profile, s.times);
  OpDistanceOptions options;
  options.prefetch_distance_ops = 0;
  const auto [plan, evaluation] = OpDistancePlan(context, 120, options);
  RequireVerified(s.graph, profile, plan, evaluation);
  // Live bytes 110, 120, 130, 130. Peak at step 2: the largest gap covering it is a's (steps
  // 2..2, prefetch at boundary 3): 110, 120, 30, 130. Peak at step 3: x's trailing gap (steps
  // 1..3): 110, 110, 20, 120 <= 120. Sequence: Store x at 0, n0, Store a at 1 (after its
  // producer), Detach x, n1, Detach a at 2, n2, Prefetch a at 3, n3.
  CHECK(Kinds(plan) == std::vector<StepKind>{StepKind::kStore, StepKind::kCompute, StepKind::kStore,
                                             StepKind::kDetach, StepKind::kCompute,
                                             StepKind::kDetach, StepKind::kCompute,
                                             StepKind::kPrefetch, StepKind::kCompute});
  // Store x 0..10 and n0 0..10; Store a 10..110 (hbm->ddr); Detach x at 10; n1 10..110;
  // Detach a waits for its Store: 110; n2 110..210; Prefetch a 210..310; n3 310..320.
  CHECK(evaluation.timeline.makespan_ns == 320);
  CHECK(plan.layout.live_peak_bytes == 120);
  CHECK(evaluation.fits);
}

TEST_CASE("op distance 1: a gap shorter than the distance frees nothing") {
  const Stash s = MakeStash();
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(s.graph, profile, s.times);
  OpDistanceOptions options;
  options.prefetch_distance_ops = 1;
  // a's only gap is step 2; a Prefetch one op before step 3 lands at boundary 2, so a never
  // moves. x's trailing gap (steps 1..3) alone brings the peak to 120: 110, 110, 120, 120.
  const auto [plan, evaluation] = OpDistancePlan(context, 120, options);
  RequireVerified(s.graph, profile, plan, evaluation);
  CHECK(evaluation.fits);
  for (const PlanStep& step : plan.steps) CHECK(step.value != s.a);
  CHECK(plan.layout.live_peak_bytes == 120);
  // Store x 0..10, Detach x at 10 (after n0): compute alone, 220 ns.
  CHECK(evaluation.timeline.makespan_ns == 220);
}

TEST_CASE("op distance 0: a weight is prefetched at its use, compute waits") {
  const TwoLayers t = MakeTwoLayers(150);
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(t.graph, profile, t.times);
  OpDistanceOptions options;
  options.prefetch_distance_ops = 0;
  // Live 220, 230. Peak at step 1: w0's trailing gap (steps 1..1, homed: a Detach) -> 220,
  // 130; peak at step 0: w1's leading gap (steps 0..0, Prefetch at 1) -> 120, 130 <= 130.
  const auto [plan, evaluation] = OpDistancePlan(context, 130, options);
  RequireVerified(t.graph, profile, plan, evaluation);
  CHECK(Kinds(plan) == std::vector<StepKind>{StepKind::kCompute, StepKind::kDetach,
                                             StepKind::kPrefetch, StepKind::kCompute});
  // n0 0..150; Detach w0; Prefetch w1 150..250; n1 250..400.
  CHECK(evaluation.timeline.makespan_ns == 400);
  CHECK(plan.layout.live_peak_bytes == 130);
}

}  // namespace
}  // namespace hyperplan::contenders_test
