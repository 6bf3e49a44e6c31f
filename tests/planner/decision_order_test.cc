// DecisionOrder (candidates.h): the order of a plan's decisions, kept with the candidate set so
// that assembly does not sort them each time; by hand.
#include <catch2/catch.hpp>
#include <vector>

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

}  // namespace
}  // namespace hyperplan::planner_test
