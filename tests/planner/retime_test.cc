// Replanning on the run's timeline (planner/retime.h): when another round runs, what counts
// as a gain, which outcome beats which, and when a link binds, by hand.
#include "planner/retime.h"

#include <catch2/catch.hpp>
#include <map>
#include <mutex>
#include <vector>

#include "planner_support.h"
#include "support/routed_moe.h"

using namespace hyperplan;
using namespace hyperplan::planner;
using namespace hyperplan::planner_test;

namespace {

Outcome Made(bool feasible, int64_t makespan_ns, int64_t arena_bytes, int64_t live_peak_bytes) {
  Outcome outcome;
  outcome.feasible = feasible;
  outcome.evaluation.timeline.makespan_ns = makespan_ns;
  outcome.plan.layout.arena_bytes = arena_bytes;
  outcome.selection.live_peak_bytes = live_peak_bytes;
  return outcome;
}

// A run of nodes n0 and n1 (1 ns each) whose n1 started at `makespan_ns` - 1 after a stall:
// its axis is {0, makespan - 1, makespan}, 2 ns of compute, no transfer.
Outcome Stalled(int64_t makespan_ns) {
  Outcome outcome = Made(true, makespan_ns, 64, 20);
  Plan& plan = outcome.plan;
  SimulationResult& timeline = outcome.evaluation.timeline;
  plan.order = {0, 1};
  plan.steps = {ComputeStep(0), ComputeStep(1)};
  timeline.compute_ns = 2;
  timeline.steps.resize(2);
  timeline.steps[0].start_ns = 0;
  timeline.steps[0].end_ns = 1;
  timeline.steps[1].start_ns = makespan_ns - 1;
  timeline.steps[1].end_ns = makespan_ns;
  return outcome;
}

// Replans `first` in overhead mode (one chain) with a planner that returns the plans of
// `makespans_ns` in turn; the makespan kept and how many rounds ran.
std::pair<int64_t, size_t> Replan(const Outcome& first, const std::vector<int64_t>& makespans_ns) {
  Graph graph;
  const ValueId x = Work(graph, "n0", {}, "x", 10, 1);
  Work(graph, "n1", {x}, "y", 10, 1);
  const HardwareProfile profile = UnitProfile();
  const PlanContext context = BuildContext(graph, profile, ModelOrder(graph), {}, {});
  size_t rounds = 0;
  const Outcome kept = ReplanOnRunTimeline(context, first, false, [&](const PlanContext&) {
    return Stalled(makespans_ns.at(rounds++));
  });
  return {kept.evaluation.timeline.makespan_ns, rounds};
}

}  // namespace

TEST_CASE("retime: the rounds stop where they stop gaining, six at most") {
  // 1000 -> 995 -> 991 ns: neither gains 1% (10 ns, then 9.95), so the two rounds that always
  // run are all; the best, 991, is kept.
  CHECK(Replan(Stalled(1000), {995, 991, 900}) == std::pair<int64_t, size_t>{991, 2});
  // Every round gains 100 ns or more: rounds run to the limit of six (the seventh plan is
  // never asked for).
  CHECK(Replan(Stalled(1000), {900, 800, 700, 600, 500, 400, 300}) ==
        std::pair<int64_t, size_t>{400, 6});
  // Round 0 loses (1100), round 1 gains 10 of 1000 (1%) on the best before it, so round 2
  // runs; 990 -> 985 is under 1% (9.9): no round 3.
  CHECK(Replan(Stalled(1000), {1100, 990, 985, 900}) == std::pair<int64_t, size_t>{985, 3});
}

TEST_CASE("retime: no round where replanning cannot help") {
  // A plan at compute speed (2 ns of 2): nothing to retime.
  CHECK(Replan(Stalled(2), {1}) == std::pair<int64_t, size_t>{2, 0});
  // Round 0 returns the same plan: round 1 would plan on the same axis again.
  CHECK(Replan(Stalled(1000), {1000, 500}) == std::pair<int64_t, size_t>{1000, 1});
}

