// Transfers where links bind: a Prefetch that cannot hide still runs its staging hop ahead of
// compute (within the staging tier's room), a Store that cannot finish before the step it
// frees is accepted with its stall (but not on time a stretched axis only owes to the last
// plan's wait), and a hoisted Prefetch goes as early as there is room. Unit rates
// (planner_support.h): every number is worked out beside its assertion.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "hyperplan/plan/verify.h"
#include "hyperplan/planner/planner.h"
#include "planner/assemble.h"
#include "planner/context.h"
#include "planner/modes.h"
#include "planner/refine.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

TEST_CASE("transfers: a staging hop runs ahead of compute within the room of ddr") {
  // w (100 B weight, home nvme, reaching hbm only through ddr) is read once per iteration,
  // at step 2; step 1 needs 200 B of scratch.
  //   n0 -> a        10 ns           T = [0, 10, 160, 170]
  //   n1 a -> b     150 ns, 200 B scratch
  //   n2 b, w -> y   10 ns
  // Peak at step 1: 100 + 1 + 1 + 200 = 302. Budget 250: w is off the device through step 1,
  // so (the iteration ending as it began) it is off at the start, fetched for step 2 and
  // dropped after it. The device hop cannot start before step 1 ends (T = 160), so it stalls
  // step 2 by its 100 ns whatever happens. The nvme->ddr hop needs no device room: planned
  // to end as the device hop starts, [60, 160), it is issued before step 1 and so runs as
  // step 1 starts, [10, 110); the ddr->hbm hop runs [160, 260). Waiting for the device with
  // both hops would take [160, 360).
  Graph graph;
  const ValueId w = Weight(graph, "w", 100);
  const ValueId a = Work(graph, "n0", {}, "a", 1, 10);
  const ValueId b = Work(graph, "n1", {a}, "b", 1, 150, 200);
  MarkOutput(graph, Work(graph, "n2", {b, w}, "y", 1, 10));
  HardwareProfile profile = NvmeProfile();
  profile.tiers[1].capacity_bytes = 100;  // ddr: room for exactly the one staged copy

  const PlanResult result = PlanAndVerify(graph, profile, Budget(250));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  const auto fetches = StepsOf(plan, StepKind::kPrefetch, w);
  REQUIRE(fetches.size() == 2);  // nvme->ddr, then ddr->hbm
  CHECK(plan.steps[fetches[0]].boundary == 1);
  CHECK(evaluation.timeline.steps[fetches[0]].start_ns == 10);
  CHECK(evaluation.timeline.steps[fetches[0]].end_ns == 110);
  CHECK(evaluation.timeline.steps[fetches[1]].start_ns == 160);
  CHECK(evaluation.timeline.steps[fetches[1]].end_ns == 260);
  // n0 [0, 10), n1 [10, 160), stall 100, n2 [260, 270).
  CHECK(evaluation.summary.stall_ns == 100);
  CHECK(evaluation.summary.makespan_ns == 270);
  CHECK(evaluation.timeline.peak_bytes_per_tier[1] <= 100);  // the staged copy fits ddr
}

