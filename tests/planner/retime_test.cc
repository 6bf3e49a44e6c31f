// Replanning on the run's timeline (planner/retime.h): when another round runs, what counts
// as a gain, which outcome beats which, and when a link binds, by hand.
#include "planner/retime.h"

#include <catch2/catch.hpp>

#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner;
using namespace hyperplan::planner_test;

namespace {

Outcome Made(bool feasible, int64_t makespan_ns, int64_t arena_bytes, int64_t live_peak_bytes) {
  Outcome outcome;
  outcome.feasible = feasible;
  outcome.plan.timeline.makespan_ns = makespan_ns;
  outcome.plan.layout.arena_bytes = arena_bytes;
  outcome.selection.live_peak_bytes = live_peak_bytes;
  return outcome;
}

}  // namespace

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
}

TEST_CASE("retime: a link busy 99% of the iteration binds it, 98% does not") {
  const HardwareProfile profile = UnitProfile();
  // A 100 ns iteration of 10 ns of compute (the rest waits) and, on link 1 (ddr -> hbm), a
  // Prefetch of 99 B or 98 B at 1 byte/ns: busy 99 or 98 of the 100 ns, more than compute.
  // 99 x 100 >= 100 x 99 holds; 98 x 100 >= 100 x 99 does not.
  for (const int64_t bytes : {99, 98}) {
    Plan plan;
    plan.order = {0};
    plan.steps = {TransferStep(StepKind::kPrefetch, 1, 0, {}, bytes), ComputeStep(0, {0})};
    plan.timeline.makespan_ns = 100;
    plan.timeline.compute_ns = 10;
    plan.timeline.steps.resize(2);
    plan.timeline.steps[0].start_ns = 0;
    plan.timeline.steps[0].end_ns = bytes;
    plan.timeline.steps[1].start_ns = 90;
    plan.timeline.steps[1].end_ns = 100;
    INFO(bytes << " B");
    CHECK(LinkSaturated(profile, plan) == (bytes == 99));
  }
}
