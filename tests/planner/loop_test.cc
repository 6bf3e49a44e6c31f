// Loops: a plan is one iteration (docs/design.md invariant 8), state updated in place through alias
// pairs, and the cold start reported apart. Unit rates (planner_support.h): every number is
// worked out beside its assertion.
#include "hyperplan/loop.h"

#include <catch2/catch.hpp>

#include "hyperplan/plan/simulate.h"
#include "hyperplan/plan/verify.h"
#include "hyperplan/planner/planner.h"
#include "loop_graphs.h"
#include "planner/context.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

TEST_CASE("loop: a weight read twice is fetched for step 0 too, and leaves before the end") {
  const TwiceRead g;
  // Budget 210: w must be off the device at steps 1 and 4. It may not end the iteration off
  // the device unless it also starts it there, so the iteration fetches it for step 0 too.
  const PlanResult result = PlanAndVerify(g.graph, UnitProfile(), Budget(210));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  CHECK(plan.periodic);
  const auto fetches = StepsOf(plan, StepKind::kPrefetch, g.w);
  const auto detaches = StepsOf(plan, StepKind::kDetach, g.w);
  REQUIRE(fetches.size() == 2);
  REQUIRE(detaches.size() == 2);
  // The first fetch cannot hide: n0 needs w at T = 0, so [0, 50) at 1 B/ns, a 50 ns stall.
  CHECK(plan.steps[fetches[0]].boundary == 0);
  CHECK(evaluation.timeline.steps[fetches[0]].end_ns == 50);
  CHECK(plan.steps[detaches[0]].boundary == 1);  // after its first use
  CHECK(plan.steps[fetches[1]].boundary == 2);   // hidden during n2, as the one-shot plan
  CHECK(plan.steps[detaches[1]].boundary == 4);  // after its second use
  // n0 [50, 60), n1 [60, 160), n2 [160, 260), n3 [260, 270), n4 [270, 280).
  CHECK(evaluation.summary.stall_ns == 50);
  CHECK(evaluation.summary.makespan_ns == 280);
  // Nothing of w is on the device when the iteration starts: the cold start places only its
  // home copy (50 B in ddr, tier 1), which takes no link time.
  CHECK(evaluation.cold_start.bytes_per_tier[0] == 0);
  CHECK(evaluation.cold_start.bytes_per_tier[1] == 50);
  CHECK(evaluation.cold_start.time_ns == 0);
}

TEST_CASE("loop: a weight that stays is in the cold start, timed over its route") {
  const TwiceRead g;
  // Budget 300 >= the 252 B peak: nothing moves, w stays all iteration. Before the first
  // iteration its 50 B come from ddr over the 1 B/ns link: 50 ns, outside the 230 ns makespan.
  const PlanResult result = PlanAndVerify(g.graph, UnitProfile(), Budget(300));
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  CHECK(StepsOf(plan, StepKind::kPrefetch).empty());
  CHECK(evaluation.summary.makespan_ns == 230);
  CHECK(evaluation.cold_start.bytes_per_tier[0] == 50);
  CHECK(evaluation.cold_start.time_ns == 50);
}

TEST_CASE("loop: the verifier rejects a one-shot plan presented as an iteration") {
  const TwiceRead g;
  PlanOptions options = Budget(210);
  options.single_run = true;
  PlanResult result = PlanAndVerify(g.graph, UnitProfile(), options);
  // The one-shot plan keeps w from the free preload for step 0 and drops it after step 3.
  result.plan.periodic = true;
  const VerifyResult verdict = VerifyPlan(g.graph, UnitProfile(), result.plan, result.evaluation);
  CHECK_FALSE(verdict.ok);
  CHECK(verdict.invariant == 8);
  CHECK(verdict.message ==
        "invariant 8: 'w' is on the device at the iteration's start but not at its end");
}