TEST_CASE("transfers: staging hops that cannot hide are issued ahead, in read order") {
  // w1, w2, w3 (100 B weights, home nvme) are read at steps 1, 2 and 3. nvme->ddr moves
  // 1 byte/ns (100 B: 100 ns), ddr->hbm 10 bytes/ns (100 B: 10 ns).
  //   n0 -> a          10 ns           T = [0, 10, 20, 30, 40]
  //   n1 a, w1 -> b    10 ns
  //   n2 b, w2 -> c    10 ns
  //   n3 c, w3 -> y    10 ns
  // Budget 150: no two weights share the device, so each is fetched every iteration (off at
  // the start, as it ends) and a device hop waits for the step before it to drop the previous
  // weight. No staging hop hides behind 40 ns of compute: the NVMe link is the bound, 300 ns.
  // Issued ahead (ddr has room for all three, so the earliest boundary is the first), every
  // staging hop goes at boundary 0 and NVMe runs back to back, [0, 100), [100, 200),
  // [200, 300). Within one boundary the link's FIFO follows the planned slots, not the read
  // order (w2 may go before w1). Either way w1 and w2 are staged by 200, so n1 and n2 end by
  // 240 (each device hop 10 ns, each step 10 ns); w3 is staged at 300, its device hop runs
  // [300, 310) and n3 [310, 320): the NVMe bound (300 ns) plus the last device hop and step.
  Graph graph;
  const ValueId w1 = Weight(graph, "w1", 100);
  const ValueId w2 = Weight(graph, "w2", 100);
  const ValueId w3 = Weight(graph, "w3", 100);
  const ValueId a = Work(graph, "n0", {}, "a", 1, 10);
  const ValueId b = Work(graph, "n1", {a, w1}, "b", 1, 10);
  const ValueId c = Work(graph, "n2", {b, w2}, "c", 1, 10);
  MarkOutput(graph, Work(graph, "n3", {c, w3}, "y", 1, 10));
  HardwareProfile profile = NvmeProfile();
  profile.links[1].bandwidth_bytes_per_s = 10'000'000'000;  // ddr -> hbm

  const PlanResult result = PlanAndVerify(graph, profile, Budget(150));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  std::vector<int64_t> staged_ns;
  for (const ValueId weight : {w1, w2, w3}) {
    const auto hops = StepsOf(plan, StepKind::kPrefetch, weight);
    REQUIRE(hops.size() == 2);  // nvme->ddr, then ddr->hbm
    CHECK(plan.steps[hops[0]].link == 3);
    CHECK(plan.steps[hops[0]].boundary == 0);
    staged_ns.push_back(evaluation.timeline.steps[hops[0]].start_ns);
  }
  std::sort(staged_ns.begin(), staged_ns.end());
  CHECK(staged_ns == std::vector<int64_t>{0, 100, 200});
  CHECK(evaluation.summary.makespan_ns == 320);
}

TEST_CASE("transfers: a Store that cannot finish before the step it frees stalls that step") {
  // a and b (100 B each) must both leave the device for step 2's 300 B of scratch; one
  // hbm->ddr channel at 1 B/ns.
  //   n0 -> a        10 ns           T = [0, 10, 20, 30, 40]
  //   n1 -> b        10 ns
  //   n2 -> c        10 ns, 300 B scratch
  //   n3 a, b, c -> y 10 ns
  // Resident without offloading: 100, 200, 100 + 100 + 300 + 1 = 501, 202. Budget 301 needs
  // a and b both gone at step 2. a's Store runs [10, 110); b's cannot start before the link
  // frees at 110, long after step 2 was to begin (T = 20), so it is issued before step 2 and
  // step 2 waits for it: [110, 210). Both come back after step 2 ends at 220, one after the
  // other on the one ddr->hbm channel: a [220, 320), b [320, 420); n3 runs [420, 430).
  Graph graph;
  const ValueId a = Work(graph, "n0", {}, "a", 100, 10);
  const ValueId b = Work(graph, "n1", {}, "b", 100, 10);
  const ValueId c = Work(graph, "n2", {}, "c", 1, 10, 300);
  MarkOutput(graph, Work(graph, "n3", {a, b, c}, "y", 1, 10));

  const PlanResult result = PlanAndVerify(graph, UnitProfile(), Budget(301));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  CHECK(evaluation.fits);
  const auto stores = StepsOf(plan, StepKind::kStore, b);
  REQUIRE(stores.size() == 1);
  CHECK(evaluation.timeline.steps[stores[0]].start_ns == 110);
  CHECK(evaluation.timeline.steps[stores[0]].end_ns == 210);
  // n2 was ready at T = 20 and ran at 210: the 190 ns of the late Store.
  CHECK(evaluation.timeline.stall_ns_per_node[2] == 190);
  CHECK(evaluation.summary.makespan_ns == 430);
}

