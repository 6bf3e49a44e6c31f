// Weights held whole in the room fetches after route free (planner/held_weights.h): which
// weights are candidates, the greedy choice, and the rewrite (Prefetches dropped, waits kept).
// Hand arithmetic on support/routed_moe.h (unit rates, 1000 ns link latency).
#include "planner/held_weights.h"

#include <catch2/catch.hpp>

#include "hyperplan/plan/verify.h"
#include "support/routed_moe.h"

namespace hyperplan {
namespace {

using testing::RoutedMoe;

TEST_CASE("a weight streamed whole from its home copy is a candidate, a routed one is not") {
  const RoutedMoe f;
  // fc1 whole: one Prefetch of 16384 B an iteration for a 16384 B value.
  const std::vector<planner::StreamedWeight> whole =
      planner::FindStreamedWeights(f.graph, f.HandPlan(false, 16384, 16384));
  REQUIRE(whole.size() == 1);
  CHECK(whole[0].value == f.fc1);
  CHECK(whole[0].bytes == 16384);
  CHECK(whole[0].moved_bytes == 16384);
  // Fetched after route, fc1 moves its picked experts alone: not held here.
  CHECK(planner::FindStreamedWeights(f.graph, f.HandPlan(true, 4096, 4096)).empty());
  // A weight a node updates in place (an optimizer's) is not the home copy throughout.
  RoutedMoe updated;
  updated.graph.values[updated.fc1].written_by = updated.moe;
  CHECK(planner::FindStreamedWeights(updated.graph, updated.HandPlan(false, 16384, 16384)).empty());
}

TEST_CASE("the held weights are the leading candidates that fit the room") {
  // 100 B does not fit 90 B; 50 and 30 do (80 B), by value id.
  const std::vector<planner::StreamedWeight> ranked = {{7, 100, 100}, {9, 50, 50}, {3, 30, 30}};
  CHECK(planner::ChooseHeldWeights(ranked, 90) == std::vector<ValueId>{3, 9});
  const RoutedMoe f;
  CHECK(planner::HeldBytes(f.graph, {f.fc1, f.fc2}) == 2 * 16384);
}

TEST_CASE("a held weight's Prefetch goes and its reader runs without waiting for the link") {
  const RoutedMoe f;
  // Steps: 0 Prefetch fc1 (whole), 1 route, 2 moe (waits 0). Held: 0 route, 1 moe.
  const Plan held = planner::HoldWeights(f.graph, f.HandPlan(false, 16384, 16384), {f.fc1});
  REQUIRE(held.steps.size() == 2);
  CHECK(held.steps[1].node == f.moe);
  CHECK(held.steps[1].waits_for.empty());
  const EvaluatedPlan finished = f.Finish(held);
  // route 5000 then moe 3000: 8000 (streamed: 1000 + 16384 + 3000 = 20384).
  CHECK(finished.evaluation.timeline.makespan_ns == 8000);
  // Live peak: x 64 + router 32 + fc1, fc2, fc3 3 * 16384 + y 64 = 49312 B.
  CHECK(finished.plan.layout.live_peak_bytes == 49312);
  const VerifyResult verdict = VerifyPlan(f.graph, f.profile, finished.plan, finished.evaluation);
  INFO(verdict.message);
  CHECK(verdict.ok);
}

// 0 route, 1 Prefetch fc1 (boundary 1, waits 0), 2 Prefetch fc2 (boundary 1, no waits: after
// fc1 on the channel), 3 moe (waits 1 and 2); fc2 streamed too, in its block [1, 1].
Plan TwoStreamed(const RoutedMoe& f) {
  Plan plan = f.HandPlan(false, 16384, 16384);
  PlanStep fc1 = plan.steps[0];
  fc1.boundary = 1;
  fc1.waits_for = {0};
  PlanStep fc2 = fc1;
  fc2.value = f.fc2;
  fc2.waits_for = {};
  PlanStep moe = plan.steps[2];
  moe.waits_for = {1, 2};
  plan.steps = {plan.steps[1], fc1, fc2, moe};
  for (ResidentInterval& block : plan.residency) {
    if (block.value == f.router) block.opened_by = 0;
    if (block.value == f.fc1) block = {f.fc1, kNoNode, 1, 1, 16384, 1, 3};
    if (block.value == f.fc2) block = {f.fc2, kNoNode, 1, 1, 16384, 2, 3};
    if (block.value == f.y) block.opened_by = 3;
    if (block.closed_by == 2) block.closed_by = 3;
  }
  plan.tier_copies.push_back({f.fc2, 1, 16384, -1, -1, 16384});  // fc2's home copy on ddr
  return plan;
}

TEST_CASE("the transfer after a held weight's on its channel keeps the order it had") {
  const RoutedMoe f;
  const Plan streamed = TwoStreamed(f);
  const EvaluatedPlan before = f.Finish(streamed);
  const VerifyResult before_verdict =
      VerifyPlan(f.graph, f.profile, before.plan, before.evaluation);
  INFO(before_verdict.message);
  REQUIRE(before_verdict.ok);
  // route 5000, fc1 5000 + 17384 = 22384, fc2 22384 + 17384 = 39768, moe 42768.
  CHECK(before.evaluation.timeline.makespan_ns == 42768);
  // Holding fc1: 0 route, 1 Prefetch fc2, 2 moe. fc2 no longer follows fc1 on the channel, so
  // it inherits fc1's wait for route (its block starts at step 1, after route).
  const Plan held = planner::HoldWeights(f.graph, streamed, {f.fc1});
  REQUIRE(held.steps.size() == 3);
  CHECK(held.steps[1].value == f.fc2);
  CHECK(held.steps[1].waits_for == std::vector<int32_t>{0});
  // moe waited for fc1, now for what fc1 waited for (route) and for fc2.
  CHECK(held.steps[2].waits_for == std::vector<int32_t>{0, 1});
  const EvaluatedPlan after = f.Finish(held);
  // route 5000, fc2 5000 + 17384 = 22384, moe 25384.
  CHECK(after.evaluation.timeline.makespan_ns == 25384);
  const VerifyResult verdict = VerifyPlan(f.graph, f.profile, after.plan, after.evaluation);
  INFO(verdict.message);
  CHECK(verdict.ok);
}

}  // namespace
}  // namespace hyperplan