TEST_CASE("loop: exporter conventions pair present with past, and --alias rules too") {
  const KvAppend g;
  const std::vector<ValueAlias> found = FindAliases(g.graph, {});
  REQUIRE(found.size() == 1);
  CHECK(found[0].out_value == g.present);
  CHECK(found[0].in_value == g.past);
  // A rule wins over conventions and may name any input; one naming a missing input is an
  // error, not a silent no-op.
  const std::vector<ValueAlias> ruled =
      FindAliases(g.graph, {ParseAliasRule(R"(present\.(\d+)\.key=past_key_values.\1.key)")});
  REQUIRE(ruled.size() == 1);
  CHECK(ruled[0].in_value == g.past);
  CHECK_THROWS_WITH(FindAliases(g.graph, {ParseAliasRule(R"(present\.(\d+)\.key=cache.\1)")}),
                    "--alias: output 'present.0.key' names input 'cache.0', which the model "
                    "does not have");
  CHECK_THROWS_WITH(ParseAliasRule("present"),
                    "--alias 'present': expected OUT=IN (an output regex and an input name)");
}

TEST_CASE("loop: an in-place KV append is one buffer: the baseline counts it once") {
  const KvAppend g;
  // Budget 500 >= the loop graph's 412 B peak: no offloading. Without the alias the one-shot
  // baseline would hold past (100, all run) and present (110, from step 1): 100 + 110 + 302.
  const PlanResult result = PlanAndVerify(g.graph, UnitProfile(), g.Options(500));
  CHECK(result.evaluation.summary.baseline_peak_bytes == 412);
  CHECK(result.plan.layout.live_peak_bytes == 412);
  PlanOptions one_shot = Budget(600);
  one_shot.single_run = true;
  CHECK(PlanAndVerify(g.graph, UnitProfile(), one_shot).plan.layout.live_peak_bytes == 512);
}

TEST_CASE("loop: an offloaded KV pair stores only the appended bytes") {
  const KvAppend g;
  // Budget 350: the 110 B buffer must be off the device at step 3 (412 - 110 = 302 fits), so
  // it is off at the iteration's end, hence at its start: the wrap-around gap.
  //  - Prefetch of past, 110 B, due by T1 = 100: cannot hide, runs [0, 110): stall 10.
  //  - n1 [110, 120) appends; the Store writes back the 10 new bytes: [120, 130).
  //  - n2 [120, 130); the Detach waits for the Store (130): n3 [130, 230).
  const PlanResult result = PlanAndVerify(g.graph, UnitProfile(), g.Options(350));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  REQUIRE(plan.aliases.size() == 1);
  const auto fetches = StepsOf(plan, StepKind::kPrefetch, g.past);
  const auto stores = StepsOf(plan, StepKind::kStore, g.past);
  const auto detaches = StepsOf(plan, StepKind::kDetach, g.past);
  REQUIRE(fetches.size() == 1);
  REQUIRE(stores.size() == 1);
  REQUIRE(detaches.size() == 1);
  CHECK(plan.steps[fetches[0]].bytes == 110);
  CHECK(plan.steps[stores[0]].bytes == 10);  // 110 - 100: only the append moves back
  CHECK(evaluation.timeline.steps[fetches[0]].end_ns == 110);
  CHECK(evaluation.timeline.steps[stores[0]].start_ns == 120);
  CHECK(evaluation.timeline.steps[stores[0]].end_ns == 130);
  CHECK(plan.steps[detaches[0]].boundary == 3);
  CHECK(evaluation.summary.stall_ns == 10);
  CHECK(evaluation.summary.makespan_ns == 230);
  CHECK(plan.layout.live_peak_bytes == 302);  // step 3: y + z + 300
  // The store writes into the home copy: one copy in ddr, there before and after.
  REQUIRE(plan.tier_copies.size() == 1);
  CHECK(plan.tier_copies[0].opened_by == -1);
  CHECK(plan.tier_copies[0].closed_by == -1);
  CHECK(evaluation.cold_start.bytes_per_tier[0] == 0);
  CHECK(evaluation.cold_start.bytes_per_tier[1] == 110);
}

TEST_CASE("loop: a Detach of an appended buffer with no write-back is rejected") {
  const KvAppend g;
  PlanResult result = PlanAndVerify(g.graph, UnitProfile(), g.Options(350));
  Plan& plan = result.plan;
  PlanEvaluation& evaluation = result.evaluation;
  const auto stores = StepsOf(plan, StepKind::kStore, g.past);
  REQUIRE(stores.size() == 1);
  // Without the Store, ddr still holds the 100 bytes from before the append when the Detach
  // drops the device's 110: the appended token would be lost, and the next iteration's
  // Prefetch (at 0 ns, the first rule broken in the verifier's order) would read the old bytes.
  EraseStep(plan, stores[0]);
  evaluation.timeline = Simulate(g.graph, UnitProfile(), plan);
  const VerifyResult verdict = VerifyPlan(g.graph, UnitProfile(), plan, evaluation);
  CHECK_FALSE(verdict.ok);
  CHECK(verdict.invariant == 4);
  CHECK_THAT(verdict.message,
             Catch::Contains("reads the home copy of 'past_key_values.0.key' on ddr at 0 ns, "
                             "before a Store wrote back the in-place update by 'n1' in the "
                             "previous iteration"));
}