TEST_CASE("transfers: a Store queued behind another waits for its writer, not its boundary") {
  // As above, with eleven 10 ns steps between b's writer and the step that must free a and b:
  //   n0 -> a (100 B)   n1 -> b (100 B)   n2 .. n12 (1 B each, a chain)   each 10 ns
  //   n13 -> z (300 B scratch)   n14 a, b, z -> y              T(step k) = 10 k
  // Budget 302 needs a and b both gone at step 13 (a + b + c12 + z + scratch = 100 + 100 + 1 +
  // 1 + 300 = 502; without a or b, 402 > 302; without both, 302). One hbm->ddr
  // channel at 1 B/ns: a's Store [10, 110), b's queued behind it [110, 210), so refine issues
  // b's Store at the boundary whose step starts at 110, long after its writer (step 1). The
  // Store needs only its writer and its channel: it waits for n1 and nothing else (issued at
  // its boundary, it also waited for the compute step before it, and the link idled whenever
  // that step ran late). Step 13 waits for b's Store: [210, 220); a and b come back one after
  // the other on the one ddr->hbm channel, [220, 320) and [320, 420); n14 runs [420, 430).
  Graph graph;
  const ValueId a = Work(graph, "n0", {}, "a", 100, 10);
  const ValueId b = Work(graph, "n1", {}, "b", 100, 10);
  ValueId chain = Work(graph, "n2", {}, "c2", 1, 10);
  for (int k = 3; k <= 12; ++k) {
    chain = Work(graph, "n" + std::to_string(k), {chain}, "c" + std::to_string(k), 1, 10);
  }
  const ValueId z = Work(graph, "n13", {chain}, "z", 1, 10, 300);
  MarkOutput(graph, Work(graph, "n14", {a, b, z}, "y", 1, 10));

  const PlanResult result = PlanAndVerify(graph, UnitProfile(), Budget(302));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const auto stores = StepsOf(plan, StepKind::kStore, b);
  REQUIRE(stores.size() == 1);
  const PlanStep& store = plan.steps[stores[0]];
  REQUIRE(store.boundary > 2);  // issued past the step after its writer: the case at hand
  const auto computes = StepsOf(plan, StepKind::kCompute);
  const auto writer = std::find_if(computes.begin(), computes.end(),
                                   [&](int32_t i) { return plan.steps[i].node == 1; });
  REQUIRE(writer != computes.end());
  CHECK(store.waits_for == std::vector<int32_t>{*writer});
  const SimulationResult& timeline = result.evaluation.timeline;
  CHECK(timeline.steps[stores[0]].start_ns == 110);
  CHECK(timeline.steps[stores[0]].end_ns == 210);
  CHECK(timeline.stall_ns_per_node[13] == 210 - 130);
  CHECK(result.evaluation.summary.makespan_ns == 430);
}

namespace {

// The candidate of `value`'s gap after step `after`.
int32_t CandidateOf(const planner::PlanContext& context, ValueId value, Step after) {
  const auto& candidates = context.candidates.candidates;
  for (size_t c = 0; c < candidates.size(); ++c) {
    if (candidates[c].value == value && candidates[c].after_step == after) {
      return static_cast<int32_t>(c);
    }
  }
  return -1;
}

}  // namespace

