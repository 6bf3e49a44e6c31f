// The catalogue: tiny graphs at unit rates (1 byte/ns links, 1 FLOP/ns, no latency or launch
// overhead) whose every planned number is worked out in the comment beside its assertion.
#include <catch2/catch.hpp>

#include "hyperplan/plan/verify.h"
#include "hyperplan/planner/planner.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// s (100 B) is produced at step 0, read at step 1 and again at step 4; step 2 needs 200 B of
// scratch, which makes it the peak.
//   n0 () -> s          10 ns      T = [0, 10, 110, 160, 160 + t3, 170 + t3]
//   n1 s -> a (1 B)    100 ns
//   n2 a -> b (1 B)     50 ns, 200 B scratch
//   n3 b -> c (1 B)     t3 ns
//   n4 c, s -> y (1 B, output) 10 ns
// Baseline bytes per step: 100, 101, 100+1+1+200 = 302, 100+1+1 = 102, 100+1+1 = 102.
struct SkipGraph {
  Graph graph;
  ValueId s, a, b, c, y;
  explicit SkipGraph(int64_t t3 = 100) {
    graph.name = "skip";
    s = Work(graph, "n0", {}, "s", 100, 10);
    a = Work(graph, "n1", {s}, "a", 1, 100);
    b = Work(graph, "n2", {a}, "b", 1, 50, 200);
    c = Work(graph, "n3", {b}, "c", 1, t3);
    y = Work(graph, "n4", {c, s}, "y", 1, 10);
    MarkOutput(graph, y);
  }
};

}  // namespace

TEST_CASE("catalogue: everything fits, so the plan has no cache ops") {
  SkipGraph g;
  const PlanResult result = PlanAndVerify(g.graph, UnitProfile(), Budget(302));
  CHECK(result.status == PlanStatus::kPlanned);
  CHECK(CacheOpCount(result.plan) == 0);
  CHECK(result.evaluation.summary.peak_bytes == 302);   // the baseline peak at step 2
  CHECK(result.evaluation.summary.makespan_ns == 270);  // 10 + 100 + 50 + 100 + 10
  CHECK(result.evaluation.summary.baseline_makespan_ns == 270);
  CHECK(result.evaluation.summary.stall_ns == 0);
  CHECK(result.plan.layout.arena_bytes <= 302);
}

TEST_CASE("catalogue: one skip value hidden exactly") {
  SkipGraph g;
  const PlanResult result = PlanAndVerify(g.graph, UnitProfile(), Budget(250));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  const auto stores = StepsOf(plan, StepKind::kStore, g.s);
  const auto detaches = StepsOf(plan, StepKind::kDetach, g.s);
  const auto prefetches = StepsOf(plan, StepKind::kPrefetch, g.s);
  REQUIRE(stores.size() == 1);
  REQUIRE(detaches.size() == 1);
  REQUIRE(prefetches.size() == 1);
  CHECK(CacheOpCount(plan) == 3);
  // Store right after n0 ends: [10, 110), 100 B at 1 B/ns.
  CHECK(evaluation.timeline.steps[stores[0]].start_ns == 10);
  CHECK(evaluation.timeline.steps[stores[0]].end_ns == 110);
  // The Store ends exactly when step 2 starts (T2 = 110): Detach before step 2.
  CHECK(plan.steps[detaches[0]].boundary == 2);
  // Latest start that still hides: T4 - 100 = 260 - 100 = 160 = T3, issued before step 3.
  CHECK(plan.steps[prefetches[0]].boundary == 3);
  CHECK(evaluation.timeline.steps[prefetches[0]].start_ns == 160);
  CHECK(evaluation.timeline.steps[prefetches[0]].end_ns == 260);
  CHECK(evaluation.summary.stall_ns == 0);
  CHECK(evaluation.summary.makespan_ns == 270);  // no slowdown
  // Step 2 without s: a 1 + b 1 + scratch 200 = 202; s is back at steps 3-4 (102).
  CHECK(plan.layout.live_peak_bytes == 202);
  CHECK(plan.layout.arena_bytes == 202);
  CHECK(evaluation.summary.bytes_moved_per_link == std::vector<int64_t>{100, 100});
  const Decision* decision = FindDecision(plan, g.s, 1);
  REQUIRE(decision != nullptr);
  CHECK(decision->reason == DecisionReason::kOffloaded);
  CHECK(decision->freed_first_step == 2);
  CHECK(decision->freed_last_step == 2);
}

