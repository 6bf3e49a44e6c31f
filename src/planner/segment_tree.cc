// RangeMaxTree (see segment_tree.h).
#include "hyperplan/planner/segment_tree.h"

#include <algorithm>
#include <limits>

namespace hyperplan {
namespace {

constexpr int64_t kEmpty = std::numeric_limits<int64_t>::min();

// Picks the larger peak; on a tie the lower index, so MaxAt reports the first step.
RangeMaxTree::Peak Better(RangeMaxTree::Peak a, RangeMaxTree::Peak b) {
  if (a.index < 0) return b;
  if (b.index < 0) return a;
  if (b.value > a.value || (b.value == a.value && b.index < a.index)) return b;
  return a;
}

}  // namespace

RangeMaxTree::RangeMaxTree(const std::vector<int64_t>& values)
    : size_(static_cast<int32_t>(values.size())) {
  if (size_ == 0) return;
  max_.assign(4 * static_cast<size_t>(size_), 0);
  add_.assign(4 * static_cast<size_t>(size_), 0);
  Build(1, 0, size_ - 1, values);
}

void RangeMaxTree::Build(int32_t node, int32_t lo, int32_t hi, const std::vector<int64_t>& values) {
  if (lo == hi) {
    max_[node] = values[lo];
    return;
  }
  const int32_t mid = lo + (hi - lo) / 2;
  Build(2 * node, lo, mid, values);
  Build(2 * node + 1, mid + 1, hi, values);
  max_[node] = std::max(max_[2 * node], max_[2 * node + 1]);
}

void RangeMaxTree::Add(int32_t first, int32_t last, int64_t delta) {
  first = std::max(first, 0);
  last = std::min(last, size_ - 1);
  if (first > last || delta == 0) return;
  AddRec(1, 0, size_ - 1, first, last, delta);
}

void RangeMaxTree::AddRec(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last,
                          int64_t delta) {
  if (first <= lo && hi <= last) {
    max_[node] += delta;
    add_[node] += delta;
    return;
  }
  const int32_t mid = lo + (hi - lo) / 2;
  if (first <= mid) AddRec(2 * node, lo, mid, first, last, delta);
  if (last > mid) AddRec(2 * node + 1, mid + 1, hi, first, last, delta);
  max_[node] = std::max(max_[2 * node], max_[2 * node + 1]) + add_[node];
}

int64_t RangeMaxTree::Max(int32_t first, int32_t last) const {
  first = std::max(first, 0);
  last = std::min(last, size_ - 1);
  if (first > last) return kEmpty;
  return MaxValueRec(1, 0, size_ - 1, first, last);
}

// A covered subtree's max is its node's: no descent to find where it is (MaxRec's index).
int64_t RangeMaxTree::MaxValueRec(int32_t node, int32_t lo, int32_t hi, int32_t first,
                                  int32_t last) const {
  if (first <= lo && hi <= last) return max_[node];
  const int32_t mid = lo + (hi - lo) / 2;
  int64_t best = kEmpty;
  if (first <= mid) best = MaxValueRec(2 * node, lo, mid, first, last);
  if (last > mid) best = std::max(best, MaxValueRec(2 * node + 1, mid + 1, hi, first, last));
  return best + add_[node];
}

RangeMaxTree::Peak RangeMaxTree::MaxAt(int32_t first, int32_t last) const {
  first = std::max(first, 0);
  last = std::min(last, size_ - 1);
  if (first > last) return Peak{};
  return MaxRec(1, 0, size_ - 1, first, last);
}

RangeMaxTree::Peak RangeMaxTree::MaxRec(int32_t node, int32_t lo, int32_t hi, int32_t first,
                                        int32_t last) const {
  if (lo == hi) return Peak{max_[node], lo};
  const int32_t mid = lo + (hi - lo) / 2;
  Peak best;
  if (first <= lo && hi <= last) {
    // Whole subtree: descend only towards the child holding the max (left first on ties).
    best = max_[2 * node] >= max_[2 * node + 1] ? MaxRec(2 * node, lo, mid, first, last)
                                                : MaxRec(2 * node + 1, mid + 1, hi, first, last);
  } else {
    if (first <= mid) best = MaxRec(2 * node, lo, mid, first, last);
    if (last > mid) best = Better(best, MaxRec(2 * node + 1, mid + 1, hi, first, last));
  }
  best.value += add_[node];
  return best;
}

int64_t RangeMaxTree::Get(int32_t index) const { return MaxAt(index, index).value; }

int32_t RangeMaxTree::LastAbove(int32_t first, int32_t last, int64_t threshold) const {
  first = std::max(first, 0);
  last = std::min(last, size_ - 1);
  if (first > last) return -1;
  return LastAboveRec(1, 0, size_ - 1, first, last, threshold);
}

int32_t RangeMaxTree::LastAboveRec(int32_t node, int32_t lo, int32_t hi, int32_t first,
                                   int32_t last, int64_t threshold) const {
  // max_[node] includes this node's pending add; the children see the threshold minus it.
  if (hi < first || lo > last || max_[node] <= threshold) return -1;
  if (lo == hi) return lo;
  const int32_t mid = lo + (hi - lo) / 2;
  const int64_t child_threshold = threshold - add_[node];
  const int32_t right = LastAboveRec(2 * node + 1, mid + 1, hi, first, last, child_threshold);
  if (right >= 0) return right;
  return LastAboveRec(2 * node, lo, mid, first, last, child_threshold);
}

std::vector<int64_t> RangeMaxTree::Values() const {
  std::vector<int64_t> values(size_);
  for (int32_t i = 0; i < size_; ++i) values[i] = Get(i);
  return values;
}

}  // namespace hyperplan