TEST_CASE("transfers: a Store before the peak is judged on compute time, not on the last wait") {
  // a (100 B activation) is read last at step 4; w (100 B weight, home ddr) at steps 2 and 4;
  // step 3 needs 300 B of scratch. One channel each way, 1 B/ns.
  //   n0 -> a              10 ns     compute-only T = [0, 10, 20, 30, 40, 50]
  //   n1 -> b              10 ns
  //   n2 b, w -> c         10 ns
  //   n3 c -> d            10 ns, 300 B scratch
  //   n4 a, d, w -> y      10 ns
  // Resident without offloading: 200, 201, 202, 100 + 100 + 1 + 1 + 300 = 502 (the peak, step
  // 3), 202. Target 402: 100 B off at step 3, a's gap (steps 1..3) or w's (step 3 alone).
  // The axis refine runs on is the last plan's, which waited 100 ns before step 3:
  // T = [0, 10, 20, 130, 140, 150]. There a's Store, [10, 110), ends before step 3 begins
  // (130): no wait, and a ranks first (100 B x 130 ns over 200 ns of transfers = 65; w: 100 B x
  // 10 ns over 100 ns = 10). Both Prefetches stall alike (issued at T = 140, 100 ns: 100 ns
  // late). On the compute-only axis a's Store still ends at 110, 80 ns after step 3 would begin
  // (30): the time it fits in is the wait, so a is turned down and w goes.
  Graph graph;
  const ValueId w = Weight(graph, "w", 100);
  const ValueId a = Work(graph, "n0", {}, "a", 100, 10);
  const ValueId b = Work(graph, "n1", {}, "b", 1, 10);
  const ValueId c = Work(graph, "n2", {b, w}, "c", 1, 10);
  const ValueId d = Work(graph, "n3", {c}, "d", 1, 10, 300);
  MarkOutput(graph, Work(graph, "n4", {a, d, w}, "y", 1, 10));
  planner::RefineRequest request;
  request.target_live_bytes = 402;

  // The context points at `profile`, which must outlive it.
  auto plan_on_stretched_axis = [&](const HardwareProfile& profile) {
    const planner::PlanContext base =
        planner::BuildContext(graph, profile, ModelOrder(graph), {}, {});
    REQUIRE(base.lifetimes.timeline.peak_step == 3);
    REQUIRE(base.cost.step_start_ns == std::vector<int64_t>{0, 10, 20, 30, 40, 50});
    return planner::RetimedContext(base, {0, 10, 20, 130, 140, 150});
  };

  SECTION("a Store that ends in the last plan's wait is turned down") {
    const HardwareProfile profile = UnitProfile();
    const planner::PlanContext context = plan_on_stretched_axis(profile);
    const int32_t gap_of_a = CandidateOf(context, a, 0);
    const int32_t gap_of_w = CandidateOf(context, w, 2);
    REQUIRE(gap_of_a >= 0);
    REQUIRE(gap_of_w >= 0);
    CHECK(context.candidates.candidates[gap_of_a].rank <
          context.candidates.candidates[gap_of_w].rank);
    const planner::Selection selection = planner::Refine(context, request);
    CHECK(selection.reached_target);
    REQUIRE(selection.placements.size() == 1);
    CHECK(selection.placements[0].candidate == gap_of_w);
    CHECK(selection.reason[gap_of_a] == DecisionReason::kStoreTooLate);
    // 110 ns against step 3's compute-only start, 30 ns.
    CHECK_THAT(selection.detail[gap_of_a],
               Catch::Contains("cannot end before step 3 begins on the compute-only axis "
                               "(110 ns against 30 ns)"));
  }

  SECTION("without the rule (the planner's last round), that Store is taken, as ranked") {
    // PlanContext::reject_stores_late_on_compute_axis off: a's gap ranks first and its Store,
    // [10, 110), ends before step 3 begins on this axis (130), so its Detach goes at step 3
    // with no wait there: a leaves, w stays.
    const HardwareProfile profile = UnitProfile();
    planner::PlanContext context = plan_on_stretched_axis(profile);
    context.reject_stores_late_on_compute_axis = false;
    const planner::Selection selection = planner::Refine(context, request);
    CHECK(selection.reached_target);
    REQUIRE(selection.placements.size() == 1);
    CHECK(selection.placements[0].candidate == CandidateOf(context, a, 0));
    CHECK(selection.placements[0].detach_boundary == 3);
  }

  SECTION("a Store that ends in time on compute alone goes first, as ranked") {
    // 10 B/ns out: a's Store runs [10, 20) on either axis, so its Detach goes at step 2 on
    // both (each starts step 2 at 20, as the Store ends). Both gaps stall their Prefetch by
    // 100 ns, so the rank decides: a.
    HardwareProfile profile = UnitProfile();
    profile.links[0].bandwidth_bytes_per_s = 10 * kOneBytePerNs;  // hbm -> ddr
    const planner::PlanContext context = plan_on_stretched_axis(profile);
    const planner::Selection selection = planner::Refine(context, request);
    CHECK(selection.reached_target);
    REQUIRE(selection.placements.size() == 1);
    CHECK(selection.placements[0].candidate == CandidateOf(context, a, 0));
    CHECK(selection.placements[0].detach_boundary == 2);
  }

  SECTION("its Detach goes where compute time alone lets it, if that still frees the peak") {
    // 5 B/ns out: a's Store runs [10, 30). On this axis, T = [0, 10, 40, 130, 140, 150], the
    // first boundary at or after 30 is step 2 (40); on compute alone step 2 starts at 20, so
    // it is step 3 (30): still the peak step. a is taken (ranked first: 100 B x 130 ns over
    // 20 + 100 ns of transfers; both Prefetches stall 100 ns) and leaves at step 3, not 2.
    HardwareProfile profile = UnitProfile();
    profile.links[0].bandwidth_bytes_per_s = 5 * kOneBytePerNs;  // hbm -> ddr
    const planner::PlanContext base =
        planner::BuildContext(graph, profile, ModelOrder(graph), {}, {});
    // The last plan waited 20 ns before step 2 and 80 more before step 3.
    const planner::PlanContext context = planner::RetimedContext(base, {0, 10, 40, 130, 140, 150});
    const planner::Selection selection = planner::Refine(context, request);
    CHECK(selection.reached_target);
    REQUIRE(selection.placements.size() == 1);
    CHECK(selection.placements[0].candidate == CandidateOf(context, a, 0));
    CHECK(selection.placements[0].detach_boundary == 3);
    CHECK(selection.placements[0].freed_first == 3);
  }
}