TEST_CASE("loop: a weight updated in place stays across the boundary and leaves between uses") {
  // Budget 210: the peak, step 1 (252 B), needs w off the device. Its gap between n0 and n2
  // is a decision of its own: w stays from n2 to the next iteration's n0 (no Prefetch for
  // step 0), leaves after n0 and comes back for n2.
  // Written back right after n2, its update runs past the iteration's end: the Prefetch may
  // start only once step 1 ends, [110, 160), a 50 ns stall; n2 [160, 170); the Store (all 50
  // bytes change) [170, 220). So the planner plans the order again with w's write-back at the
  // next iteration's start (LateWriteBacks::kAtStart), and that plan wins:
  //  - the Store of the update the last iteration left on the device runs [0, 50); n0 [0, 10);
  //  - the Detach before step 1 waits for it: n1 [50, 150), a 40 ns stall;
  //  - the Prefetch, issued once step 1 ends, [150, 200), a 50 ns stall; n2 [200, 210).
  // 210 ns against 220. Before inner gaps were decisions, w also left at the boundary and was
  // fetched for n0, [0, 50): 270 ns.
  // Read only by the update (n0 makes a from nothing), w's kept gap is its leading one, from
  // step 1 (the Store needs a moment): the same plan in time.
  for (const UpdatedWeight& g : {UpdatedWeight(), UpdatedWeight::ReadOnlyByTheUpdate()}) {
    const PlanResult result = PlanAndVerify(g.graph, UnitProfile(), g.Options(210));
    REQUIRE(result.status == PlanStatus::kPlanned);
    const Plan& plan = result.plan;
    const PlanEvaluation& evaluation = result.evaluation;
    const auto fetches = StepsOf(plan, StepKind::kPrefetch, g.w);
    const auto detaches = StepsOf(plan, StepKind::kDetach, g.w);
    const auto stores = StepsOf(plan, StepKind::kStore, g.w);
    REQUIRE(fetches.size() == 1);
    REQUIRE(detaches.size() == 1);
    REQUIRE(stores.size() == 1);
    CHECK(plan.steps[stores[0]].boundary == 0);
    CHECK(plan.steps[stores[0]].bytes == 50);
    CHECK(plan.steps[stores[0]].waits_for == std::vector<int32_t>{});  // not for n2
    CHECK(evaluation.timeline.steps[stores[0]].start_ns == 0);
    CHECK(evaluation.timeline.steps[stores[0]].end_ns == 50);
    CHECK(plan.steps[detaches[0]].boundary == 1);
    CHECK(plan.steps[detaches[0]].waits_for == std::vector<int32_t>{stores[0]});
    CHECK(plan.steps[fetches[0]].boundary == 2);
    CHECK(evaluation.timeline.steps[fetches[0]].start_ns == 150);
    CHECK(evaluation.timeline.steps[fetches[0]].end_ns == 200);
    CHECK(evaluation.summary.stall_ns == 90);
    CHECK(evaluation.summary.makespan_ns == 210);
    // Resident 51, 202 (a + b + 200), 51: within the budget.
    CHECK(plan.layout.live_peak_bytes == 202);
    // w's two blocks (step 0, from the run's start; step 2, to its end) are one arena block.
    const std::vector<int64_t> offsets = ArenaOffsetsOf(plan, g.w);
    REQUIRE(offsets.size() == 2);
    CHECK(offsets[0] == offsets[1]);
    // The cold start places w on the device and its home copy in ddr: 50 B each, the device's
    // share over ddr->hbm at 1 B/ns.
    CHECK(evaluation.cold_start.bytes_per_tier[0] == 50);
    CHECK(evaluation.cold_start.bytes_per_tier[1] == 50);
    CHECK(evaluation.cold_start.time_ns == 50);
  }
}

