// Budget rounds (planner/modes.h) when live bytes fit the budget and the arena does not: the
// per-step repair chases the arena's top into a target no plan can meet, and the uniform
// retry (one lowered target for every step) fits. Unit rates (planner_support.h), one run
// (weights preloaded), the sweep alone as the layout (what a first-come runtime allocator
// does), so the fragmentation is worked out by hand beside each assertion.
#include <catch2/catch.hpp>

#include "planner/context.h"
#include "planner/modes.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner;
using namespace hyperplan::planner_test;

namespace {

struct Fragmenting {
  Graph graph;
  ValueId z = kNoValue;  // weight read at step 2
  ValueId w = kNoValue;  // weight read at step 3
};

// n0 () -> x 200 B; n1 (x) -> t 100 B; n2 (t, z) -> y 300 B; n3 (y, w) -> out 100 B; 1 ns each.
// Weights z and w are 100 B. Live bytes (z freed after its read at step 2 by a stall-free cut):
//   step 0: z w x = 400, step 1: z w x t = 500, step 2: z w t y = 600, step 3: w y out = 500.
Fragmenting FragmentingChain() {
  Fragmenting chain;
  Graph& graph = chain.graph;
  chain.z = Weight(graph, "z", 100);
  chain.w = Weight(graph, "w", 100);
  const ValueId x = Work(graph, "n0", {}, "x", 200, 1);
  const ValueId t = Work(graph, "n1", {x}, "t", 100, 1);
  const ValueId y = Work(graph, "n2", {t, chain.z}, "y", 300, 1);
  MarkOutput(graph, Work(graph, "n3", {y, chain.w}, "out", 100, 1));
  return chain;
}

const ResidentInterval* ResidencyOf(const Plan& plan, ValueId value) {
  for (const ResidentInterval& interval : plan.residency) {
    if (interval.value == value) return &interval;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("the uniform retry fits where per-step targets chase the arena's top") {
  const Fragmenting chain = FragmentingChain();
  const HardwareProfile profile = UnitProfile();
  PlanContext context = BuildContext(chain.graph, profile, ModelOrder(chain.graph), {}, {});
  context.layout.greedy = false;
  Baseline baseline;
  baseline.peak_bytes = context.lifetimes.timeline.peak_bytes;
  const int64_t budget_bytes = 700;

  // Rounds 0 and 1 meet the 700 B target with nothing fetched (live peak 600 at step 2). The
  // sweep: w lives at every step, stacked at 0..100; above it, step 0 places x (largest first)
  // at 100..300 and z at 300..400, step 1 puts t on top at 400..500, x's hole [100, 300) opens
  // after step 1, and y (300 B) does not fit it: y at 500..800, an 800 B arena, 100 B over.
  // The per-step repair gives step 3 (top 800) the target 500 - 100 = 400, below the 500 B
  // n3 reads and writes (w, y, out): stuck. The uniform retry gives every step
  // min(700, 600) - 100 = 500: w (read only at step 3) leaves steps 0-2 and comes back for
  // step 3. Then x at 0..200, z at 200..300, t at 300..400, y (hole of 200 too small) at
  // 400..700, w and out into x's hole at 0..100 and 100..200: a 700 B arena, which fits.
  const Outcome outcome = PlanToBudget(context, budget_bytes, baseline);
  CHECK(outcome.feasible);
  CHECK(outcome.round == BudgetRound::kUniformTarget);
  // Rounds 0 and 1 (800 B arenas), then round 2 with step 3's target at 400, stuck: 3 rounds.
  CHECK(outcome.budget_rounds == 3);
  CHECK(outcome.uniform_target_bytes == 500);
  CHECK(outcome.selection.live_peak_bytes == 500);  // step 2: z t y; step 3: w y out
  CHECK(outcome.plan.layout.arena_bytes == 700);
  const ResidentInterval* w = ResidencyOf(outcome.plan, chain.w);
  REQUIRE(w != nullptr);
  CHECK(w->first_step == 3);
  CHECK(w->last_step == 3);
  // 4 ns of compute, and w's 100 B over the 1 byte/ns link after n2: w cannot be on the device
  // during step 2 (z t y w = 600 > 500), so n3 waits the whole 100 ns transfer.
  CHECK(outcome.evaluation.timeline.makespan_ns == 4 + 100);
}

TEST_CASE("end to end, the uniform retry's plan is the start the run's timeline improves on") {
  const Fragmenting chain = FragmentingChain();
  PlanOptions options = Budget(700);
  options.single_run = true;
  options.layout.greedy = false;
  // Without the retry nothing fits (rounds 0 and 1: 800 B arenas with no stall, so no replan
  // either). With it, the plan above stalls n3 from 3 to 103 ns; replanned on that timeline,
  // fetching w before n2 (issued at 2 ns, done at 102) hides behind the wait it already has:
  // a stall-free cut there. Layout: x 0..200, z 200..300, t 300..400, then y on top at
  // 400..700 and w into x's hole at 0..100, out at 100..200: 700 B again, and n3 runs 102..103.
  const PlanResult result = PlanAndVerify(chain.graph, UnitProfile(), options);
  CHECK(result.status == PlanStatus::kPlanned);
  CHECK(result.plan.layout.arena_bytes == 700);
  CHECK(result.evaluation.timeline.makespan_ns == 103);
  const ResidentInterval* w = ResidencyOf(result.plan, chain.w);
  REQUIRE(w != nullptr);
  CHECK(w->first_step == 2);
}

TEST_CASE("the budget rounds stop once no step's target moves: the next would repeat the last") {
  // n0 () -> out, 100 B, on a device whose arena is 256-byte aligned, to a 200 B budget. Round
  // 0 meets the target with nothing to place (live 100 B), but out's block is padded to 256 B:
  // a 256 B arena, 56 B over. The arena's top at step 0 is out's end unpadded, 0 + 100 = 100 B,
  // within the budget, so no step's target is lowered after round 1 (free cuts: none here,
  // the same plan), and rounds 2-5 would each plan round 1's request again. They are not run.
  Graph graph;
  MarkOutput(graph, Work(graph, "n0", {}, "out", 100, 1));
  HardwareProfile profile = UnitProfile();
  profile.tiers[0].alignment_bytes = 256;
  const PlanContext context = BuildContext(graph, profile, ModelOrder(graph), {}, {});
  Baseline baseline;
  baseline.peak_bytes = context.lifetimes.timeline.peak_bytes;
  const Outcome outcome = PlanToBudget(context, 200, baseline);
  CHECK(outcome.budget_rounds == 2);
  // The uniform retries (target min(200, 100) - 56 = 44 first) are below out's 100 B and never
  // reach their target, so round 0's plan is kept (round 1's equal one does not replace it).
  CHECK_FALSE(outcome.feasible);
  CHECK(outcome.round == BudgetRound::kLiveTarget);
  CHECK(outcome.selection.live_peak_bytes == 100);
  CHECK(outcome.plan.layout.arena_bytes == 256);
  // Live 100 B within 200, arena 256 B over it: the layout may be what fails (bundling may
  // help); with no limit (0), always.
  CHECK(LayoutMayBeWhatFails(outcome, 200));
  CHECK(LayoutMayBeWhatFails(outcome, 0));
  // A limit of 99 B is below the live 100 B: bundled gaps would free no step they could not.
  CHECK_FALSE(LayoutMayBeWhatFails(outcome, 99));
  // A 300 B limit holds the 256 B arena: what missed is not the layout, so no bundling.
  CHECK_FALSE(LayoutMayBeWhatFails(outcome, 300));
}