TEST_CASE("transfers: hoisted, a homed value's Prefetch goes as early as the device has room") {
  // w (100 B weight, homed in ddr) is read at step 3 only; step 0 needs 200 B of scratch.
  //   n0 -> a        10 ns, 200 B scratch   T = [0, 10, 20, 220, 230]
  //   n1 a -> b      10 ns
  //   n2 b -> c     200 ns
  //   n3 c, w -> y   10 ns
  // Peak at step 0: 100 + 1 + 200 = 301 > 250, so w is off the device there (one run: it
  // starts off) and comes back for step 3. Placed latest-first, its 100 ns Prefetch ends as
  // step 3 starts: [120, 220), issued before step 2. Hoisted (PlanContext::hoist_prefetches,
  // which the planner asks for in its replanning rounds), steps 1 and 2 hold 1 + 1 + 100 = 102
  // with w, under 250 - 250 / 64 = 247, so it takes the earliest free slot from step 1:
  // [10, 110), issued before step 1. Either way it frees step 0 and nothing waits.
  Graph graph;
  const ValueId w = Weight(graph, "w", 100);
  const ValueId a = Work(graph, "n0", {}, "a", 1, 10, 200);
  const ValueId b = Work(graph, "n1", {a}, "b", 1, 10);
  const ValueId c = Work(graph, "n2", {b}, "c", 1, 200);
  MarkOutput(graph, Work(graph, "n3", {c, w}, "y", 1, 10));
  const HardwareProfile profile = UnitProfile();
  planner::PlanContext context = planner::BuildContext(graph, profile, ModelOrder(graph), {}, {});
  planner::Baseline baseline;
  baseline.peak_bytes = context.lifetimes.timeline.peak_bytes;
  for (const bool hoist : {false, true}) {
    INFO("hoisted: " << hoist);
    context.hoist_prefetches = hoist;
    const planner::Outcome outcome = planner::PlanToBudget(context, 250, baseline);
    REQUIRE(outcome.feasible);
    const Plan& plan = outcome.plan;
    const PlanEvaluation& evaluation = outcome.evaluation;
    const VerifyResult verdict = VerifyPlan(graph, profile, plan, evaluation);
    INFO(verdict.message);
    REQUIRE(verdict.ok);
    const auto fetches = StepsOf(plan, StepKind::kPrefetch, w);
    REQUIRE(fetches.size() == 1);
    CHECK(plan.steps[fetches[0]].boundary == (hoist ? 1 : 2));
    CHECK(plan.steps[fetches[0]].planned_start_ns == (hoist ? 10 : 120));
    // Issued at its boundary, the transfer runs as soon as compute reaches it: hoisted at
    // T = 10, [10, 110); else at T = 20, [20, 120).
    CHECK(evaluation.timeline.steps[fetches[0]].start_ns == (hoist ? 10 : 20));
    CHECK(evaluation.timeline.stall_ns == 0);
    CHECK(evaluation.timeline.makespan_ns == 230);
  }
}

