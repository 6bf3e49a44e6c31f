// The segment tree of occupied offset runs behind greedy layout (see occupancy_tree.h).
#include "planner/occupancy_tree.h"

#include <algorithm>
#include <iterator>

namespace hyperplan::planner {

OccupancyTree::OccupancyTree(int32_t positions)
    : positions_(positions),
      own_(4 * static_cast<size_t>(std::max(positions, 1)), -1),
      below_(4 * static_cast<size_t>(std::max(positions, 1)), -1) {}

void OccupancyTree::Reset() {
  std::fill(own_.begin(), own_.end(), -1);
  std::fill(below_.begin(), below_.end(), -1);
  sets_.clear();
}

bool OccupancyTree::Insert(RunSet& set, int64_t begin, int64_t end) {
  // The first run that ends at or after `begin` (it may touch or overlap the new one).
  auto first = std::lower_bound(set.begin(), set.end(), begin,
                                [](const Run& run, int64_t at) { return run.second < at; });
  if (first != set.end() && first->first <= begin && end <= first->second) return false;
  auto last = first;  // one past the runs the new one overlaps or touches
  while (last != set.end() && last->first <= end) ++last;
  if (first != last) {
    begin = std::min(begin, first->first);
    end = std::max(end, std::prev(last)->second);
    *first = {begin, end};
    set.erase(std::next(first), last);
  } else {
    set.insert(first, {begin, end});
  }
  return true;
}

OccupancyTree::RunSet& OccupancyTree::SetAt(std::vector<int32_t>& index, int32_t node) {
  if (index[node] < 0) {
    index[node] = static_cast<int32_t>(sets_.size());
    sets_.emplace_back();
  }
  return sets_[index[node]];
}

void OccupancyTree::Occupy(int32_t first, int32_t last, int64_t begin, int64_t end) {
  if (positions_ > 0 && first <= last && begin < end) {
    Occupy(1, 0, positions_ - 1, first, last, begin, end);
  }
}

bool OccupancyTree::Occupy(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last,
                           int64_t begin, int64_t end) {
  if (first <= lo && hi <= last) {
    Insert(SetAt(own_, node), begin, end);
    return Insert(SetAt(below_, node), begin, end);
  }
  const int32_t mid = lo + (hi - lo) / 2;
  bool changed = false;
  if (first <= mid) changed |= Occupy(2 * node, lo, mid, first, last, begin, end);
  if (last > mid) changed |= Occupy(2 * node + 1, mid + 1, hi, first, last, begin, end);
  // A child's union is part of this one: if no child's changed, this one already covers it.
  return changed && Insert(SetAt(below_, node), begin, end);
}

void OccupancyTree::Occupied(int32_t first, int32_t last, std::vector<Run>& runs) const {
  if (positions_ > 0 && first <= last) Occupied(1, 0, positions_ - 1, first, last, runs);
}

void OccupancyTree::Occupied(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last,
                             std::vector<Run>& runs) const {
  if (below_[node] < 0) return;  // nothing recorded at or below this node
  if (first <= lo && hi <= last) {
    Append(below_, node, runs);
    return;
  }
  Append(own_, node, runs);
  const int32_t mid = lo + (hi - lo) / 2;
  if (first <= mid) Occupied(2 * node, lo, mid, first, last, runs);
  if (last > mid) Occupied(2 * node + 1, mid + 1, hi, first, last, runs);
}

void OccupancyTree::Append(const std::vector<int32_t>& index, int32_t node,
                           std::vector<Run>& runs) const {
  if (index[node] < 0) return;
  const RunSet& set = sets_[index[node]];
  runs.insert(runs.end(), set.begin(), set.end());
}

}  // namespace hyperplan::planner