TEST_CASE("catalogue: a slack short by k ns stalls exactly k ns") {
  const int64_t k = 7;
  SkipGraph g(100 - k);  // T = [0, 10, 110, 160, 253, 263]
  const PlanResult result = PlanAndVerify(g.graph, UnitProfile(), Budget(250));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  const auto prefetches = StepsOf(plan, StepKind::kPrefetch, g.s);
  REQUIRE(prefetches.size() == 1);
  // To free step 2 the Prefetch starts no earlier than T3 = 160 and needs 100 ns, but n4
  // starts at T4 = 253: it ends at 260, 7 ns late.
  CHECK(evaluation.timeline.steps[prefetches[0]].start_ns == 160);
  CHECK(evaluation.timeline.steps[prefetches[0]].end_ns == 260);
  CHECK(evaluation.timeline.stall_ns_per_node[4] == k);
  CHECK(evaluation.summary.stall_ns == k);
  CHECK(evaluation.summary.makespan_ns == 263 + k);
  const Decision* decision = FindDecision(plan, g.s, 1);
  REQUIRE(decision != nullptr);
  CHECK(decision->predicted_stall_ns == k);
}

TEST_CASE("catalogue: two transfers share one link") {
  //   n0 () -> s1 (100 B)   10 ns     T = [0, 10, 20, 220, 270, 470, 480]
  //   n1 s1 -> s2 (100 B)   10 ns
  //   n2 s2 -> a            200 ns
  //   n3 a -> b             50 ns, 300 B scratch  (peak: 100 + 100 + 1 + 1 + 300 = 502)
  //   n4 b -> c             200 ns
  //   n5 c, s1, s2 -> y     10 ns
  Graph graph;
  const ValueId s1 = Work(graph, "n0", {}, "s1", 100, 10);
  const ValueId s2 = Work(graph, "n1", {s1}, "s2", 100, 10);
  const ValueId a = Work(graph, "n2", {s2}, "a", 1, 200);
  const ValueId b = Work(graph, "n3", {a}, "b", 1, 50, 300);
  const ValueId c = Work(graph, "n4", {b}, "c", 1, 200);
  MarkOutput(graph, Work(graph, "n5", {c, s1, s2}, "y", 1, 10));
  // 310 B needs both out at step 3: 502 - 200 = 302.
  const PlanResult result = PlanAndVerify(graph, UnitProfile(), Budget(310));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  const auto store1 = StepsOf(plan, StepKind::kStore, s1);
  const auto store2 = StepsOf(plan, StepKind::kStore, s2);
  const auto fetch1 = StepsOf(plan, StepKind::kPrefetch, s1);
  const auto fetch2 = StepsOf(plan, StepKind::kPrefetch, s2);
  REQUIRE(store1.size() == 1);
  REQUIRE(store2.size() == 1);
  REQUIRE(fetch1.size() == 1);
  REQUIRE(fetch2.size() == 1);
  // Stores queue on hbm->ddr: s1 [10, 110), then s2 (ready at 20) waits: [110, 210).
  CHECK(evaluation.timeline.steps[store1[0]].start_ns == 10);
  CHECK(evaluation.timeline.steps[store2[0]].start_ns == 110);
  CHECK(evaluation.timeline.steps[store2[0]].end_ns == 210);
  // s1 ranks first (100 B x 450 ns gap vs 100 B x 250 ns), so it takes the latest slot on
  // ddr->hbm, [370, 470); s2 goes right before it, [270, 370), starting exactly at T4.
  CHECK(evaluation.timeline.steps[fetch1[0]].start_ns == 370);
  CHECK(evaluation.timeline.steps[fetch2[0]].start_ns == 270);
  CHECK(evaluation.timeline.steps[fetch2[0]].end_ns == 370);
  CHECK(evaluation.summary.stall_ns == 0);
  CHECK(evaluation.summary.makespan_ns == 480);
  CHECK(plan.layout.live_peak_bytes == 302);
}

