// Fetch-after-route (plan.h PlanStep::routed_by): the stall it exposes, the verifier's rules on
// its reservation and its wait for the router, and its bytes under sampled routings. Hand plans
// on support/routed_moe.h: unit rates (1 B/ns links with 1000 ns latency).
#include "hyperplan/routed_fetch.h"

#include <catch2/catch.hpp>

#include "hyperplan/plan/routing_spread.h"
#include "hyperplan/plan/verify.h"
#include "support/routed_moe.h"

namespace hyperplan {
namespace {

using testing::RoutedMoe;

VerifyResult Verify(const RoutedMoe& f, const EvaluatedPlan& planned) {
  return VerifyPlan(f.graph, f.profile, planned.plan, planned.evaluation);
}

TEST_CASE("a fetch after route stalls the MoE node for the routed experts' bytes") {
  const RoutedMoe f;
  // One token, top 2 of 8 uniform: each expert touched with probability 2/8, so 8 * 0.25 = 2
  // experts of 2048 B are expected (4096 B), and at worst min(8, 2 * 1) = 2 (4096 B).
  const std::optional<RoutedOperand> operand = RoutedOperandOf(f.graph, f.moe, f.fc1);
  REQUIRE(operand);
  CHECK(operand->slice_bytes == 2048);
  CHECK(operand->router == f.route);
  CHECK(ExpectedRoutedBytes(*operand, {}) == 4096);
  CHECK(ReservedRoutedBytes(*operand, 0) == 4096);

  const EvaluatedPlan routed = f.Finish(f.HandPlan(true, 4096, 4096));
  const VerifyResult verdict = Verify(f, routed);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  const SimulationResult& timeline = routed.evaluation.timeline;
  // route [0, 5000]; the fetch waits for it: 5000 + 1000 latency + 4096 B at 1 B/ns = 10096;
  // moe [10096, 13096]: stalled 5096 ns, the exposed fetch.
  CHECK(timeline.steps[1].start_ns == 5000);
  CHECK(timeline.steps[1].end_ns == 10096);
  CHECK(timeline.stall_ns_per_node[f.moe] == 5096);
  CHECK(timeline.makespan_ns == 13096);
  // The device holds 4096 B of fc1, not 16384: at moe 64 + 32 + 4096 + 2 * 16384 + 64 = 37024.
  CHECK(routed.evaluation.summary.peak_bytes == 37024);

  // The same fc1 whole, issued at the start: 1000 + 16384 = 17384 ns; moe [17384, 20384].
  const EvaluatedPlan whole = f.Finish(f.HandPlan(false, 16384, 16384));
  REQUIRE(Verify(f, whole).ok);
  CHECK(whole.evaluation.timeline.makespan_ns == 20384);
}

TEST_CASE("the verifier holds a routed fetch to the worst routing and to the router") {
  const RoutedMoe f;
  SECTION("a reservation under the worst case fails") {
    // 1 expert reserved (2048 B) where 2 picks can miss: min(8, 2) * 2048 = 4096 needed.
    const VerifyResult verdict = Verify(f, f.Finish(f.HandPlan(true, 2048, 2048)));
    CHECK_FALSE(verdict.ok);
    CHECK(verdict.invariant == 2);
    CHECK(verdict.message.find("needs 4096") != std::string::npos);
  }
  SECTION("moving more than the reservation fails") {
    const VerifyResult verdict = Verify(f, f.Finish(f.HandPlan(true, 6144, 4096)));
    CHECK_FALSE(verdict.ok);
    CHECK(verdict.invariant == 2);
  }
  SECTION("not waiting for the router fails") {
    Plan plan = f.HandPlan(true, 4096, 4096);
    plan.steps[1].waits_for.clear();
    const VerifyResult verdict = Verify(f, f.Finish(std::move(plan)));
    CHECK_FALSE(verdict.ok);
    CHECK(verdict.invariant == 4);
    CHECK(verdict.message.find("router 'route'") != std::string::npos);
  }
  SECTION("resident experts out of order fail") {
    const VerifyResult verdict = Verify(f, f.Finish(f.HandPlan(true, 4096, 4096, {3, 1})));
    CHECK_FALSE(verdict.ok);
    CHECK(verdict.message.find("out of order") != std::string::npos);
  }
}

TEST_CASE("an NVMe-homed expert operand is routed on both hops") {
  RoutedMoe f;
  const EvaluatedPlan routed = f.Finish(f.TwoHopPlan(4096));
  const VerifyResult verdict = Verify(f, routed);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  // route [0, 5000]; nvme -> ddr 4096 B at 1 B/ns: [5000, 9096]; ddr -> hbm 1000 + 4096:
  // [9096, 14192]; moe [14192, 17192].
  CHECK(routed.evaluation.timeline.steps[1].end_ns == 9096);
  CHECK(routed.evaluation.timeline.makespan_ns == 17192);
  // The staging copy holds the worst case, 4096 B, not the 16384 B tensor: on ddr 4096 B peak.
  CHECK(routed.evaluation.timeline.peak_bytes_per_tier[1] == 4096);

  RoutedMoe whole_staging;
  const VerifyResult staged_whole =
      Verify(whole_staging, whole_staging.Finish(whole_staging.TwoHopPlan(16384)));
  CHECK_FALSE(staged_whole.ok);
  CHECK(staged_whole.invariant == 2);
}

TEST_CASE("a hot expert kept resident by a routing profile") {
  RoutedMoe f;
  // Per-token selection probabilities summing to k = 2: expert 0 is picked by 90% of tokens.
  f.graph.expert_selection["moe"] = {0.9, 0.5, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05};
  const std::optional<RoutedOperand> operand = RoutedOperandOf(f.graph, f.moe, f.fc1);
  REQUIRE(operand);
  // With expert 0 resident, one token fetches the others it picks: 2048 B * (2 - 0.9) =
  // 2252.8, 2253 B expected; at worst still min(8 - 1, 2) = 2 experts, 4096 B.
  CHECK(ExpectedRoutedBytes(*operand, {0}) == 2253);
  CHECK(ReservedRoutedBytes(*operand, 1) == 4096);
  const EvaluatedPlan held = f.Finish(f.HandPlan(true, 2253, 4096, {0}));
  const VerifyResult verdict = Verify(f, held);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  // route 5000, fetch 1000 + 2253 = 3253 -> moe at 8253, ends 11253.
  CHECK(held.evaluation.timeline.makespan_ns == 11253);
  // 37024 B at moe plus expert 0's 2048 B for the whole run: 39072.
  CHECK(held.evaluation.summary.peak_bytes == 39072);

  // Sampled routings: one token picks 2 experts; the fetch moves those not resident, 2048 or
  // 4096 B, within the reservation, so every routing verifies.
  const RoutingSpread spread =
      EvaluateRoutingSpread(f.graph, f.profile, held.plan, {0, 0}, {64, 3});
  CHECK(spread.failed_sample == -1);
  CHECK(spread.mean_distinct_experts == Approx(2.0));
  // moe's time is the plan's 3000 ns plus the roofline's change at 2 distinct experts (none:
  // the expectation is 2 too), so an iteration is 5000 + 1000 + {2048, 4096} + 3000 ns.
  CHECK(spread.max_ns <= 13096);
  CHECK(spread.mean_ns >= 11048);
  CHECK(spread.mean_ns <= 13096);
}

}  // namespace
}  // namespace hyperplan
