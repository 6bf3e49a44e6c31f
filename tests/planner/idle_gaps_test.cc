// Idle gaps: the one enumeration behind the planner's candidates and the op-distance
// contender's gaps, by hand.
#include "hyperplan/planner/idle_gaps.h"

#include <catch2/catch.hpp>
#include <vector>

namespace hyperplan::planner_test {
namespace {

TEST_CASE("idle gaps: a produced value read twice") {
  Value value;
  value.producer = 0;
  Lifetime lifetime;
  lifetime.def_step = 1;
  lifetime.use_steps = {3, 3, 6};  // two consumers at step 3: one required step
  const std::vector<Step> required = RequiredSteps(value, lifetime);
  CHECK(required == std::vector<Step>{1, 3, 6});
  // A run of 10 steps: a leading gap before step 1, inner gaps 1..3 and 3..6, and a trailing
  // gap from 6 to the end (step 10: none).
  const std::vector<IdleGap> gaps = IdleGaps(required, 10);
  REQUIRE(gaps.size() == 4);
  CHECK(
      (gaps[0].kind == GapKind::kLeading && gaps[0].after_step == -1 && gaps[0].before_step == 1));
  CHECK((gaps[1].kind == GapKind::kInner && gaps[1].after_step == 1 && gaps[1].before_step == 3));
  CHECK((gaps[2].kind == GapKind::kInner && gaps[2].after_step == 3 && gaps[2].before_step == 6));
  CHECK(
      (gaps[3].kind == GapKind::kTrailing && gaps[3].after_step == 6 && gaps[3].before_step == 10));
}

TEST_CASE("idle gaps: a weight nothing reads has one gap over the whole run") {
  Value weight;  // no producer: owned outside the run
  Lifetime lifetime;
  const std::vector<Step> required = RequiredSteps(weight, lifetime);
  CHECK(required.empty());
  const std::vector<IdleGap> gaps = IdleGaps(required, 5);
  REQUIRE(gaps.size() == 1);
  CHECK(
      (gaps[0].kind == GapKind::kWholeRun && gaps[0].after_step == -1 && gaps[0].before_step == 5));
}

TEST_CASE("idle gaps: a weight read once, at the last step") {
  Value weight;
  Lifetime lifetime;
  lifetime.use_steps = {4};
  // Required at step 4 only (no producer step): leading -1..4, trailing 4..5 (empty: the
  // callers give it no step to free).
  const std::vector<IdleGap> gaps = IdleGaps(RequiredSteps(weight, lifetime), 5);
  REQUIRE(gaps.size() == 2);
  CHECK((gaps[0].kind == GapKind::kLeading && gaps[0].before_step == 4));
  CHECK(
      (gaps[1].kind == GapKind::kTrailing && gaps[1].after_step == 4 && gaps[1].before_step == 5));
}

}  // namespace
}  // namespace hyperplan::planner_test
