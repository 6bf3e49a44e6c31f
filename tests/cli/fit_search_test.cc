// fit's search and ranges in process: how many values the search tests, where it stops, and
// how --grow and --sweep values parse. Counts are worked out beside each check.
#include "cli/fit_search.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/fit_range.h"

using hyperplan::cli::GrowRange;
using hyperplan::cli::LargestPassing;
using hyperplan::cli::ParseDimValue;
using hyperplan::cli::ParseGrowRange;
using hyperplan::cli::ParseSweepRange;
using hyperplan::cli::SearchOutcome;
using hyperplan::cli::SweepRange;

namespace {

// The search against "value <= threshold".
SearchOutcome Search(int64_t min, int64_t max, int64_t threshold) {
  return LargestPassing(min, max, [threshold](int64_t value) { return value <= threshold; });
}

}  // namespace

TEST_CASE("search: doubling brackets the answer, bisection closes it") {
  const SearchOutcome outcome = Search(1, 1 << 24, 1000);
  CHECK(outcome.found);
  CHECK(outcome.answer == 1000);
  CHECK(outcome.first_failing == 1001);
  // 1, 2, ..., 512 pass and 1024 fails: 11 tests. (512, 1024) halves to one value in
  // log2(512) = 9 tests: 768, 896, 960, 992 yes, 1008 no, 1000 yes, 1004, 1002, 1001 no: 20.
  CHECK(outcome.probed.size() == 20);
  CHECK(std::vector<int64_t>(outcome.probed.begin(), outcome.probed.begin() + 12) ==
        std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 768});
  // No value twice.
  std::vector<int64_t> sorted = outcome.probed;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
}

TEST_CASE("search: about 2 log2(answer / min) tests whatever the answer") {
  for (int64_t threshold : {1, 2, 3, 100, 4095, 4096, 65'537, 1'000'000}) {
    const SearchOutcome outcome = Search(1, int64_t{1} << 40, threshold);
    CHECK(outcome.answer == threshold);
    // Doubling: floor(log2 T) + 2 tests (1 .. 2^k <= T, then 2^(k+1)); bisection of
    // (2^k, 2^(k+1)): k tests. 2k + 2 in all.
    int k = 0;
    while ((int64_t{2} << k) <= threshold) ++k;
    CHECK(outcome.probed.size() == static_cast<size_t>(2 * k + 2));
  }
}

TEST_CASE("search: the ends of the range") {
  SECTION("nothing passes: one test") {
    const SearchOutcome outcome = Search(10, 100, 5);
    CHECK_FALSE(outcome.found);
    CHECK(outcome.first_failing == 10);
    CHECK(outcome.probed == std::vector<int64_t>{10});
  }
  SECTION("everything passes: the top, no failing value") {
    const SearchOutcome outcome = Search(3, 100, 1'000);
    CHECK(outcome.answer == 100);
    CHECK_FALSE(outcome.first_failing.has_value());
    // 3, 6, 12, 24, 48, 96, then the cap 100.
    CHECK(outcome.probed == std::vector<int64_t>{3, 6, 12, 24, 48, 96, 100});
  }
  SECTION("from 0") {
    const SearchOutcome outcome = Search(0, 100, 0);
    CHECK(outcome.answer == 0);
    CHECK(outcome.probed == std::vector<int64_t>{0, 1});
  }
  SECTION("the cap fails: bisection below it") {
    const SearchOutcome outcome = Search(1, 100, 99);
    CHECK(outcome.answer == 99);
    CHECK(outcome.first_failing == 100);
  }
}

TEST_CASE("ranges: values with k, M, G") {
  std::string problem;
  CHECK(ParseDimValue("4k", problem) == 4096);
  CHECK(ParseDimValue("128k", problem) == 131'072);
  CHECK(ParseDimValue("1M", problem) == 1'048'576);
  CHECK(ParseDimValue("2G", problem) == 2'147'483'648);
  CHECK(ParseDimValue("37", problem) == 37);
  for (const char* bad : {"", "k", "4x", "-1", "1.5k", "99999999999999999999"}) {
    problem.clear();
    CHECK_FALSE(ParseDimValue(bad, problem).has_value());
    CHECK_THAT(problem, Catch::Contains("is not a dim value"));
  }
}

TEST_CASE("ranges: --grow and --sweep") {
  std::string problem;
  const std::optional<GrowRange> grow = ParseGrowRange("past_sequence", problem);
  REQUIRE(grow);
  CHECK(grow->dim == "past_sequence");
  CHECK(grow->min == 1);
  CHECK(grow->max == int64_t{1} << 24);
  const std::optional<GrowRange> bounded = ParseGrowRange("batch=2..64", problem);
  REQUIRE(bounded);
  CHECK(bounded->min == 2);
  CHECK(bounded->max == 64);

  const std::optional<SweepRange> doubling = ParseSweepRange("past_sequence=4k..128k", problem);
  REQUIRE(doubling);
  CHECK(doubling->Values() == std::vector<int64_t>{4096, 8192, 16'384, 32'768, 65'536, 131'072});
  const std::optional<SweepRange> stepped = ParseSweepRange("s=10..35:10", problem);
  REQUIRE(stepped);
  CHECK(stepped->Values() == std::vector<int64_t>{10, 20, 30, 35});
  const std::optional<SweepRange> single = ParseSweepRange("s=7..7", problem);
  REQUIRE(single);
  CHECK(single->Values() == std::vector<int64_t>{7});

  for (const char* bad : {"=1..2", "s=", "s=5..1", "s=1-2", "s=0..8", "s=1..2:0", "s=1..300:1"}) {
    problem.clear();
    CHECK_FALSE(ParseSweepRange(bad, problem).has_value());
    CHECK_FALSE(problem.empty());
  }
  problem.clear();
  CHECK_FALSE(ParseGrowRange("s=9..3", problem).has_value());
  CHECK_THAT(problem, Catch::Contains("runs backwards"));
}