TEST_CASE("catalogue: two channels halve each transfer's bandwidth") {
  // The same two values on a 2-channel link: each channel moves 0.5 byte/ns, so each 100 B
  // transfer takes 200 ns, and the link never exceeds 1 byte/ns in total.
  Graph graph;
  const ValueId s1 = Work(graph, "n0", {}, "s1", 100, 10);
  const ValueId s2 = Work(graph, "n1", {s1}, "s2", 100, 10);
  const ValueId a = Work(graph, "n2", {s2}, "a", 1, 300);
  const ValueId b = Work(graph, "n3", {a}, "b", 1, 50, 300);
  const ValueId c = Work(graph, "n4", {b}, "c", 1, 200);
  MarkOutput(graph, Work(graph, "n5", {c, s1, s2}, "y", 1, 10));
  // T = [0, 10, 20, 320, 370, 570, 580].
  const PlanResult result = PlanAndVerify(graph, UnitProfile(int64_t{1} << 40, 2), Budget(310));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  const auto store1 = StepsOf(plan, StepKind::kStore, s1);
  const auto store2 = StepsOf(plan, StepKind::kStore, s2);
  const auto fetch1 = StepsOf(plan, StepKind::kPrefetch, s1);
  const auto fetch2 = StepsOf(plan, StepKind::kPrefetch, s2);
  REQUIRE(store1.size() == 1);
  REQUIRE(store2.size() == 1);
  // The Stores run side by side on the two channels: [10, 210) and [20, 220).
  CHECK(evaluation.timeline.steps[store1[0]].end_ns == 210);
  CHECK(evaluation.timeline.steps[store2[0]].start_ns == 20);
  CHECK(evaluation.timeline.steps[store2[0]].end_ns == 220);
  CHECK(plan.steps[store1[0]].channel != plan.steps[store2[0]].channel);
  // Both Prefetches end exactly when n5 starts (T5 = 570): [370, 570) on each channel.
  CHECK(evaluation.timeline.steps[fetch1[0]].end_ns == 570);
  CHECK(evaluation.timeline.steps[fetch2[0]].end_ns == 570);
  CHECK(evaluation.summary.stall_ns == 0);
  CHECK(evaluation.summary.makespan_ns == 580);
}

TEST_CASE("catalogue: a weight homed in ddr comes in before its use and leaves after it") {
  //   n0 () -> a          100 ns     T = [0, 100, 200, 300, 310, 320]
  //   n1 a -> b           100 ns, 150 B scratch
  //   n2 b -> c           100 ns
  //   n3 c, w -> d        10 ns      (w: 100 B weight, read only here)
  //   n4 d -> y           10 ns, 150 B scratch
  // The baseline keeps w resident throughout: steps 1 and 4 peak at 100 + 1 + 1 + 150 = 252.
  Graph graph;
  const ValueId w = Weight(graph, "w", 100);
  const ValueId a = Work(graph, "n0", {}, "a", 1, 100);
  const ValueId b = Work(graph, "n1", {a}, "b", 1, 100, 150);
  const ValueId c = Work(graph, "n2", {b}, "c", 1, 100);
  const ValueId d = Work(graph, "n3", {c, w}, "d", 1, 10);
  MarkOutput(graph, Work(graph, "n4", {d}, "y", 1, 10, 150));
  const PlanResult result = PlanAndVerify(graph, UnitProfile(), Budget(200));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  CHECK(StepsOf(plan, StepKind::kStore).empty());  // its home copy already exists
  const auto fetches = StepsOf(plan, StepKind::kPrefetch, w);
  const auto detaches = StepsOf(plan, StepKind::kDetach, w);
  REQUIRE(fetches.size() == 1);
  REQUIRE(detaches.size() == 1);
  // In as late as hides: [T3 - 100, T3) = [200, 300), issued before step 2.
  CHECK(plan.steps[fetches[0]].src_tier == 1);
  CHECK(plan.steps[fetches[0]].boundary == 2);
  CHECK(evaluation.timeline.steps[fetches[0]].start_ns == 200);
  CHECK(evaluation.timeline.steps[fetches[0]].end_ns == 300);
  // Out right after its only use (step 3): Detach before step 4.
  CHECK(plan.steps[detaches[0]].boundary == 4);
  // Peaks: step 1 = 1 + 1 + 150, step 4 = 1 + 1 + 150.
  CHECK(plan.layout.live_peak_bytes == 152);
  CHECK(evaluation.summary.stall_ns == 0);
  CHECK(evaluation.summary.makespan_ns == 320);
  REQUIRE(plan.tier_copies.size() == 1);  // the home copy, for the whole run
  CHECK(plan.tier_copies[0].tier == 1);
  CHECK(plan.tier_copies[0].opened_by == -1);
}