TEST_CASE("transfers: hoisted, a stored value's Prefetch goes early too, after its Store") {
  // s (100 B activation) is made at step 0 and read at step 5; step 2 needs 200 B of scratch.
  //   n0 -> s          10 ns           T = [0, 10, 110, 120, 130, 330, 340]
  //   n1 -> a         100 ns
  //   n2 a -> b        10 ns, 200 B scratch
  //   n3 b -> c        10 ns
  //   n4 c -> d       200 ns
  //   n5 d, s -> y     10 ns
  // Peak at step 2: 100 + 1 + 1 + 200 = 302 > 250, so s leaves: its Store [10, 110) (1 B/ns),
  // its Detach at step 2 (T = 110, as the Store ends). Placed latest-first, its 100 ns
  // Prefetch ends as step 5 starts: [230, 330), issued before step 4. Hoisted, step 3 holds
  // 1 + 1 + 100 = 102 with s, under 250 - 250 / 64 = 247 (step 2 is the gap's first, which it
  // must still free), so it takes the in-link's earliest free slot from step 3's start (120,
  // after the Store's end, 110): [120, 220), issued before step 3. Either way nothing waits.
  Graph graph;
  const ValueId s = Work(graph, "n0", {}, "s", 100, 10);
  const ValueId a = Work(graph, "n1", {}, "a", 1, 100);
  const ValueId b = Work(graph, "n2", {a}, "b", 1, 10, 200);
  const ValueId c = Work(graph, "n3", {b}, "c", 1, 10);
  const ValueId d = Work(graph, "n4", {c}, "d", 1, 200);
  MarkOutput(graph, Work(graph, "n5", {d, s}, "y", 1, 10));
  const HardwareProfile profile = UnitProfile();
  planner::PlanContext context = planner::BuildContext(graph, profile, ModelOrder(graph), {}, {});
  REQUIRE(context.cost.step_start_ns == std::vector<int64_t>{0, 10, 110, 120, 130, 330, 340});
  planner::Baseline baseline;
  baseline.peak_bytes = context.lifetimes.timeline.peak_bytes;
  for (const bool hoist : {false, true}) {
    INFO("hoisted: " << hoist);
    context.hoist_prefetches = hoist;
    const planner::Outcome outcome = planner::PlanToBudget(context, 250, baseline);
    REQUIRE(outcome.feasible);
    const Plan& plan = outcome.plan;
    const PlanEvaluation& evaluation = outcome.evaluation;
    const VerifyResult verdict = VerifyPlan(graph, profile, plan, evaluation);
    INFO(verdict.message);
    REQUIRE(verdict.ok);
    const auto fetches = StepsOf(plan, StepKind::kPrefetch, s);
    REQUIRE(fetches.size() == 1);
    CHECK(plan.steps[fetches[0]].boundary == (hoist ? 3 : 4));
    CHECK(plan.steps[fetches[0]].planned_start_ns == (hoist ? 120 : 230));
    // Issued at its boundary, the transfer runs as soon as compute reaches it: hoisted at
    // T = 120, [120, 220); else at T = 130, [130, 230).
    CHECK(evaluation.timeline.steps[fetches[0]].start_ns == (hoist ? 120 : 130));
    CHECK(evaluation.timeline.stall_ns == 0);
    CHECK(evaluation.timeline.makespan_ns == 340);
  }
}