TEST_CASE("retime: a round gains when it cuts the best makespan by 1% or more") {
  // 1% of 1000 ns is 10 ns: 990 gains, 991 does not.
  CHECK(RetimeGained(1000, 990));
  CHECK_FALSE(RetimeGained(1000, 991));
  CHECK_FALSE(RetimeGained(1000, 1000));
  // 1% of 3.96 s is 39.6 ms (integer: 39'600'000 ns): 3.86 s gains, 3.93 s does not.
  CHECK(RetimeGained(3'960'000'000, 3'860'000'000));
  CHECK_FALSE(RetimeGained(3'960'000'000, 3'930'000'000));
}

TEST_CASE("retime: two rounds always, then while each gains, six at most") {
  // Rounds 0 and 1 run whatever the last one did; from round 2 only after a gain.
  CHECK(RetimeRoundRuns(0, false));
  CHECK(RetimeRoundRuns(1, false));
  CHECK_FALSE(RetimeRoundRuns(2, false));
  CHECK(RetimeRoundRuns(2, true));
  CHECK(RetimeRoundRuns(5, true));
  // Round 6 would be the seventh.
  CHECK_FALSE(RetimeRoundRuns(6, true));
}

TEST_CASE("retime: in budget mode a fitting plan beats any that does not, then the faster") {
  const Outcome fits_slow = Made(true, 200, 90, 80);
  const Outcome fits_fast = Made(true, 150, 100, 90);
  const Outcome over = Made(false, 100, 120, 110);
  CHECK(OutcomeBeats(fits_slow, over, true));
  CHECK_FALSE(OutcomeBeats(over, fits_slow, true));
  CHECK(OutcomeBeats(fits_fast, fits_slow, true));  // 150 < 200 ns, whatever the arena
  // Neither fits: the lower live peak (nearer the budget in live bytes) wins.
  CHECK(OutcomeBeats(Made(false, 500, 130, 100), over, true));
  // Overhead mode: the smaller arena first, then the makespan.
  CHECK(OutcomeBeats(fits_slow, fits_fast, false));  // 90 < 100 B
  // Equal outcomes: neither beats the other (the earlier is kept).
  CHECK_FALSE(OutcomeBeats(fits_fast, fits_fast, true));
  // Ties, budget mode: equal makespans, then fewer bytes moved, then the smaller arena;
  // neither fitting with equal live peaks, the smaller arena.
  Outcome moved_less = Made(true, 150, 120, 90);
  Outcome moved_more = Made(true, 150, 100, 90);
  moved_less.evaluation.timeline.bytes_moved_per_link = {10, 20};
  moved_more.evaluation.timeline.bytes_moved_per_link = {10, 21};
  CHECK(OutcomeBeats(moved_less, moved_more, true));              // 30 < 31 B, whatever the arena
  CHECK(OutcomeBeats(Made(true, 150, 99, 90), fits_fast, true));  // 99 < 100 B
  CHECK(OutcomeBeats(Made(false, 500, 119, 110), over, true));    // 119 < 120 B
  // Overhead mode, equal arenas: the faster.
  CHECK(OutcomeBeats(Made(true, 140, 100, 90), fits_fast, false));
}

TEST_CASE("retime: a link busy 99% of the iteration binds it, 98% does not") {
  const HardwareProfile profile = UnitProfile();
  // A 100 ns iteration of 10 ns of compute (the rest waits) and, on link 1 (ddr -> hbm), a
  // Prefetch of 99 B or 98 B at 1 byte/ns: busy 99 or 98 of the 100 ns, more than compute.
  // 99 x 100 >= 100 x 99 holds; 98 x 100 >= 100 x 99 does not.
  for (const int64_t bytes : {99, 98}) {
    EvaluatedPlan planned;
    Plan& plan = planned.plan;
    SimulationResult& timeline = planned.evaluation.timeline;
    plan.order = {0};
    plan.steps = {TransferStep(StepKind::kPrefetch, 1, 0, {}, bytes), ComputeStep(0, {0})};
    timeline.makespan_ns = 100;
    timeline.compute_ns = 10;
    timeline.steps.resize(2);
    timeline.steps[0].start_ns = 0;
    timeline.steps[0].end_ns = bytes;
    timeline.steps[1].start_ns = 90;
    timeline.steps[1].end_ns = 100;
    INFO(bytes << " B");
    CHECK(LinkSaturated(profile, planned) == (bytes == 99));
  }
}

