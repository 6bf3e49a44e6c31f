// StabbingIndex: the best-ranked live interval containing a step, by hand and against a linear
// scan. Its two callers: refine (candidates by rank; tests/planner) and the op-distance
// contender (gaps by size; tests/contenders/op_distance_test.cc).
#include "hyperplan/planner/stabbing_index.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <utility>
#include <vector>

namespace hyperplan::planner_test {
namespace {

TEST_CASE("stabbing index: hand example") {
  StabbingIndex index(10);
  index.Add(0, 2, 4);  // rank 0 covers steps 2..4
  index.Add(1, 0, 9);  // rank 1 covers every step
  index.Add(2, 3, 3);
  index.Add(3, 12, 15);  // outside the steps: never returned
  std::vector<uint8_t> alive(4, 1);
  // Step 3 lies in ranks 0, 1 and 2: the best (lowest) is 0.
  const StabbingIndex::Entry first = index.PopBest(3, alive);
  CHECK(first.rank == 0);
  // Popped at step 3 only: still alive, rank 0 no longer answers step 3 (its node there is
  // the one it was popped from) until it is pushed back.
  CHECK(index.PopBest(3, alive).rank == 1);
  index.PushBack(first);
  CHECK(index.PopBest(3, alive).rank == 0);
  alive[0] = 0;  // taken: gone from every step, lazily
  // Rank 1 sat in the root alone and was popped there (never pushed back): step 2 has nothing.
  CHECK(index.PopBest(2, alive).rank == -1);
  CHECK(index.PopBest(3, alive).rank == 2);
  CHECK(index.PopBest(5, alive).rank == -1);
  CHECK(index.PopBest(-1, alive).rank == -1);
  CHECK(index.PopBest(10, alive).rank == -1);
}

TEST_CASE("stabbing index: an empty index answers nothing") {
  StabbingIndex index(0);
  index.Add(0, 0, 3);
  CHECK(index.PopBest(0, std::vector<uint8_t>{1}).rank == -1);
}

TEST_CASE("stabbing index: popping and taking agrees with a linear scan (seed 7)") {
  std::mt19937 rng(7);
  const int32_t steps = 37;
  StabbingIndex index(steps);
  struct Interval {
    int32_t first, last;
  };
  std::vector<Interval> intervals;
  for (int32_t rank = 0; rank < 200; ++rank) {
    const auto a = static_cast<int32_t>(rng() % steps);
    const auto b = static_cast<int32_t>(rng() % steps);
    intervals.push_back({std::min(a, b), std::max(a, b)});
    index.Add(rank, intervals.back().first, intervals.back().last);
  }
  std::vector<uint8_t> alive(intervals.size(), 1);
  for (int round = 0; round < 300; ++round) {
    const auto step = static_cast<int32_t>(rng() % steps);
    int32_t expected = -1;
    for (size_t r = 0; r < intervals.size(); ++r) {
      if (alive[r] && intervals[r].first <= step && step <= intervals[r].last) {
        expected = static_cast<int32_t>(r);
        break;
      }
    }
    REQUIRE(index.PopBest(step, alive).rank == expected);
    if (expected >= 0) alive[expected] = 0;  // the op-distance use: pop, then take
  }
}

TEST_CASE("stabbing index: popping, putting back and killing agrees with a linear scan") {
  // The refine's use: popped entries are put back or their rank killed, and a kill lands while
  // dead ranks still sit under live tops. A rank popped at a step and not yet put back is out
  // of that step's answers (it sits in one node on the step's path).
  std::mt19937 rng(11);
  const int32_t steps = 29;
  const int32_t ranks = 150;
  StabbingIndex index(steps);
  std::vector<std::pair<int32_t, int32_t>> cover;  // [first, last] by rank
  for (int32_t rank = 0; rank < ranks; ++rank) {
    const auto a = static_cast<int32_t>(rng() % steps);
    const auto b = static_cast<int32_t>(rng() % steps);
    cover.emplace_back(std::min(a, b), std::max(a, b));
    index.Add(rank, cover.back().first, cover.back().second);
  }
  std::vector<uint8_t> alive(ranks, 1);
  for (int round = 0; round < 400; ++round) {
    const auto step = static_cast<int32_t>(rng() % steps);
    std::vector<StabbingIndex::Entry> held;  // popped this round, all put back at its end
    for (int pop = 0; pop < 3; ++pop) {
      int32_t expected = -1;  // the lowest live rank covering `step`, not held
      for (int32_t r = 0; r < ranks && expected < 0; ++r) {
        bool is_held = false;
        for (const StabbingIndex::Entry& entry : held) is_held |= entry.rank == r;
        if (alive[r] && !is_held && cover[r].first <= step && step <= cover[r].second) {
          expected = r;
        }
      }
      const StabbingIndex::Entry entry = index.PopBest(step, alive);
      REQUIRE(entry.rank == expected);
      if (entry.rank >= 0) held.push_back(entry);
    }
    for (const StabbingIndex::Entry& entry : held) index.PushBack(entry);
    // Kill a random rank (often one not at any top): a later query must skip it.
    alive[rng() % ranks] = 0;
  }
}

TEST_CASE("stabbing index: adding between queries agrees with a linear scan") {
  // The refine's index of committed gaps: intervals join while queries run, in any rank order,
  // so a node's heap outgrows its slice (4, then 8, 16, ...) and moves. 24 steps, ranks 0..299
  // shuffled, each added over a random range, with a query, a put-back and a kill between adds.
  std::mt19937 rng(5);
  const int32_t steps = 24;
  const int32_t ranks = 300;
  StabbingIndex index(steps);
  std::vector<std::pair<int32_t, int32_t>> cover(ranks);
  std::vector<uint8_t> added(ranks, 0);
  std::vector<uint8_t> alive(ranks, 1);
  std::vector<int32_t> order(ranks);
  for (int32_t rank = 0; rank < ranks; ++rank) order[rank] = rank;
  std::shuffle(order.begin(), order.end(), rng);
  for (const int32_t rank : order) {
    const auto a = static_cast<int32_t>(rng() % steps);
    const auto b = static_cast<int32_t>(rng() % steps);
    cover[rank] = {std::min(a, b), std::max(a, b)};
    index.Add(rank, cover[rank].first, cover[rank].second);
    added[rank] = 1;
    const auto step = static_cast<int32_t>(rng() % steps);
    int32_t expected = -1;  // the lowest added, live rank covering `step`
    for (int32_t r = 0; r < ranks && expected < 0; ++r) {
      if (added[r] && alive[r] && cover[r].first <= step && step <= cover[r].second) expected = r;
    }
    const StabbingIndex::Entry entry = index.PopBest(step, alive);
    REQUIRE(entry.rank == expected);
    if (entry.rank >= 0) index.PushBack(entry);
    if (rng() % 4 == 0) alive[order[rng() % ranks]] = 0;  // often one not added yet
  }
  // Every step's answers, popped in turn until none: ascending live ranks covering it.
  for (int32_t step = 0; step < steps; ++step) {
    std::vector<StabbingIndex::Entry> popped;
    for (int32_t r = 0; r < ranks; ++r) {
      if (!alive[r] || cover[r].first > step || step > cover[r].second) continue;
      const StabbingIndex::Entry entry = index.PopBest(step, alive);
      REQUIRE(entry.rank == r);
      popped.push_back(entry);
    }
    CHECK(index.PopBest(step, alive).rank == -1);
    for (const StabbingIndex::Entry& entry : popped) index.PushBack(entry);
  }
}

}  // namespace
}  // namespace hyperplan::planner_test
