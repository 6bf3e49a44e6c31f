// Stall attribution (src/report/stall_attribution.h) and the ranking of decisions by the stall
// they cause (src/report/decision_ranking.h), on the plan written out by hand in hand_plans.h.
#include "report/stall_attribution.h"

#include <catch2/catch.hpp>

#include "report/decision_ranking.h"
#include "report/hand_plans.h"

using namespace hyperplan;
using namespace hyperplan::testing;

TEST_CASE("each stall is charged to the transfer its step waited for last") {
  const HandPlan hand = StreamingPlan();
  const report::StallAttribution stalls =
      report::AttributeStalls(UnitProfile(), hand.plan, hand.evaluation);
  CHECK(stalls.total_ns == 1000 + 900 + 50);
  CHECK(stalls.binding_wait == std::vector<int32_t>{-1, 0, -1, 2, -1});
  CHECK(stalls.stall_ns_per_step == std::vector<int64_t>{1000, 0, 900, 0, 0});
  // Prefetch boundaries 0 and 1 sit in the gaps (-1, 0] and (-1, 1]: decisions 0 and 1.
  CHECK(stalls.decision_of_step == std::vector<int32_t>{0, -1, 1, -1, -1});
  CHECK(stalls.stall_ns_per_decision == std::vector<int64_t>{1000, 900, 0});
  // Both prefetches ran on ddr->hbm (link 1); nothing waited on hbm->ddr.
  CHECK(stalls.stall_ns_per_link == std::vector<int64_t>{0, 1900});
  CHECK(stalls.unattributed_ns == 50);
  // Prefetch w0 waits for nothing and starts at 0: no queue. Prefetch w1 waits for nothing
  // either (ready at 0) but starts at 1000, behind w0 on the one channel: queued 1000 ns.
  CHECK(stalls.queued_ns_per_step == std::vector<int64_t>{0, 0, 1000, 0, 0});
}

TEST_CASE("a step waiting on several transfers is charged to the one that ended last") {
  HandPlan hand = StreamingPlan();
  // l1 also waits for step 0 (ended at 1000); step 2 ended later (2000) and keeps the charge.
  hand.plan.steps[3].waits_for = {0, 2};
  const report::StallAttribution stalls =
      report::AttributeStalls(UnitProfile(), hand.plan, hand.evaluation);
  CHECK(stalls.binding_wait[3] == 2);
  CHECK(stalls.stall_ns_per_step == std::vector<int64_t>{1000, 0, 900, 0, 0});
}

TEST_CASE("stalls add up per layer, the largest first") {
  const HandPlan hand = StreamingPlan();
  const report::StallAttribution stalls =
      report::AttributeStalls(UnitProfile(), hand.plan, hand.evaluation);
  const std::vector<report::LayerStall> layers =
      report::StallsByLayer(hand.graph, hand.plan, hand.evaluation, stalls);
  // l0 reads layer 0's weight (1000 ns), l1 layer 1's (900 ns); head reads no layer and
  // waited for nothing (50 ns, outside the layers).
  REQUIRE(layers.size() == 3);
  CHECK(layers[0].layer == 0);
  CHECK(layers[0].stall_ns == 1000);
  CHECK(layers[1].layer == 1);
  CHECK(layers[1].stall_ns == 900);
  CHECK(layers[2].layer == -1);
  CHECK(layers[2].stall_ns == 50);
  CHECK(layers[2].stalled_steps == 1);
}

TEST_CASE("decisions rank by the stall they cause before the memory they free") {
  const HandPlan hand = StreamingPlan();
  const report::StallAttribution stalls =
      report::AttributeStalls(UnitProfile(), hand.plan, hand.evaluation);
  // By bytes x freed steps alone: a0 100000 x 2 = 200000, w1 1000 x 1 = 1000, w0 0.
  CHECK(report::BiggestOffloads(hand.plan, {}, 10) == std::vector<int32_t>{2, 1, 0});
  // By stall first: w0 1000 ns, w1 900 ns, then the stall-free drop of a0.
  CHECK(report::BiggestOffloads(hand.plan, stalls.stall_ns_per_decision, 10) ==
        std::vector<int32_t>{0, 1, 2});
  CHECK(report::BiggestOffloads(hand.plan, stalls.stall_ns_per_decision, 1) ==
        std::vector<int32_t>{0});
}

TEST_CASE("a transfer in a gap that wraps around the iteration's end finds its decision") {
  HandPlan hand = StreamingPlan();
  // w1 is read at step 1 of each iteration; its gap runs from there round to step 1 of the
  // next: (1, 1] wrapping. w0 gets a second, ordinary decision, so the fallback (a value's
  // only decision) cannot be what matches w1.
  hand.plan.decisions[1] = Offloaded(hand.plan.steps[2].value, 1, 1, 1000, 2, 0);
  hand.plan.decisions.push_back(Offloaded(hand.plan.steps[0].value, 1, 2, 1000, -1, -1));
  hand.plan.decisions.push_back(Offloaded(hand.plan.steps[2].value, 5, 7, 10, -1, -1));
  const report::StallAttribution stalls =
      report::AttributeStalls(UnitProfile(), hand.plan, hand.evaluation);
  // Step 2 (boundary 1) is in the wrapped gap's part up to step 1: decision 1, not 4.
  CHECK(stalls.decision_of_step == std::vector<int32_t>{0, -1, 1, -1, -1});
  CHECK(stalls.stall_ns_per_decision == std::vector<int64_t>{1000, 900, 0, 0, 0});
}