TEST_CASE("loop: an iteration that ends on a write-back is planned again even without stalls") {
  // UpdatedWeight with nm (b -> c, 1 B, 100 ns) between n1 and n2, which then reads c. Budget
  // 210. Written back after n2, the plan has no stall: n0 [0, 10), the Detach after it, n1
  // [10, 110), nm [110, 210), the Prefetch hidden in nm, [160, 210), n2 [210, 220); but its
  // Store runs [220, 270). Its run's axis is the compute-only one, which the replanning rounds
  // skip for a plan made in the same context; the kept variant is planned on it anyway:
  // Store [0, 50), n0 [0, 10), the Detach waits for the Store, n1 [50, 150), nm [150, 250),
  // the Prefetch issued before nm [150, 200), n2 [250, 260). 260 ns against 270.
  const UpdatedWeight g = UpdatedWeight::WithStepBeforeTheUpdate(100);
  const PlanResult result = PlanAndVerify(g.graph, UnitProfile(), g.Options(210));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  const auto stores = StepsOf(plan, StepKind::kStore, g.w);
  REQUIRE(stores.size() == 1);
  CHECK(plan.steps[stores[0]].boundary == 0);
  CHECK(evaluation.timeline.steps[stores[0]].end_ns == 50);
  CHECK(evaluation.summary.makespan_ns == 260);
}

TEST_CASE("loop: a write-back that hides after the update stays after it") {
  const UpdatedWeight g(60);
  // As above, with n3 (60 ns) after n2: the Store right after n2, [170, 220), ends inside n3
  // [170, 230), so nothing is planned again. n0 [0, 10); the Detach after it waits for nothing
  // in this iteration; n1 [10, 110); the Prefetch [110, 160), a 50 ns stall; n2 [160, 170).
  const PlanResult result = PlanAndVerify(g.graph, UnitProfile(), g.Options(210));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  const auto stores = StepsOf(plan, StepKind::kStore, g.w);
  const auto detaches = StepsOf(plan, StepKind::kDetach, g.w);
  REQUIRE(stores.size() == 1);
  REQUIRE(detaches.size() == 1);
  CHECK(plan.steps[stores[0]].boundary == 3);
  CHECK(plan.steps[stores[0]].waits_for == std::vector<int32_t>{ComputeStepOf(plan, 2)});
  CHECK(evaluation.timeline.steps[stores[0]].start_ns == 170);
  CHECK(evaluation.timeline.steps[stores[0]].end_ns == 220);
  CHECK(plan.steps[detaches[0]].boundary == 1);
  CHECK(plan.steps[detaches[0]].waits_for == std::vector<int32_t>{});
  CHECK(evaluation.summary.stall_ns == 50);
  CHECK(evaluation.summary.makespan_ns == 230);
}

TEST_CASE("loop: which write-backs the next iteration's start may take") {
  // w's write-back takes 50 ns (50 B at 1 B/ns, one hop into its home copy).
  auto late = [](const Graph& model, ValueId w) {
    const std::vector<ValueAlias> aliases = FindAliases(model, {});
    const Graph loop = LoopGraph(model, aliases);
    const HardwareProfile profile = UnitProfile();  // the context points at it
    const planner::PlanContext context =
        planner::BuildContext(loop, profile, ModelOrder(loop), {}, PersistentValues(loop, aliases));
    return planner::LateWriteBackValues(context)[w] == 1;
  };
  // Written by the last step: 0 ns of the iteration left after it.
  const UpdatedWeight last;
  CHECK(late(last.graph, last.w));
  // 50 ns left (n3): the Store fits behind it; 49 ns: it does not.
  const UpdatedWeight hidden(50);
  CHECK_FALSE(late(hidden.graph, hidden.w));
  const UpdatedWeight short_tail(49);
  CHECK(late(short_tail.graph, short_tail.w));
  // Read again after the write (as Adam reads its moments): the write is not its last use.
  Graph graph;
  const ValueId w = Weight(graph, "w", 50);
  const ValueId a = Work(graph, "n0", {w}, "a", 1, 10);
  const ValueId updated = Work(graph, "n1", {a, w}, "w.updated", 50, 10);
  MarkOutput(graph, updated);
  MarkOutput(graph, Work(graph, "n2", {updated}, "y", 1, 10));
  CHECK_FALSE(late(graph, w));
}