// In budget mode two chains run (plain and hoisted); their round 0 replans from the same plan,
// so ReplanOnRunTimeline finds its context once and each chain takes a copy: each chain still
// gets the axis its own chain would have found, its own hoisting flag, and a context equal to a
// fresh RetimedContext on that axis.
TEST_CASE("retime: both chains' round 0 replans in the shared context, each with its own flag") {
  Graph graph;
  const ValueId x = Work(graph, "n0", {}, "x", 10, 1);
  Work(graph, "n1", {x}, "y", 10, 1);
  const HardwareProfile profile = UnitProfile();
  const PlanContext context = BuildContext(graph, profile, ModelOrder(graph), {}, {});
  std::mutex mutex;
  std::map<bool, std::vector<std::vector<int64_t>>> axes_by_hoist;  // each chain's rounds
  std::map<bool, size_t> candidates_by_hoist;                       // in its round 0
  // Every round returns a 2000 ns plan, slower than the first (1000 ns): no round gains, so
  // each chain runs its two rounds, round 1 on the 2000 ns plan's axis {0, 1999, 2000}.
  const Outcome kept = ReplanOnRunTimeline(context, Stalled(1000), true, [&](const PlanContext& c) {
    const std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::vector<int64_t>>& axes = axes_by_hoist[c.hoist_prefetches];
    if (axes.empty()) candidates_by_hoist[c.hoist_prefetches] = c.candidates.candidates.size();
    axes.push_back(c.cost.step_start_ns);
    return Stalled(2000);
  });
  CHECK(kept.evaluation.timeline.makespan_ns == 1000);
  // Stalled(1000)'s axis: n0 at 0, n1 at 999, the end at 1000.
  const std::vector<std::vector<int64_t>> expected = {{0, 999, 1000}, {0, 1999, 2000}};
  CHECK(axes_by_hoist[false] == expected);
  CHECK(axes_by_hoist[true] == expected);
  const PlanContext fresh = RetimedContext(context, {0, 999, 1000});
  CHECK(candidates_by_hoist[false] == fresh.candidates.candidates.size());
  CHECK(candidates_by_hoist[true] == fresh.candidates.candidates.size());
}

// No chain from a plan the route pass rewrites (ReplanUnlessRouted): on support/routed_moe.h,
// the hand plan streaming fc1 whole runs 1000 + 16384 + 3000 = 20384 ns against 8000 ns of
// compute, its link busy 17384 ns (85%, not saturated), so a chain would replan it on its run's
// axis {0, 17384, 20384} (moe waits for the fetch) instead of {0, 5000, 8000}; but routed, fc1
// moves 4096 B after the router (13096 ns), another timeline. Each replan here returns the seed
// again (no gain, and its axis repeats): one round where the chain runs, none where it does not.
TEST_CASE("retime: no replanning round from a plan whose experts the route pass fetches") {
  const testing::RoutedMoe f;
  const PlanContext context =
      BuildContext(f.graph, f.profile, ModelOrder(f.graph),
                   {testing::RoutedMoe::kRouteNs, testing::RoutedMoe::kMoeNs}, {});
  auto rounds_from = [&](const Plan& plan, const PlanOptions& options) {
    Outcome seed;
    static_cast<EvaluatedPlan&>(seed) = f.Finish(plan);
    size_t rounds = 0;
    const Outcome kept = ReplanUnlessRouted(context, options, seed, false, [&](const PlanContext&) {
      ++rounds;
      return seed;
    });
    CHECK(kept.evaluation.timeline.makespan_ns == seed.evaluation.timeline.makespan_ns);
    return rounds;
  };
  const Plan whole = f.HandPlan(false, 16384, 16384);
  REQUIRE(f.Finish(whole).evaluation.timeline.makespan_ns == 20384);
  PlanOptions options;
  CHECK(rounds_from(whole, options) == 0);
  // Already routed: nothing to rewrite, the chain runs (route 5000, fetch 1000 + 4096, moe
  // 3000: 13096 ns against 8000 of compute).
  CHECK(rounds_from(f.HandPlan(true, 4096, 4096), options) == 1);
  options.route_fetch = false;  // the whole Prefetch stays: its run's timeline is the plan's
  CHECK(rounds_from(whole, options) == 1);
}
