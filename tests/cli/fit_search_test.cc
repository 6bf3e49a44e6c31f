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
using hyperplan::cli::kNeighbourhoodProbes;
using hyperplan::cli::LargestPassing;
using hyperplan::cli::ParseDimValue;
using hyperplan::cli::ParseGrowRange;
using hyperplan::cli::ParseSweepRange;
using hyperplan::cli::SearchOutcome;
using hyperplan::cli::SweepRange;

namespace {

using hyperplan::cli::Probe;

Probe Of(bool passes) { return passes ? Probe::kPasses : Probe::kFails; }

// The search against "value <= threshold", every failure one a larger value might cure.
SearchOutcome Search(int64_t min, int64_t max, int64_t threshold) {
  return LargestPassing(min, max, [threshold](int64_t value) { return Of(value <= threshold); });
}

bool NoValueTwice(std::vector<int64_t> probed) {
  std::sort(probed.begin(), probed.end());
  return std::adjacent_find(probed.begin(), probed.end()) == probed.end();
}

}  // namespace

TEST_CASE("search: monotone, the scan runs to max, bisection closes the bracket") {
  const SearchOutcome outcome = Search(1, 1 << 24, 1000);
  CHECK(outcome.found);
  CHECK(outcome.answer == 1000);
  CHECK(outcome.first_failing == 1001);
  CHECK_FALSE(outcome.failing_below_answer.has_value());
  // Scan: 1, 2, ..., 2^24, 25 values (1 .. 512 pass). Bisection of (512, 1024): 768, 896,
  // 960, 992 yes, 1008 no, 1000 yes, 1004, 1002, 1001 no: 9. Neighbourhood of (1001, 1024):
  // 1001 + 23 j / 5 for j = 4..1: 1019, 1014, 1010, 1005, all no: 4. 38 in all.
  CHECK(outcome.scan_top == 1 << 24);
  CHECK(outcome.neighbourhood_probes == 4);
  CHECK(outcome.probed.size() == 38);
  CHECK(std::vector<int64_t>(outcome.probed.begin() + 24, outcome.probed.begin() + 27) ==
        std::vector<int64_t>{1 << 24, 768, 896});
  CHECK(std::vector<int64_t>(outcome.probed.end() - 4, outcome.probed.end()) ==
        std::vector<int64_t>{1019, 1014, 1010, 1005});
  CHECK(NoValueTwice(outcome.probed));
}