TEST_CASE("catalogue: weights used twice far apart come and go twice") {
  //   n0 w -> a      10 ns       T = [0, 10, 110, 210, 220, 230]
  //   n1 a -> b     100 ns, 200 B scratch
  //   n2 b -> c     100 ns
  //   n3 c, w -> d   10 ns
  //   n4 d -> y      10 ns, 200 B scratch
  Graph graph;
  const ValueId w = Weight(graph, "w", 50);
  const ValueId a = Work(graph, "n0", {w}, "a", 1, 10);
  const ValueId b = Work(graph, "n1", {a}, "b", 1, 100, 200);
  const ValueId c = Work(graph, "n2", {b}, "c", 1, 100);
  const ValueId d = Work(graph, "n3", {c, w}, "d", 1, 10);
  MarkOutput(graph, Work(graph, "n4", {d}, "y", 1, 10, 200));
  // Peak 50 + 1 + 1 + 200 = 252 at steps 1 and 4; budget 210 needs w out at both. One run from
  // a preloaded w (loop_test.cc has the periodic form, which must fetch w for step 0 too).
  PlanOptions options = Budget(210);
  options.single_run = true;
  const PlanResult result = PlanAndVerify(graph, UnitProfile(), options);
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  const auto fetches = StepsOf(plan, StepKind::kPrefetch, w);
  const auto detaches = StepsOf(plan, StepKind::kDetach, w);
  // Resident for step 0 (loaded with the model), out, in for step 3, out again: one
  // Prefetch and two Detaches.
  REQUIRE(fetches.size() == 1);
  REQUIRE(detaches.size() == 2);
  CHECK(plan.steps[detaches[0]].boundary == 1);  // right after its first use
  // As late as hides: planned 50 ns before T3 = 210, i.e. [160, 210), during step 2, so it
  // is issued at the boundary before step 2; the replay starts it there, at T2 = 110 (a
  // runtime triggers transfers on step boundaries; its memory counts from step 2 either way).
  CHECK(plan.steps[fetches[0]].boundary == 2);
  CHECK(plan.steps[fetches[0]].planned_start_ns == 160);
  CHECK(evaluation.timeline.steps[fetches[0]].start_ns == 110);
  CHECK(plan.steps[detaches[1]].boundary == 4);  // right after its second use
  CHECK(plan.layout.live_peak_bytes == 202);     // step 1 and step 4: 1 + 1 + 200
  CHECK(evaluation.summary.stall_ns == 0);
}

TEST_CASE("catalogue: an infeasible budget names the node that blocks it") {
  //   n0 () -> a (100 B); n1 a -> b (100 B); n2 b -> y (1 B, output)
  // Step 1 reads a and writes b: 200 B that cannot leave the device while n1 runs.
  Graph graph;
  const ValueId a = Work(graph, "n0", {}, "a", 100, 10);
  const ValueId b = Work(graph, "n1", {a}, "b", 100, 10);
  MarkOutput(graph, Work(graph, "n2", {b}, "y", 1, 10));
  const PlanResult result = PlanOffload(graph, UnitProfile(), Budget(150));
  CHECK(result.status == PlanStatus::kInfeasible);
  CHECK(result.infeasibility.blocking_node == 1);
  CHECK(result.infeasibility.blocking_step == 1);
  CHECK(result.infeasibility.node_floor_bytes == 200);  // a 100 + b 100
  CHECK(result.infeasibility.lowest_peak_bytes == 200);
  CHECK(result.infeasibility.pinned_bytes == 0);
  CHECK_THAT(result.infeasibility.message, Catch::Contains("n1"));
  CHECK(VerifyPlan(graph, UnitProfile(), result.plan, result.evaluation).ok);
}

