// Time columns: a simulated time range cut into at most a few thousand equal columns, and the
// per-column summaries the charts draw instead of one element per step.
//
// Column c covers [Boundary(c), Boundary(c + 1)) with Boundary(c) = start + ceil(span * c /
// count), so ColumnOf(t) = floor((t - start) * count / span) exactly (integer arithmetic).
// A step curve (bytes from each point's time until the next point) becomes its minimum and
// maximum per column: the maximum keeps every peak visible however short, including a
// zero-length spike (two points at one instant). Intervals become the time they cover in each
// column; instants become a count per column.
// Cost: O(points + columns) per curve; O(intervals + columns) per set of disjoint intervals.
// Limits: overlapping intervals add up (a column may then read more than its width).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hyperplan/plan/plan.h"

namespace hyperplan::report {

class TimeColumns {
 public:
  // `count` is clamped to [1, end_ns - start_ns] so that no column is empty; an empty range
  // is widened to one nanosecond.
  TimeColumns(int64_t start_ns, int64_t end_ns, int count);
  int count() const { return count_; }
  int64_t start_ns() const { return start_ns_; }
  int64_t end_ns() const { return end_ns_; }
  int64_t Boundary(int column) const;   // column in [0, count]
  int ColumnOf(int64_t time_ns) const;  // clamped to [0, count - 1]

 private:
  int64_t start_ns_;
  int64_t end_ns_;
  int count_;
};

struct ColumnRange {
  int64_t min_bytes = 0;
  int64_t max_bytes = 0;
};

// `curve` ascending in time (ties allowed); before its first point the level is 0.
std::vector<ColumnRange> BucketStepCurve(std::span<const TierUsagePoint> curve,
                                         const TimeColumns& columns);

struct TimeInterval {
  int64_t start_ns = 0;
  int64_t end_ns = 0;  // exclusive; an interval with end <= start covers nothing
};

// Nanoseconds of each column covered by the intervals.
std::vector<int64_t> CoveredNsPerColumn(std::span<const TimeInterval> intervals,
                                        const TimeColumns& columns);

// How many of `instants_ns` fall in each column.
std::vector<int64_t> InstantsPerColumn(std::span<const int64_t> instants_ns,
                                       const TimeColumns& columns);

}  // namespace hyperplan::report
