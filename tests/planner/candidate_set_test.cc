// What a candidate set keeps for its assemblies and refines (candidates.h): the order of a
// plan's decisions (DecisionOrder) and the index of every candidate's cover (CoverIndex); by
// hand.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "hyperplan/planner/stabbing_index.h"
#include "planner/candidates.h"

namespace hyperplan::planner_test {
namespace {

using planner::Candidate;
using planner::CandidateSet;

Candidate Gap(ValueId value, Step after_step) {
  Candidate candidate;
  candidate.value = value;
  candidate.after_step = after_step;
  return candidate;
}

Candidate Covering(Step first, Step last) {
  Candidate candidate;
  candidate.cover_first = first;
  candidate.cover_last = last;
  return candidate;
}

Decision Pinned(ValueId value) {
  Decision decision;
  decision.value = value;
  decision.gap_after_step = -1;
  return decision;
}

TEST_CASE("decision order: by value, then the step the gap follows, then index") {
  CandidateSet set;
  // Candidates 0..3 in rank order; pinned decisions are indices 4 and 5.
  set.candidates = {Gap(3, 5), Gap(1, 2), Gap(3, -1), Gap(1, 2)};
  set.pinned = {Pinned(2), Pinned(1)};
  // Keys (value, after, index): (3,5,0) (1,2,1) (3,-1,2) (1,2,3) (2,-1,4) (1,-1,5). Sorted:
  // value 1: (1,-1,5), then the two gaps after step 2 in index order (1 before 3); value 2:
  // the pinned 4; value 3: the leading gap 2 (after -1) before 0 (after 5).
  CHECK(planner::DecisionOrder(set) == std::vector<int32_t>{5, 1, 3, 4, 2, 0});
}

TEST_CASE("decision order: an empty set has none") {
  CHECK(planner::DecisionOrder(CandidateSet{}).empty());
}

TEST_CASE("cover index: a candidate dead from the start answers nothing, as if not indexed") {
  // Refine copies the set's index of every candidate; one dead from the start (a must_take
  // taken before the greedy, or one the oracle does not allow) must never be answered.
  // Ranks 0..3 cover steps [0, 5], [2, 3], [4, 9], [3, 3] of 10; rank 0 and 3 are dead.
  const std::vector<Candidate> candidates = {Covering(0, 5), Covering(2, 3), Covering(4, 9),
                                             Covering(3, 3)};
  StabbingIndex index = planner::CoverIndex(candidates, 10);
  CHECK(index.step_count() == 10);
  const std::vector<uint8_t> alive = {0, 1, 1, 0};
  CHECK(index.PopBest(3, alive).rank == 1);   // 0 and 3 cover step 3 too, dead
  CHECK(index.PopBest(3, alive).rank == -1);  // 1 popped there: nothing else is alive at 3
  CHECK(index.PopBest(5, alive).rank == 2);   // 0 covers 5, dead: the next live is 2
  CHECK(index.PopBest(0, alive).rank == -1);  // only 0 covers step 0
  CHECK(index.PopBest(9, alive).rank == -1);  // 2 was popped from its node over 5..9
}

}  // namespace
}  // namespace hyperplan::planner_test
