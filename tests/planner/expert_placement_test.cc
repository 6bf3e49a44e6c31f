// Experts placed one by one (planner/expert_placement.h): a whole Prefetch of a stacked expert
// operand becomes a fetch after route, and the room under the budget keeps the hottest expert
// of a routing profile resident. Hand arithmetic on support/routed_moe.h (unit rates, 1000 ns
// link latency).
#include "planner/expert_placement.h"

#include <catch2/catch.hpp>

#include "hyperplan/plan/verify.h"
#include "hyperplan/planner/problem.h"
#include "support/routed_gather.h"
#include "support/routed_moe.h"

namespace hyperplan {
namespace {

using testing::RoutedMoe;

// The hand plan with fc1 whole as the planner's plan of `f`'s one-shot problem, under
// `budget_bytes`.
// (Either routed fixture: RoutedMoe's router and MoE node, or RoutedGather's router and Gather.)
template <typename Fixture>
PlanResult PlacedUnder(const Fixture& f, std::vector<int64_t> node_time_ns, int64_t budget_bytes) {
  PlanOptions options;
  options.single_run = true;
  options.node_time_ns = std::move(node_time_ns);
  const Problem problem = BuildProblem(f.graph, f.profile, options);
  Plan whole = f.HandPlan(false, 16384, 16384);
  whole.budget_bytes = budget_bytes;
  PlanResult planned;
  static_cast<EvaluatedPlan&>(planned) = f.Finish(std::move(whole));
  return planner::PlaceExpertsAfterRoute(problem, options, std::move(planned));
}

PlanResult Placed(const RoutedMoe& f, int64_t budget_bytes) {
  return PlacedUnder(f, {RoutedMoe::kRouteNs, RoutedMoe::kMoeNs}, budget_bytes);
}

TEST_CASE("a streamed expert operand is fetched after route, its hot expert kept resident") {
  RoutedMoe f;
  f.graph.expert_selection["moe"] = {0.05, 0.9, 0.2, 0.1, 0.1, 0.1, 0.5, 0.05};
  SECTION("no room beyond the routed block: fetch after route only") {
    // Routed, the live peak is 64 + 32 + 4096 + 2 * 16384 + 64 = 37024 B; 37024 + 2000 leaves
    // no room for a 2048 B expert.
    const PlanResult placed = Placed(f, 37024 + 2000);
    REQUIRE(placed.evaluation.fits);
    const PlanStep& fetch = placed.plan.steps[1];
    CHECK(fetch.routed_by == f.moe);
    CHECK(fetch.boundary == 1);  // right after the router
    CHECK(fetch.waits_for == std::vector<int32_t>{0});
    // The expectation over all 8: 2048 * 2 = 4096 B, reserved 2 experts, 4096 B.
    CHECK(fetch.bytes == 4096);
    CHECK(fetch.reserved_bytes == 4096);
    // route 5000, fetch 1000 + 4096, moe 3000: 13096 (whole: 1000 + 16384 + 3000 = 20384).
    CHECK(placed.evaluation.timeline.makespan_ns == 13096);
    const VerifyResult verdict = VerifyPlan(f.graph, f.profile, placed.plan, placed.evaluation);
    INFO(verdict.message);
    CHECK(verdict.ok);
  }
  SECTION("room for one expert: the profile's hottest (expert 1, p = 0.9) stays") {
    const PlanResult placed = Placed(f, 37024 + 3000);
    REQUIRE(placed.evaluation.fits);
    REQUIRE(placed.plan.residency.size() == 7);
    const ResidentInterval& held = placed.plan.residency.back();
    CHECK(held.value == f.fc1);
    CHECK(held.experts == std::vector<int32_t>{1});
    CHECK(held.bytes == 2048);
    const PlanStep& fetch = placed.plan.steps[1];
    // The others: 2048 * (2 - 0.9) = 2252.8 -> 2253 B expected; 2 of 7 at worst: 4096 B.
    CHECK(fetch.bytes == 2253);
    CHECK(fetch.reserved_bytes == 4096);
    // route 5000, fetch 1000 + 2253, moe 3000: 11253.
    CHECK(placed.evaluation.timeline.makespan_ns == 11253);
    const VerifyResult verdict = VerifyPlan(f.graph, f.profile, placed.plan, placed.evaluation);
    INFO(verdict.message);
    CHECK(verdict.ok);
  }
}

// The hand plan with fc2 also brought, in two chunks of 8192 B on fc1's channel (chunks.h):
//   0 Prefetch fc1 (whole), 1 Prefetch fc2 [0, 8192), 2 route, 3 Prefetch fc2 [8192, 16384)
//   (chunk_of 1), 4 moe (waits for 0 and 3).
Plan WithChunkedFc2(const RoutedMoe& f) {
  Plan plan = f.HandPlan(false, 16384, 16384);
  PlanStep head = plan.steps[0];
  head.value = f.fc2;
  head.bytes = 8192;
  PlanStep tail = head;
  tail.boundary = 1;
  tail.chunk_offset_bytes = 8192;
  tail.chunk_of = 1;
  plan.steps = {plan.steps[0], head, plan.steps[1], tail, plan.steps[2]};
  plan.steps[4].waits_for = {0, 3};
  // Renumbered: route 1 -> 2, moe 2 -> 4; fc2 now opened by its first chunk, freed by moe.
  for (ResidentInterval& block : plan.residency) {
    if (block.value == f.router) block.opened_by = 2;
    if (block.value == f.y) block.opened_by = 4;
    if (block.closed_by == 2) block.closed_by = 4;
    if (block.value == f.fc2) block = {f.fc2, kNoNode, 0, 1, 16384, 1, 4};
  }
  plan.tier_copies.push_back({f.fc2, 1, 16384, -1, -1, 16384});  // fc2's home copy on ddr
  return plan;
}

TEST_CASE("a routed fetch moved past a chunked Prefetch leaves its chunks naming each other") {
  const RoutedMoe f;
  const Plan whole = WithChunkedFc2(f);
  const EvaluatedPlan whole_finished = f.Finish(whole);
  const VerifyResult whole_verdict =
      VerifyPlan(f.graph, f.profile, whole_finished.plan, whole_finished.evaluation);
  INFO(whole_verdict.message);
  REQUIRE(whole_verdict.ok);
  const std::vector<planner::StreamedOperand> streamed =
      planner::FindStreamedOperands(f.graph, whole);
  // fc1 is streamed to moe; fc2's first chunk moves 8192 of its 16384 B, so it stays whole.
  REQUIRE(streamed.size() == 1);
  CHECK(streamed[0].operand.value == f.fc1);
  const EvaluatedPlan routed = f.Finish(planner::FetchAfterRoute(whole, streamed, {{}}));
  // fc1's Prefetch moves after the router, before moe: 0 fc2 head, 1 route, 2 fc2 tail,
  // 3 routed fc1, 4 moe; the tail names its head at its new index 0.
  REQUIRE(routed.plan.steps.size() == 5);
  CHECK(routed.plan.steps[3].routed_by == f.moe);
  CHECK(routed.plan.steps[2].value == f.fc2);
  CHECK(routed.plan.steps[2].chunk_of == 0);
  const VerifyResult verdict = VerifyPlan(f.graph, f.profile, routed.plan, routed.evaluation);
  INFO(verdict.message);
  CHECK(verdict.ok);
}

TEST_CASE("without routed fetches allowed the plan keeps its whole Prefetch") {
  const RoutedMoe f;
  PlanOptions options;
  options.single_run = true;
  options.route_fetch = false;
  options.node_time_ns = {RoutedMoe::kRouteNs, RoutedMoe::kMoeNs};
  const Problem problem = BuildProblem(f.graph, f.profile, options);
  PlanResult planned;
  static_cast<EvaluatedPlan&>(planned) = f.Finish(f.HandPlan(false, 16384, 16384));
  const PlanResult kept = planner::PlaceExpertsAfterRoute(problem, options, std::move(planned));
  CHECK(kept.plan.steps[0].routed_by == kNoNode);
  CHECK(kept.evaluation.timeline.makespan_ns == 20384);
}

TEST_CASE("a plan is rewritten after route only where it streams an expert operand whole") {
  const RoutedMoe f;
  PlanOptions options;
  // The hand plan's step 0 Prefetches fc1 whole for moe, its only reader: the route pass
  // would move it after the router.
  const Plan whole = f.HandPlan(false, 16384, 16384);
  CHECK(planner::RewrittenAfterRoute(f.graph, options, whole));
  // Already routed (step 1 routed_by moe): nothing left to rewrite.
  CHECK_FALSE(planner::RewrittenAfterRoute(f.graph, options, f.HandPlan(true, 4096, 4096)));
  SECTION("not without routed fetches allowed") {
    options.route_fetch = false;
    CHECK_FALSE(planner::RewrittenAfterRoute(f.graph, options, whole));
  }
  SECTION("not with offloading off") {
    options.offload = false;
    CHECK_FALSE(planner::RewrittenAfterRoute(f.graph, options, whole));
  }
}

TEST_CASE("the device room holds first the experts whose fetch crosses the most link time") {
  RoutedMoe f;
  // fc1 staged from NVMe (TwoHopPlan: 1 nvme -> ddr, 2 ddr -> hbm, both 1 B/ns); fc2 streamed
  // from DDR alone (the ddr -> hbm hop only). Uniform routing, one token, top 2 of 8: every
  // expert is touched with p = 1 - (1 - 2/8) = 0.25.
  const Plan plan = f.TwoHopPlan(4096);
  planner::StreamedOperand staged;
  staged.operand = *RoutedOperandOf(f.graph, f.moe, f.fc1);
  staged.prefetch = 2;
  staged.staging_prefetch = 1;
  planner::StreamedOperand direct;
  direct.operand = *RoutedOperandOf(f.graph, f.moe, f.fc2);
  direct.prefetch = 2;
  // 1e9 / 1e9 B/s = 1 ns a byte a hop: 2 ns staged, 1 ns direct.
  const double staged_ns = planner::RoutedNsPerByte(f.profile, plan, staged);
  const double direct_ns = planner::RoutedNsPerByte(f.profile, plan, direct);
  CHECK(staged_ns == 2.0);
  CHECK(direct_ns == 1.0);
  // Saved per byte: 0.25 * 2 = 0.5 ns for fc1's experts, 0.25 * 1 for fc2's. Room for three
  // 2048 B slices (6144 B of 7000): fc1's experts 0, 1 and 2, none of fc2's, though fc2 comes
  // first in the operand order.
  const std::vector<planner::StreamedOperand> streamed = {direct, staged};
  const auto resident = planner::ChooseResident(streamed, {direct_ns, staged_ns}, 7000);
  CHECK(resident[0].empty());
  CHECK(resident[1] == std::vector<int32_t>{0, 1, 2});
  // At most E - 1 = 7 of fc1's; room for 9 slices (18432 B of 19000): 7 of fc1, then fc2's
  // experts 0 and 1.
  const auto full = planner::ChooseResident(streamed, {direct_ns, staged_ns}, 19000);
  CHECK(full[1] == std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6});
  CHECK(full[0] == std::vector<int32_t>{0, 1});
  // One route for both: the operand order decides (fc2 first), as before the time weighting.
  const auto same = planner::ChooseResident(streamed, {1.0, 1.0}, 7000);
  CHECK(same[0] == std::vector<int32_t>{0, 1, 2});
  CHECK(same[1].empty());
}

TEST_CASE("an expert Gather's table streamed whole is fetched after its router") {
  const testing::RoutedGather f;
  PlanOptions options;
  options.single_run = true;
  options.node_time_ns = {testing::RoutedGather::kRouteNs, testing::RoutedGather::kGatherNs};
  const Problem problem = BuildProblem(f.graph, f.profile, options);
  Plan whole = f.HandPlan(false, 16384, 16384);
  // Routed, the live peak is 16 + 4096 + 4096 = 8208 B (at gather); 8208 + 2000 leaves no
  // room for a 2048 B expert.
  whole.budget_bytes = 8208 + 2000;
  CHECK(planner::RewrittenAfterRoute(f.graph, options, whole));
  const std::vector<planner::StreamedOperand> streamed =
      planner::FindStreamedOperands(f.graph, whole);
  REQUIRE(streamed.size() == 1);
  CHECK(streamed[0].operand.value == f.table);
  CHECK(streamed[0].boundary == 1);  // right after the router at step 0 of the order
  PlanResult planned;
  static_cast<EvaluatedPlan&>(planned) = f.Finish(std::move(whole));
  const PlanResult placed = planner::PlaceExpertsAfterRoute(problem, options, std::move(planned));
  REQUIRE(placed.evaluation.fits);
  const PlanStep& fetch = placed.plan.steps[1];
  CHECK(fetch.routed_by == f.gather);
  CHECK(fetch.waits_for == std::vector<int32_t>{0});
  // Top 2 of 8, one token: 2 slices of 2048 B expected and reserved.
  CHECK(fetch.bytes == 4096);
  CHECK(fetch.reserved_bytes == 4096);
  // route 5000, fetch 1000 + 4096, gather 3000: 13096 (whole: 1000 + 16384 + 3000 = 20384).
  CHECK(placed.evaluation.timeline.makespan_ns == 13096);
  const VerifyResult verdict = VerifyPlan(f.graph, f.profile, placed.plan, placed.evaluation);
  INFO(verdict.message);
  CHECK(verdict.ok);
}

// The routed gather hand plan placed under `budget_bytes` (room beyond the routed peak of
// 16 + 4096 + 4096 = 8208 B, the case above, for at most one 2048 B expert at + 3000).
PlanResult PlacedGather(const testing::RoutedGather& f, int64_t budget_bytes) {
  return PlacedUnder(f, {testing::RoutedGather::kRouteNs, testing::RoutedGather::kGatherNs},
                     budget_bytes);
}

TEST_CASE("a routing profile keeps an expert Gather's hot expert resident") {
  testing::RoutedGather f;
  SECTION("uniform: every expert alike, the first by index stays") {
    const PlanResult placed = PlacedGather(f, 8208 + 3000);
    REQUIRE(placed.evaluation.fits);
    const ResidentInterval& held = placed.plan.residency.back();
    CHECK(held.value == f.table);
    CHECK(held.experts == std::vector<int32_t>{0});
    // The other 7 at 1 - 0.75 = 0.25 each: 2048 * 1.75 = 3584 B expected; route 5000, fetch
    // 1000 + 3584, gather 3000: 12584.
    CHECK(placed.plan.steps[1].bytes == 3584);
    CHECK(placed.evaluation.timeline.makespan_ns == 12584);
  }
  SECTION("skewed: the profile's hottest (expert 6, p = 0.9) stays") {
    // As --expert-stats fills it for a gather-form layer: under the Gather's node name.
    f.graph.expert_selection["gather"] = {0.05, 0.1, 0.2, 0.1, 0.1, 0.05, 0.9, 0.5};
    const PlanResult placed = PlacedGather(f, 8208 + 3000);
    REQUIRE(placed.evaluation.fits);
    const ResidentInterval& held = placed.plan.residency.back();
    CHECK(held.value == f.table);
    CHECK(held.experts == std::vector<int32_t>{6});
    // The others: 2048 * (2 - 0.9) = 2252.8 -> 2253 B expected, 2 of 7 reserved (4096 B);
    // route 5000, fetch 1000 + 2253, gather 3000: 11253.
    const PlanStep& fetch = placed.plan.steps[1];
    CHECK(fetch.routed_by == f.gather);
    CHECK(fetch.bytes == 2253);
    CHECK(fetch.reserved_bytes == 4096);
    CHECK(placed.evaluation.timeline.makespan_ns == 11253);
    const VerifyResult verdict = VerifyPlan(f.graph, f.profile, placed.plan, placed.evaluation);
    INFO(verdict.message);
    CHECK(verdict.ok);
  }
}

}  // namespace
}  // namespace hyperplan
