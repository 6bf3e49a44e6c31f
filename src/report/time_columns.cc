// Per-column summaries of curves and intervals (see time_columns.h).
#include "report/time_columns.h"

#include <algorithm>

namespace hyperplan::report {
namespace {

__extension__ using Int128 = __int128;

}  // namespace

TimeColumns::TimeColumns(int64_t start_ns, int64_t end_ns, int count)
    : start_ns_(start_ns), end_ns_(std::max(end_ns, start_ns + 1)), count_(std::max(1, count)) {
  count_ = static_cast<int>(std::min<int64_t>(count_, end_ns_ - start_ns_));
}

int64_t TimeColumns::Boundary(int column) const {
  const Int128 scaled = static_cast<Int128>(end_ns_ - start_ns_) * column;
  return start_ns_ + static_cast<int64_t>((scaled + count_ - 1) / count_);
}

int TimeColumns::ColumnOf(int64_t time_ns) const {
  if (time_ns <= start_ns_) return 0;
  if (time_ns >= end_ns_) return count_ - 1;
  const Int128 scaled = static_cast<Int128>(time_ns - start_ns_) * count_;
  return static_cast<int>(scaled / (end_ns_ - start_ns_));
}

std::vector<ColumnRange> BucketStepCurve(std::span<const TierUsagePoint> curve,
                                         const TimeColumns& columns) {
  std::vector<ColumnRange> ranges(static_cast<size_t>(columns.count()));
  int64_t level = 0;
  size_t i = 0;
  for (int c = 0; c < columns.count(); ++c) {
    const int64_t begin_ns = columns.Boundary(c);
    const int64_t end_ns = columns.Boundary(c + 1);
    while (i < curve.size() && curve[i].time_ns < begin_ns) level = curve[i++].bytes;
    // The level carried in holds at the column's first instant unless a point sits there.
    const bool point_at_begin = i < curve.size() && curve[i].time_ns == begin_ns;
    ColumnRange& range = ranges[c];
    range.min_bytes = point_at_begin ? curve[i].bytes : level;
    range.max_bytes = range.min_bytes;
    // The last column also takes points at or after the range's end (e.g. a free at the end).
    const bool last = c + 1 == columns.count();
    while (i < curve.size() && (curve[i].time_ns < end_ns || last)) {
      level = curve[i++].bytes;
      range.min_bytes = std::min(range.min_bytes, level);
      range.max_bytes = std::max(range.max_bytes, level);
    }
  }
  return ranges;
}

std::vector<int64_t> CoveredNsPerColumn(std::span<const TimeInterval> intervals,
                                        const TimeColumns& columns) {
  std::vector<int64_t> covered(static_cast<size_t>(columns.count()), 0);
  for (const TimeInterval& interval : intervals) {
    const int64_t start_ns = std::max(interval.start_ns, columns.start_ns());
    const int64_t end_ns = std::min(interval.end_ns, columns.end_ns());
    if (end_ns <= start_ns) continue;
    for (int c = columns.ColumnOf(start_ns); c <= columns.ColumnOf(end_ns - 1); ++c) {
      covered[c] +=
          std::min(end_ns, columns.Boundary(c + 1)) - std::max(start_ns, columns.Boundary(c));
    }
  }
  return covered;
}

std::vector<int64_t> InstantsPerColumn(std::span<const int64_t> instants_ns,
                                       const TimeColumns& columns) {
  std::vector<int64_t> counts(static_cast<size_t>(columns.count()), 0);
  for (int64_t instant_ns : instants_ns) ++counts[columns.ColumnOf(instant_ns)];
  return counts;
}

}  // namespace hyperplan::report
