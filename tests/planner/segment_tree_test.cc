// RangeMaxTree against a plain array: random adds and queries with fixed seeds.
#include "hyperplan/planner/segment_tree.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <random>
#include <vector>

using namespace hyperplan;

TEST_CASE("segment tree: small worked example") {
  RangeMaxTree tree({5, 1, 7, 7, 2});
  CHECK(tree.Max(0, 4) == 7);
  CHECK(tree.MaxAt(0, 4).index == 2);  // the first of the two 7s
  tree.Add(2, 3, -3);                  // 5 1 4 4 2
  CHECK(tree.MaxAt(0, 4).value == 5);
  CHECK(tree.MaxAt(0, 4).index == 0);
  tree.Add(1, 4, 2);  // 5 3 6 6 4
  CHECK(tree.MaxAt(1, 4).value == 6);
  CHECK(tree.MaxAt(1, 4).index == 2);
  CHECK(tree.Max(3, 4) == 6);           // max(6, 4)
  CHECK(tree.Max(0, 1) == 5);           // max(5, 3)
  CHECK(tree.LastAbove(0, 4, 5) == 3);  // the last value over 5 is index 3 (6)
  CHECK(tree.LastAbove(0, 1, 5) == -1);
  CHECK(tree.Values() == std::vector<int64_t>{5, 3, 6, 6, 4});
  CHECK(tree.Max(3, 2) == std::numeric_limits<int64_t>::min());  // empty range
}

TEST_CASE("segment tree: matches a naive array under random operations") {
  for (uint32_t seed : {1u, 2u, 3u, 42u}) {
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    const int size = 1 + static_cast<int>(rng() % 200);
    std::vector<int64_t> naive(size);
    for (auto& v : naive) v = static_cast<int64_t>(rng() % 1000) - 500;
    RangeMaxTree tree(naive);
    for (int op = 0; op < 2000; ++op) {
      int first = static_cast<int>(rng() % size);
      int last = static_cast<int>(rng() % size);
      if (first > last) std::swap(first, last);
      switch (rng() % 4) {
        case 0: {
          const int64_t delta = static_cast<int64_t>(rng() % 201) - 100;
          tree.Add(first, last, delta);
          for (int i = first; i <= last; ++i) naive[i] += delta;
          break;
        }
        case 1: {
          const auto peak = tree.MaxAt(first, last);
          const auto it = std::max_element(naive.begin() + first, naive.begin() + last + 1);
          REQUIRE(peak.value == *it);
          REQUIRE(peak.index == static_cast<int>(it - naive.begin()));  // first maximum
          REQUIRE(tree.Max(first, last) == *it);  // its own descent, not MaxAt's
          break;
        }
        case 2: {
          const int64_t threshold = static_cast<int64_t>(rng() % 1000) - 500;
          int expected = -1;
          for (int i = last; i >= first; --i) {
            if (naive[i] > threshold) {
              expected = i;
              break;
            }
          }
          REQUIRE(tree.LastAbove(first, last, threshold) == expected);
          break;
        }
        default:
          REQUIRE(tree.Get(first) == naive[first]);
          break;
      }
    }
    REQUIRE(tree.Values() == naive);
  }
}