TEST_CASE("catalogue: an infeasible budget names the full tier behind it") {
  //   n0 (w0) -> a (10 B); n1 (a, w1) -> y (10 B, output); weights 100 B each, homed in a ddr
  // of 50 B that no other tier backs: 200 - 50 = 150 B of weights can only be on the device.
  Graph graph;
  const ValueId w0 = Weight(graph, "w0", 100);
  const ValueId w1 = Weight(graph, "w1", 100);
  const ValueId a = Work(graph, "n0", {w0}, "a", 10, 10);
  MarkOutput(graph, Work(graph, "n1", {a, w1}, "y", 10, 10));
  HardwareProfile profile = UnitProfile();
  profile.tiers[1].capacity_bytes = 50;
  PlanOptions options = Budget(140);
  options.single_run = true;
  const PlanResult result = PlanOffload(graph, profile, options);
  CHECK(result.status == PlanStatus::kInfeasible);
  CHECK(result.infeasibility.message ==
        "no plan fits the budget of 140 B: tier 'ddr' is full: its 50 B cannot hold the 200 B "
        "of home copies (weight 200 B), and the 150 B over must stay on the device; give 'ddr' "
        "more capacity or add a tier for them to spill into");
  CHECK(VerifyPlan(graph, profile, result.plan, result.evaluation).ok);
}

TEST_CASE("catalogue: a Prefetch never starts before its own Store completes") {
  //   n0 () -> s (100 B)  10 ns   T = [0, 10, 20, 30, 180, 190]
  //   n1 s -> a           10 ns
  //   n2 a -> b           10 ns, 300 B scratch
  //   n3 b -> c          150 ns
  //   n4 c, s -> y        10 ns
  // s must leave at step 2, but its Store takes 100 ns ([10, 110)): the Detach waits for it
  // and the Prefetch cannot start before 110 even though hiding would want [80, 180).
  const StoredThenFetched stored;  // the graph above (planner_support.h)
  const Graph& graph = stored.graph;
  const ValueId s = stored.s;
  const PlanResult result = PlanAndVerify(graph, UnitProfile(), Budget(350));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  const auto stores = StepsOf(plan, StepKind::kStore, s);
  const auto fetches = StepsOf(plan, StepKind::kPrefetch, s);
  REQUIRE(stores.size() == 1);
  REQUIRE(fetches.size() == 1);
  CHECK(plan.steps[fetches[0]].planned_start_ns >= plan.steps[stores[0]].planned_end_ns);
  CHECK(evaluation.timeline.steps[fetches[0]].start_ns >=
        evaluation.timeline.steps[stores[0]].end_ns);
  const auto& waits = plan.steps[fetches[0]].waits_for;
  CHECK(std::find(waits.begin(), waits.end(), stores[0]) != waits.end());
  // Replay: the Detach holds n2 until 110 (90 ns stall); n2 [110, 120), n3 [120, 270); the
  // Prefetch, issued before step 3, runs [120, 220) and n4 starts at 270 without waiting.
  CHECK(evaluation.timeline.stall_ns_per_node[2] == 90);
  CHECK(evaluation.summary.makespan_ns == 280);
}

TEST_CASE("catalogue: equal candidates are broken by value id") {
  //   n0 () -> s1, s2 (100 B each)  10 ns    T = [0, 10, 110, 160, 260, 270]
  //   n1 s1, s2 -> a               100 ns
  //   n2 a -> b                     50 ns, 200 B scratch   (peak 402)
  //   n3 b -> c                    100 ns
  //   n4 c, s1, s2 -> y             10 ns
  Graph graph;
  const auto s = WorkN(graph, "n0", {}, {{"s1", 100}, {"s2", 100}}, 10);
  const ValueId a = Work(graph, "n1", {s[0], s[1]}, "a", 1, 100);
  const ValueId b = Work(graph, "n2", {a}, "b", 1, 50, 200);
  const ValueId c = Work(graph, "n3", {b}, "c", 1, 100);
  MarkOutput(graph, Work(graph, "n4", {c, s[0], s[1]}, "y", 1, 10));
  // 350 B: one of the two must go (402 - 100 = 302). Same size, same gap: the lower id.
  const PlanResult result = PlanAndVerify(graph, UnitProfile(), Budget(350));
  REQUIRE(result.status == PlanStatus::kPlanned);
  CHECK(StepsOf(result.plan, StepKind::kPrefetch, s[0]).size() == 1);
  CHECK(StepsOf(result.plan, StepKind::kPrefetch, s[1]).empty());
  CHECK(FindDecision(result.plan, s[1], 1)->reason == DecisionReason::kNotNeeded);
  CHECK(result.evaluation.summary.stall_ns == 0);
}

