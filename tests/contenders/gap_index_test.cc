// GapIndex: best-ranked untaken interval containing a step, against a linear scan.
#include "contenders/gap_index.h"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

namespace hyperplan::contenders_test {
namespace {

TEST_CASE("gap index: hand example") {
  contenders::GapIndex index(10);
  index.Add(0, 2, 4);  // rank 0 covers steps 2..4
  index.Add(1, 0, 9);
  index.Add(2, 3, 3);
  CHECK(index.Best(3) == 0);
  CHECK(index.Best(0) == 1);
  index.Take(0);
  CHECK(index.Best(3) == 1);
  index.Take(1);
  CHECK(index.Best(3) == 2);
  CHECK(index.Best(5) == -1);
}

TEST_CASE("gap index agrees with a linear scan (seed 7)") {
  std::mt19937 rng(7);
  const int32_t steps = 37;
  contenders::GapIndex index(steps);
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
  std::vector<bool> taken(intervals.size(), false);
  for (int round = 0; round < 300; ++round) {
    const auto step = static_cast<int32_t>(rng() % steps);
    int32_t expected = -1;
    for (size_t r = 0; r < intervals.size(); ++r) {
      if (!taken[r] && intervals[r].first <= step && step <= intervals[r].last) {
        expected = static_cast<int32_t>(r);
        break;
      }
    }
    REQUIRE(index.Best(step) == expected);
    if (expected >= 0) {
      index.Take(expected);
      taken[expected] = true;
    }
  }
}

}  // namespace
}  // namespace hyperplan::contenders_test
