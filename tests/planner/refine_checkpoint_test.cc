// A refine resumed where an earlier one met its target (refine.h RefineCheckpoint) selects what
// a refine run from the start selects: the budget rounds' second round goes on from the first's
// checkpoint instead of cutting to the same targets again (modes.h). Unit rates
// (planner_support.h).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "planner/context.h"
#include "planner/refine.h"
#include "planner_support.h"
#include "random_graphs.h"
#include "selection_dump.h"

using namespace hyperplan;
using namespace hyperplan::planner;
using namespace hyperplan::planner_test;

namespace {

// Round 0 (no free cuts) recording its checkpoint, then round 1 (free cuts, the same targets)
// both resumed from it and from the start: the two round-1 selections as dumps.
struct RoundOneTwice {
  bool recorded = false;
  bool placed_before_target = false;  // round 0 took placements before it met its targets
  std::string resumed;
  std::string fresh;
};

RoundOneTwice PlanRoundOneTwice(const PlanContext& context, const std::vector<int64_t>& targets,
                                Choice choice) {
  RefineRequest request;
  request.choice = choice;
  request.step_targets = &targets;
  RefineCheckpoint checkpoint;
  const Selection round_zero = Refine(context, request, &checkpoint);
  RoundOneTwice twice;
  twice.recorded = checkpoint.state != nullptr;
  twice.placed_before_target = !round_zero.placements.empty();
  CHECK(twice.recorded == round_zero.reached_target);  // recorded exactly where it is met
  request.free_cuts_after_target = true;
  twice.fresh = DumpSelection(Refine(context, request));
  if (twice.recorded) twice.resumed = DumpSelection(ResumeRefine(request, std::move(checkpoint)));
  return twice;
}

}  // namespace

TEST_CASE("refine checkpoint: a target met at once resumes into the free cuts") {
  // n0 () -> x 200 B; n1 (x) -> t 100 B; n2 (t, z) -> y 300 B; n3 (y, w) -> out 100 B, weights
  // z and w of 100 B, 1 ns each (budget_rounds_test.cc's chain). Live bytes: step 0 z w x = 400,
  // step 1 z w x t = 500, step 2 z w t y = 600, step 3 w y out = 500: under a 700 B target at
  // every step, so round 0 records its checkpoint before placing anything, and round 1's free
  // cuts start from it.
  Graph graph;
  const ValueId z = Weight(graph, "z", 100);
  const ValueId w = Weight(graph, "w", 100);
  const ValueId x = Work(graph, "n0", {}, "x", 200, 1);
  const ValueId t = Work(graph, "n1", {x}, "t", 100, 1);
  const ValueId y = Work(graph, "n2", {t, z}, "y", 300, 1);
  MarkOutput(graph, Work(graph, "n3", {y, w}, "out", 100, 1));
  const HardwareProfile profile = UnitProfile();
  const PlanContext context = BuildContext(graph, profile, ModelOrder(graph), {}, {});
  const std::vector<int64_t> targets(4, 700);
  RefineRequest request;
  request.step_targets = &targets;
  RefineCheckpoint checkpoint;
  const Selection round_zero = Refine(context, request, &checkpoint);
  REQUIRE(checkpoint.state != nullptr);
  CHECK(round_zero.placements.empty());  // the 600 B peak is under 700 B from the start
  CHECK(round_zero.live_peak_bytes == 600);
  const RoundOneTwice twice = PlanRoundOneTwice(context, targets, Choice::kLeastStall);
  REQUIRE(twice.recorded);
  CHECK(twice.resumed == twice.fresh);
}

TEST_CASE("refine checkpoint: random DAGs, resumed round 1 equals round 1 from the start") {
  RandomGraphShape shape;
  shape.nodes = 24;
  shape.weight_percent = 50;
  int recorded = 0;
  int with_cuts_before_target = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    const Graph graph = RandomDag(seed, shape);
    for (int64_t device_bytes : {int64_t{1} << 40, int64_t{600}}) {
      const HardwareProfile profile = UnitProfile(device_bytes, 2);
      const PlanContext context = BuildContext(graph, profile, ModelOrder(graph), {}, {});
      const int64_t peak_bytes = context.lifetimes.timeline.peak_bytes;
      // Targets at 60% of the peak: round 0 must cut before it meets them, or gets stuck.
      const std::vector<int64_t> targets(static_cast<size_t>(context.step_count()),
                                         peak_bytes * 6 / 10);
      for (Choice choice : {Choice::kLeastStall, Choice::kMostBytes}) {
        INFO("seed " << seed << ", device " << device_bytes << " B, choice "
                     << static_cast<int>(choice));
        const RoundOneTwice twice = PlanRoundOneTwice(context, targets, choice);
        if (!twice.recorded) continue;
        ++recorded;
        if (twice.placed_before_target) ++with_cuts_before_target;
        CHECK(twice.resumed == twice.fresh);
      }
    }
  }
  // Not vacuous: of the 160 refines, some meet their targets, and some of those only after
  // cutting (targets at 60% of the peak), so the checkpoint holds placements.
  CHECK(recorded >= 10);
  CHECK(with_cuts_before_target >= 10);
}