TEST_CASE("catalogue: a weight homed on nvme reaches the device through ddr") {
  // The homed-weight graph on hbm <-> ddr <-> nvme with no nvme-hbm link.
  //   T = [0, 100, 200, 300, 310, 320]; w (100 B) read at step 3.
  Graph graph;
  const ValueId w = Weight(graph, "w", 100);
  const ValueId a = Work(graph, "n0", {}, "a", 1, 100);
  const ValueId b = Work(graph, "n1", {a}, "b", 1, 100, 150);
  const ValueId c = Work(graph, "n2", {b}, "c", 1, 100);
  const ValueId d = Work(graph, "n3", {c, w}, "d", 1, 10);
  MarkOutput(graph, Work(graph, "n4", {d}, "y", 1, 10, 150));
  const HardwareProfile profile = NvmeProfile();
  const PlanResult result = PlanAndVerify(graph, profile, Budget(200));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  const auto fetches = StepsOf(plan, StepKind::kPrefetch, w);
  REQUIRE(fetches.size() == 2);
  const PlanStep& hop1 = plan.steps[fetches[0]];
  const PlanStep& hop2 = plan.steps[fetches[1]];
  CHECK(hop1.src_tier == 2);  // nvme -> ddr
  CHECK(hop1.dst_tier == 1);
  CHECK(hop2.src_tier == 1);  // ddr -> hbm
  CHECK(hop2.dst_tier == 0);
  CHECK(std::find(hop2.waits_for.begin(), hop2.waits_for.end(), fetches[0]) !=
        hop2.waits_for.end());
  // Chained backwards from T3 = 300: ddr->hbm [200, 300), nvme->ddr [100, 200).
  CHECK(evaluation.timeline.steps[fetches[1]].start_ns == 200);
  CHECK(evaluation.timeline.steps[fetches[1]].end_ns == 300);
  CHECK(evaluation.timeline.steps[fetches[0]].start_ns == 100);
  CHECK(evaluation.timeline.steps[fetches[0]].end_ns == 200);
  CHECK(evaluation.summary.stall_ns == 0);
  // ddr holds the staging copy from 100 to 300 ns; nvme the home copy throughout.
  CHECK(evaluation.timeline.peak_bytes_per_tier[1] == 100);
  CHECK(evaluation.timeline.peak_bytes_per_tier[2] == 100);
}

TEST_CASE("catalogue: without a budget, hidden transfers cut the peak at no cost") {
  SkipGraph g;
  PlanOptions options;
  options.allow_reorder = false;
  const PlanResult result = PlanAndVerify(g.graph, UnitProfile(), options);
  CHECK(result.status == PlanStatus::kPlanned);
  CHECK(result.evaluation.summary.makespan_ns == 270);
  CHECK(result.plan.layout.live_peak_bytes == 202);  // s out at step 2
  CHECK(StepsOf(result.plan, StepKind::kPrefetch, g.s).size() == 1);
}

TEST_CASE("catalogue: without a budget, a stall over the overhead limit is refused") {
  SkipGraph g(93);  // offloading s would stall 7 ns of 263 ns: 2.7% > 1%
  PlanOptions options;
  options.allow_reorder = false;
  const PlanResult result = PlanAndVerify(g.graph, UnitProfile(), options);
  CHECK(CacheOpCount(result.plan) == 0);
  CHECK(result.evaluation.summary.makespan_ns == 263);
  CHECK(FindDecision(result.plan, g.s, 1)->reason == DecisionReason::kStallOverLimit);
  // At 3% the same stall is allowed.
  options.max_overhead_ppm = 30'000;
  const PlanResult relaxed = PlanAndVerify(g.graph, UnitProfile(), options);
  CHECK(relaxed.evaluation.summary.makespan_ns == 270);
  CHECK(relaxed.plan.layout.live_peak_bytes == 202);
}

TEST_CASE("catalogue: offloading off gives the baseline plan") {
  SkipGraph g;
  PlanOptions options;
  options.offload = false;
  const PlanResult result = PlanAndVerify(g.graph, UnitProfile(), options);
  CHECK(!result.plan.offload_enabled);
  CHECK(CacheOpCount(result.plan) == 0);
  CHECK(result.evaluation.summary.makespan_ns == 270);
  CHECK(result.plan.layout.live_peak_bytes == 302);
}