TEST_CASE("loop: an update kept on the device across the boundary is written back before use") {
  const UpdatedWeight g;
  // w stays on the device from n2 to the next iteration's n0 and leaves over step 1. Its home
  // copy holds the previous iteration's update only if a Store wrote it back: right after n2,
  // or at the next iteration's start before the Detach.
  for (const WriteBack write_back : {WriteBack::kAfterTheWrite, WriteBack::kNextIteration}) {
    const auto [plan, evaluation] = KeptAcrossTheBoundary(g, write_back);
    const VerifyResult verdict = VerifyPlan(g.graph, UnitProfile(), plan, evaluation);
    INFO(verdict.message);
    CHECK(verdict.ok);
  }
  // Without either, the Detach after n0 drops the update n2 made last iteration: ddr still
  // holds the bytes from before it, and n2 would read those back.
  const EvaluatedPlan broken = KeptAcrossTheBoundary(g, WriteBack::kNever);
  // The first rule it breaks, in the verifier's order, is the Prefetch's read of ddr.
  const VerifyResult verdict = VerifyPlan(g.graph, UnitProfile(), broken.plan, broken.evaluation);
  CHECK_FALSE(verdict.ok);
  CHECK(verdict.invariant == 4);
  CHECK_THAT(verdict.message,
             Catch::Contains("reads the home copy of 'w' on ddr at 110 ns, before a Store wrote "
                             "back the in-place update by 'n2' in the previous iteration"));
}

TEST_CASE("loop: when wrapped blocks cannot fit, the value leaves at the boundary instead") {
  // w (1024 B) is read by n0 (step 0) and n3 (step 3); a (1024 B) lives over steps 0..1, b
  // (4096 B) over 1..2, c (4 B) over 2..3, y (1024 B) at 3; every node 10 ns at unit rates.
  // Live with w resident: 2048, 6144, 5124, 2052. Budget 5200: w must be off over step 1.
  // Kept across the boundary, w's blocks (step 0; and steps 2..3, since its 1024 ns Prefetch
  // for n3 cannot hide in n2's 10 ns and is issued before step 2) are one arena block, which
  // meets a at step 0 and b at step 2 while a meets b at step 1: three blocks that must all be
  // apart, 1024 + 1024 + 4096 = 6144 B > 5200, though the live bytes fit. The planner then
  // bundles w's gap with its wrap-around gap: w leaves after n3 and is fetched for n0, two
  // blocks at two offsets: b at 0, a and w's second block at 4096 (they never meet), w's
  // first and y at 0, c at 5120: 5124 B.
  Graph graph;
  const ValueId w = Weight(graph, "w", 1024);
  const ValueId a = Work(graph, "n0", {w}, "a", 1024, 10);
  const ValueId b = Work(graph, "n1", {a}, "b", 4096, 10);
  const ValueId c = Work(graph, "n2", {b}, "c", 4, 10);
  MarkOutput(graph, Work(graph, "n3", {w, c}, "y", 1024, 10));
  const PlanResult result = PlanAndVerify(graph, UnitProfile(), Budget(5200));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  CHECK(evaluation.fits);
  CHECK(plan.layout.arena_bytes == 5124);
  const auto fetches = StepsOf(plan, StepKind::kPrefetch, w);
  const auto detaches = StepsOf(plan, StepKind::kDetach, w);
  REQUIRE(fetches.size() == 2);
  REQUIRE(detaches.size() == 2);
  CHECK(plan.steps[fetches[0]].boundary == 0);   // off the device when the iteration starts
  CHECK(plan.steps[detaches[1]].boundary == 4);  // and again when it ends
  CHECK(evaluation.cold_start.bytes_per_tier[0] == 0);
}

TEST_CASE("loop: a write-back whose first hop reads the device before the update is rejected") {
  // On a two-hop route (hbm -> ddr -> nvme) the hop into NVMe runs after n2 but carries what
  // the first hop read before n2: the last iteration's update, not this one's. Before the write
  // a Store may only go straight into the home copy.
  const UpdatedWeight g;
  const auto [plan, evaluation] = WriteBackSplitAroundTheWrite(g);
  const VerifyResult verdict = VerifyPlan(g.graph, NvmeProfile(), plan, evaluation);
  CHECK_FALSE(verdict.ok);
  CHECK(verdict.invariant == 4);
  CHECK(verdict.step == 0);
  CHECK_THAT(verdict.message,
             Catch::Contains("reads the device copy before its in-place writer 'n2' ends, and "
                             "neither before it starts nor into the home copy"));
}