namespace {

// Refines at `targets` (one uniform target each, descending), each resumed from the state the
// one before met its target in (ResumeRefineLowered), against each from the start: how many
// resumed, and whether every resumed selection was the fresh one's.
struct Lowered {
  int resumed = 0;
  int with_cuts_between = 0;  // resumed refines that placed more than the state they went on from
  bool same = true;
};

Lowered PlanLowered(const PlanContext& context, const std::vector<int64_t>& uniform_targets,
                    Choice choice) {
  Lowered lowered;
  RefineCheckpoint from;
  size_t from_placements = 0;
  for (size_t t = 0; t < uniform_targets.size(); ++t) {
    const int64_t target = uniform_targets[t];
    const std::vector<int64_t> targets(static_cast<size_t>(context.step_count()), target);
    RefineRequest request;
    request.choice = choice;
    request.step_targets = &targets;
    RefineCheckpoint record;
    // Every other state recorded without the placements kept for later rounds: the refine
    // resumed from it places them afresh, to the same selection.
    record.without_cache = t % 2 == 1;
    const Selection fresh = Refine(context, request);
    if (from.state != nullptr) {
      const Selection resumed = ResumeRefineLowered(request, from, &record);
      ++lowered.resumed;
      if (resumed.placements.size() > from_placements) ++lowered.with_cuts_between;
      lowered.same = lowered.same && DumpSelection(resumed) == DumpSelection(fresh);
    } else {
      CHECK(DumpSelection(Refine(context, request, &record)) == DumpSelection(fresh));
    }
    if (record.state == nullptr) break;  // this target was not met: nor is a lower one
    CHECK(record.uniform_target_bytes == target);
    from_placements = fresh.placements.size();
    // The first state as the budget rounds keep it for their retries: a copy without the cache.
    from = t == 0 ? record.CopiedWithoutCache() : std::move(record);
  }
  return lowered;
}

}  // namespace

TEST_CASE(
    "refine checkpoint: random DAGs, a lower uniform target resumed equals it from the start") {
  RandomGraphShape shape;
  shape.nodes = 24;
  shape.weight_percent = 50;
  int resumed = 0;
  int with_cuts_between = 0;
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    const Graph graph = RandomDag(seed, shape);
    for (int64_t device_bytes : {int64_t{1} << 40, int64_t{600}}) {
      const HardwareProfile profile = UnitProfile(device_bytes, 2);
      for (bool hoist : {false, true}) {
        PlanContext context = BuildContext(graph, profile, ModelOrder(graph), {}, {});
        context.hoist_prefetches = hoist;  // its margin is the target's: set anew on resuming
        const int64_t peak_bytes = context.lifetimes.timeline.peak_bytes;
        // 90%, 75%, 60% and 45% of the peak: each lower target cuts on from the last one's.
        const std::vector<int64_t> targets = {peak_bytes * 9 / 10, peak_bytes * 3 / 4,
                                              peak_bytes * 6 / 10, peak_bytes * 45 / 100};
        for (Choice choice : {Choice::kLeastStall, Choice::kMostBytes}) {
          INFO("seed " << seed << ", device " << device_bytes << " B, hoist " << hoist
                       << ", choice " << static_cast<int>(choice));
          const Lowered lowered = PlanLowered(context, targets, choice);
          CHECK(lowered.same);
          resumed += lowered.resumed;
          with_cuts_between += lowered.with_cuts_between;
        }
      }
    }
  }
  // Not vacuous: some lower targets were resumed, and some of those placed more on the way.
  // Of the 48 chains of four targets (6 seeds, 2 devices, hoisted or not, 2 choices), at most
  // 144 refines resume (the first of each chain cannot).
  CHECK(resumed >= 60);
  CHECK(with_cuts_between >= 30);
}