TEST_CASE("catalogue: a better order avoids offloading") {
  //   n0 () -> A (100 B); n1 () -> B (100 B); n2 A -> a; n3 B -> b; n4 a, b -> y
  // Model order holds A and B together (step 1: 200 B); running n2 before n1 does not.
  Graph graph;
  const ValueId big_a = Work(graph, "n0", {}, "A", 100, 10);
  const ValueId big_b = Work(graph, "n1", {}, "B", 100, 10);
  const ValueId a = Work(graph, "n2", {big_a}, "a", 1, 10);
  const ValueId b = Work(graph, "n3", {big_b}, "b", 1, 10);
  MarkOutput(graph, Work(graph, "n4", {a, b}, "y", 1, 10));
  PlanOptions options = Budget(150);
  options.allow_reorder = true;
  const PlanResult result = PlanAndVerify(graph, UnitProfile(), options);
  REQUIRE(result.status == PlanStatus::kPlanned);
  CHECK(result.plan.reordered);
  CHECK(result.plan.order == std::vector<NodeId>{0, 2, 1, 3, 4});
  CHECK(CacheOpCount(result.plan) == 0);
  // Step 3 holds a 1 + B 100 + b 1 = 102; the model order peaked at 200.
  CHECK(result.plan.layout.live_peak_bytes == 102);
}

TEST_CASE("catalogue: without a budget, a device too small makes its capacity the budget") {
  // The 7 ns stall of offloading s is over 1% of 263 ns, so the no-budget cut leaves the peak
  // at 302 B; a 250 B device cannot hold that, so its capacity becomes the budget and the
  // stall is accepted.
  SkipGraph g(93);
  PlanOptions options;
  options.allow_reorder = false;
  const PlanResult result = PlanAndVerify(g.graph, UnitProfile(250), options);
  REQUIRE(result.status == PlanStatus::kPlanned);
  REQUIRE(result.plan.budget_bytes.has_value());
  CHECK(*result.plan.budget_bytes == 250);
  CHECK(result.plan.layout.arena_bytes == 202);
  CHECK(result.evaluation.summary.stall_ns == 7);
  // A 150 B device cannot hold step 2's own 202 B: a 1 + b 1 + 200 scratch.
  const PlanResult too_small = PlanOffload(g.graph, UnitProfile(150), options);
  CHECK(too_small.status == PlanStatus::kInfeasible);
  CHECK(too_small.infeasibility.blocking_node == 2);
  CHECK(too_small.infeasibility.node_floor_bytes == 202);
}

TEST_CASE("catalogue: an arena that fits beside a tier buffer that does not names the tier") {
  //   n0 () -> s (10 B)   n1 s -> a (1 B)   n2 a -> b (1 B), 300 B scratch   n3 b, s -> y (1 B)
  // Budget 305: at step 2, s (10) + a (1) + b (1) + 300 = 312, so s is stored to ddr over it.
  // ddr holds 50 B with 64-byte alignment: s's 10 B fit its room, but laid out its copy takes
  // one 64-byte block, over the 50 B. The arena fits: s off the device at step 2 leaves
  // a + b + 300 = 302 B there (10, 11, 302, 12 by step); the plan does not, because of ddr.
  Graph graph;
  const ValueId s = Work(graph, "n0", {}, "s", 10, 10);
  const ValueId a = Work(graph, "n1", {s}, "a", 1, 10);
  const ValueId b = Work(graph, "n2", {a}, "b", 1, 10, 300);
  MarkOutput(graph, Work(graph, "n3", {b, s}, "y", 1, 10));
  HardwareProfile profile = UnitProfile();
  profile.tiers[1].capacity_bytes = 50;
  profile.tiers[1].alignment_bytes = 64;
  PlanOptions options = Budget(305);
  options.single_run = true;
  const PlanResult result = PlanOffload(graph, profile, options);
  REQUIRE(result.status == PlanStatus::kInfeasible);
  CHECK(result.plan.layout.arena_bytes == 302);
  CHECK(result.infeasibility.message ==
        "no plan fits the budget of 305 B: the arena fits (302 B) but tier 'ddr' needs 64 B for "
        "the copies it holds at once (home, stored and staging, laid out), over its 50 B");
}