TEST_CASE("transfers: re-placed to free an earlier step, a taken gap issues its own Store there") {
  // x and a (100 B each) must both be off the device at step 4 (300 B of scratch), and a alone
  // at step 2 (200 B of scratch; n2 reads x). One channel each way, 1 B/ns.
  //   n0 -> x              10 ns     T = [0, 10, 20, 30, 230, 240, 540, 640, 650]
  //   n1 -> a              10 ns
  //   n2 x -> c            10 ns, 200 B scratch
  //   n3 c -> d           200 ns
  //   n4 d -> e            10 ns, 300 B scratch
  //   n5 e -> f           300 ns
  //   n6 a, f -> g        100 ns
  //   n7 x, g -> y         10 ns
  // Resident without offloading: 100, 200, 100 + 100 + 1 + 200 = 401, 202, 100 + 100 + 1 + 1
  // + 300 = 502 (the peak), 202, 202, 102. Target 302: step 4 sheds 200 (x and a), step 2 99
  // (a). Step 4 goes first (excess 200). x's gap (30 -> 640 ns) outranks a's (20 -> 540 ns):
  // x's Store runs [10, 110), its Detach at step 4 (230), its Prefetch as late as hides,
  // [540, 640), issued before step 6. Then a: its Store queues behind x's, [110, 210), issued
  // before step 3 (the boundary its slot starts in); Detach at step 4; Prefetch [440, 540),
  // issued before step 5. Step 2 is then over by 99 and only a's gap covers it: a's Store
  // starts after step 2 begins (20), so before, the re-placement was refused ("cannot move")
  // and the refine stuck at step 2. Now the gap issues its own Store before step 2, and the
  // Detach there waits for it: a stall of 210 - 20 = 190 ns, freeing steps 2..4.
  Graph graph;
  const ValueId x = Work(graph, "n0", {}, "x", 100, 10);
  const ValueId a = Work(graph, "n1", {}, "a", 100, 10);
  const ValueId c = Work(graph, "n2", {x}, "c", 1, 10, 200);
  const ValueId d = Work(graph, "n3", {c}, "d", 1, 200);
  const ValueId e = Work(graph, "n4", {d}, "e", 1, 10, 300);
  const ValueId f = Work(graph, "n5", {e}, "f", 1, 300);
  const ValueId g = Work(graph, "n6", {a, f}, "g", 1, 100);
  MarkOutput(graph, Work(graph, "n7", {x, g}, "y", 1, 10));
  const HardwareProfile profile = UnitProfile();
  const planner::PlanContext context =
      planner::BuildContext(graph, profile, ModelOrder(graph), {}, {});
  REQUIRE(context.cost.step_start_ns ==
          std::vector<int64_t>{0, 10, 20, 30, 230, 240, 540, 640, 650});
  REQUIRE(context.lifetimes.timeline.peak_step == 4);
  planner::RefineRequest request;
  request.target_live_bytes = 302;

  const planner::Selection selection = planner::Refine(context, request);
  CHECK(selection.reached_target);
  CHECK(selection.live_peak_bytes == 302);  // step 4: 502 - 200 (step 2: 401 - 100 = 301)
  REQUIRE(selection.placements.size() == 2);
  const planner::Placement& first = selection.placements[0];
  CHECK(first.candidate == CandidateOf(context, x, 2));
  CHECK(first.detach_boundary == 4);
  const planner::Placement& repaired = selection.placements[1];
  CHECK(repaired.candidate == CandidateOf(context, a, 1));
  REQUIRE(repaired.store_hops.size() == 1);
  CHECK(repaired.store_hops[0].slot.start_ns == 110);
  CHECK(repaired.store_hops[0].slot.end_ns == 210);
  CHECK(repaired.store_hops[0].boundary == 2);  // issued before step 2, not 3
  CHECK(repaired.detach_boundary == 2);
  CHECK(repaired.freed_first == 2);
  CHECK(repaired.freed_last == 4);
  CHECK(repaired.stall_ns == 190);

  // The replay: x's Store [10, 110); a's [110, 210); n2 waits for a's Detach until 210 (190
  // ns). n2 [210, 220), n3 [220, 420), n4 [420, 430), n5 [430, 730); a's Prefetch, issued at
  // 430, [430, 530); x's, issued at 730, [730, 830), as n6 runs [730, 830); n7 [830, 840).
  planner::AssembleOptions options;
  options.placement_count = selection.placements.size();
  const EvaluatedPlan planned = planner::AssemblePlan(context, selection, options);
  const VerifyResult verdict = VerifyPlan(graph, profile, planned.plan, planned.evaluation);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  const SimulationResult& timeline = planned.evaluation.timeline;
  CHECK(timeline.stall_ns_per_node[2] == 190);
  CHECK(timeline.stall_ns == 190);
  CHECK(timeline.makespan_ns == 840);
  const auto stores = StepsOf(planned.plan, StepKind::kStore, a);
  REQUIRE(stores.size() == 1);
  CHECK(timeline.steps[stores[0]].start_ns == 110);
  CHECK(timeline.steps[stores[0]].end_ns == 210);
}