TEST_CASE("search: the answer for every threshold, within the stated cost") {
  for (int64_t threshold : {1, 2, 3, 100, 4095, 4096, 65'537, 1'000'000}) {
    const SearchOutcome outcome = Search(1, int64_t{1} << 40, threshold);
    CHECK(outcome.answer == threshold);
    // Scan: 2^0 .. 2^40, 41 values. Bisection of (2^k, 2^(k+1)) with 2^k <= T: k values; then
    // at most kNeighbourhoodProbes.
    int k = 0;
    while ((int64_t{2} << k) <= threshold) ++k;
    CHECK(outcome.probed.size() <= static_cast<size_t>(41 + k + kNeighbourhoodProbes));
    CHECK(outcome.probed.size() >= static_cast<size_t>(41 + (k > 0 ? 1 : 0)));
    CHECK(NoValueTwice(outcome.probed));
  }
}

TEST_CASE("search: fail, pass, fail finds the largest pass (issue 29's 70B decode)") {
  // Passes at 1..3 and 64..863: the shape of a 70B decode on h200-sxm at --max-overhead 20%.
  // Stopping at the first failure answered 3.
  auto passes = [](int64_t value) { return value <= 3 || (value >= 64 && value <= 863); };
  SECTION("failures a larger value may cure: the scan runs to max") {
    const SearchOutcome outcome =
        LargestPassing(1, 1 << 24, [&](int64_t value) { return Of(passes(value)); });
    CHECK(outcome.answer == 863);
    CHECK(outcome.first_failing == 864);
    // 4, 8, 16, 32 fail below the answer: the largest is 32.
    CHECK(outcome.failing_below_answer == 32);
    // Scan 25; bisection of (512, 1024): 768 yes, 896 no, 832, 848, 856, 860, 862, 863 yes,
    // 864 no: 9 (in that order: 768, 896, 832, 864, 848, 856, 860, 862, 863); neighbourhood of
    // (864, 1024): 864 + 160 j / 5 = 992, 960, 928 (896 was tested): 3. 37 in all.
    CHECK(outcome.neighbourhood_probes == 3);
    CHECK(outcome.probed.size() == 37);
    CHECK(NoValueTwice(outcome.probed));
  }
  SECTION("over budget above 863: two such failures in a row end the scan") {
    const SearchOutcome outcome = LargestPassing(1, 1 << 24, [&](int64_t value) {
      if (value > 863) return Probe::kFailsForGood;
      return Of(passes(value));
    });
    CHECK(outcome.answer == 863);
    // Scan 1 .. 2048 (1024 and 2048 fail for good): 12; then 9 + 3 as above: 24.
    CHECK(outcome.scan_top == 2048);
    CHECK(outcome.probed.size() == 24);
  }
}

TEST_CASE("search: a hole below the answer does not hide it") {
  // Passes up to 1000 except 300..400: the scan's 256 and 512 both pass, so the hole is never
  // probed and the answer is the monotone one.
  const SearchOutcome outcome = LargestPassing(
      1, 1 << 24, [](int64_t value) { return Of(value <= 1000 && (value < 300 || value > 400)); });
  CHECK(outcome.answer == 1000);
  CHECK(outcome.first_failing == 1001);
  CHECK_FALSE(outcome.failing_below_answer.has_value());
}

TEST_CASE("search: the neighbourhood finds a pass bisection stepped over") {
  // Passes at 1..100 and 115..125, max 1024. Scan 1 .. 1024: 11 (64 passes, 128 fails).
  // Bisection of (64, 128): 96 yes, 112 no, 104 no, 100 yes, 102 no, 101 no -> 100 (6).
  // Neighbourhood of (101, 128), descending: 101 + 27 x 4 / 5 = 122 passes (1). Bisection of
  // (122, 128): 125 yes, 126 no -> 125 (2). Neighbourhood of (126, 128): 127 no (1); the other
  // spread values round to 126 and 127, already tested. 11 + 6 + 1 + 2 + 1 = 21.
  const SearchOutcome outcome = LargestPassing(
      1, 1024, [](int64_t value) { return Of(value <= 100 || (value >= 115 && value <= 125)); });
  CHECK(outcome.answer == 125);
  CHECK(outcome.first_failing == 126);
  CHECK(outcome.failing_below_answer == 112);  // failed below 125: 101, 102, 104, 112
  CHECK(outcome.neighbourhood_probes == 2);
  CHECK(outcome.probed.size() == 21);
  CHECK(std::vector<int64_t>(outcome.probed.begin() + 11, outcome.probed.end()) ==
        std::vector<int64_t>{96, 112, 104, 100, 102, 101, 122, 125, 126, 127});
}

TEST_CASE("search: the ends of the range") {
  SECTION("nothing passes: the whole scan, or two failures for good") {
    const SearchOutcome outcome = Search(10, 100, 5);
    CHECK_FALSE(outcome.found);
    CHECK(outcome.first_failing == 10);
    CHECK(outcome.probed == std::vector<int64_t>{10, 20, 40, 80, 100});
    const SearchOutcome over =
        LargestPassing(10, 100, [](int64_t) { return Probe::kFailsForGood; });
    CHECK_FALSE(over.found);
    CHECK(over.first_failing == 10);
    CHECK(over.probed == std::vector<int64_t>{10, 20});
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
    // The scan 0, 1, 2, 4, ..., 64, 100; the bracket (0, 1) has nothing inside.
    CHECK(outcome.probed == std::vector<int64_t>{0, 1, 2, 4, 8, 16, 32, 64, 100});
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
