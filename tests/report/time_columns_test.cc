// Time columns and per-column summaries (src/report/time_columns.h).
#include "report/time_columns.h"

#include <catch2/catch.hpp>

using namespace hyperplan;
using namespace hyperplan::report;

TEST_CASE("column boundaries round up and ColumnOf inverts them exactly") {
  // [0, 10) in 4 columns: boundaries ceil(10c/4) = 0, 3, 5, 8, 10.
  const TimeColumns columns(0, 10, 4);
  CHECK(columns.count() == 4);
  CHECK(columns.Boundary(0) == 0);
  CHECK(columns.Boundary(1) == 3);
  CHECK(columns.Boundary(2) == 5);
  CHECK(columns.Boundary(3) == 8);
  CHECK(columns.Boundary(4) == 10);
  CHECK(columns.ColumnOf(2) == 0);
  CHECK(columns.ColumnOf(3) == 1);
  CHECK(columns.ColumnOf(7) == 2);
  CHECK(columns.ColumnOf(8) == 3);
  CHECK(columns.ColumnOf(10) == 3);  // clamped
  CHECK(columns.ColumnOf(-5) == 0);  // clamped
  // Every instant lies in the column ColumnOf names, for awkward spans too.
  for (const auto& [span, count] :
       std::vector<std::pair<int64_t, int>>{{7, 3}, {1000, 7}, {1'000'003, 1088}}) {
    const TimeColumns odd(100, 100 + span, count);
    for (int64_t t = 100; t < 100 + span; t += std::max<int64_t>(1, span / 5000)) {
      const int c = odd.ColumnOf(t);
      INFO("span " << span << " t " << t);
      CHECK(odd.Boundary(c) <= t);
      CHECK(t < odd.Boundary(c + 1));
    }
  }
}

TEST_CASE("columns never outnumber nanoseconds, and an empty range has one") {
  CHECK(TimeColumns(0, 3, 100).count() == 3);
  const TimeColumns empty(5, 5, 10);
  CHECK(empty.count() == 1);
  CHECK(empty.end_ns() == 6);
}

TEST_CASE("a step curve becomes its min and max per column, spikes included") {
  const TimeColumns columns(0, 10, 4);  // [0,3) [3,5) [5,8) [8,10)
  // A zero-length spike to 100 at t=2, then 40 until 6, 10 until 9, then 0.
  const std::vector<TierUsagePoint> curve = {{0, 0}, {2, 100}, {2, 40}, {6, 10}, {9, 0}};
  const auto ranges = BucketStepCurve(curve, columns);
  REQUIRE(ranges.size() == 4);
  CHECK(ranges[0].min_bytes == 0);
  CHECK(ranges[0].max_bytes == 100);  // the spike survives
  CHECK(ranges[1].min_bytes == 40);   // carried in, nothing changes
  CHECK(ranges[1].max_bytes == 40);
  CHECK(ranges[2].min_bytes == 10);
  CHECK(ranges[2].max_bytes == 40);
  CHECK(ranges[3].min_bytes == 0);
  CHECK(ranges[3].max_bytes == 10);
}

TEST_CASE("a point on a column's first instant replaces the level carried in") {
  const TimeColumns columns(0, 10, 4);
  const std::vector<TierUsagePoint> curve = {{0, 50}, {3, 20}};
  const auto ranges = BucketStepCurve(curve, columns);
  CHECK(ranges[0].max_bytes == 50);
  CHECK(ranges[1].min_bytes == 20);
  CHECK(ranges[1].max_bytes == 20);  // 50 never holds in [3, 5)
}

TEST_CASE("the last column takes the final free at the end of the range") {
  const TimeColumns columns(0, 10, 4);
  const auto ranges = BucketStepCurve(std::vector<TierUsagePoint>{{0, 5}, {10, 0}}, columns);
  CHECK(ranges[3].min_bytes == 0);
  CHECK(ranges[3].max_bytes == 5);
  CHECK(BucketStepCurve({}, columns)[2].max_bytes == 0);
}

TEST_CASE("intervals add the time they cover in each column, and instants are counted") {
  const TimeColumns columns(0, 10, 4);  // [0,3) [3,5) [5,8) [8,10)
  const std::vector<TimeInterval> intervals = {{1, 4}, {4, 9}, {5, 5}};
  // [1,4): 2 ns in column 0, 1 in column 1; [4,9): 1 in column 1, 3 in 2, 1 in 3; [5,5): none.
  CHECK(CoveredNsPerColumn(intervals, columns) == std::vector<int64_t>{2, 2, 3, 1});
  const std::vector<int64_t> instants = {0, 3, 3, 9, 10};
  CHECK(InstantsPerColumn(instants, columns) == std::vector<int64_t>{1, 2, 0, 2});
}
