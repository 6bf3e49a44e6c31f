// The segment tree of occupied offset runs behind greedy layout (see occupancy_tree.h).
#include "layout/occupancy_tree.h"

#include <algorithm>
#include <bit>

namespace hyperplan::planner {

OccupancyTree::OccupancyTree(int32_t positions)
    : positions_(positions),
      own_(4 * static_cast<size_t>(std::max(positions, 1)), -1),
      below_(4 * static_cast<size_t>(std::max(positions, 1)), -1) {
  released_.fill(-1);
}

void OccupancyTree::Reset() {
  std::fill(own_.begin(), own_.end(), -1);
  std::fill(below_.begin(), below_.end(), -1);
  sets_.clear();
  runs_.clear();
  released_.fill(-1);
}

size_t OccupancyTree::Allocate(uint32_t capacity) {
  int64_t& head = released_[std::countr_zero(capacity)];
  if (head >= 0) {
    const auto start = static_cast<size_t>(head);
    head = runs_[start].first;
    return start;
  }
  const size_t start = runs_.size();
  runs_.resize(start + capacity);
  return start;
}

void OccupancyTree::Release(size_t start, uint32_t capacity) {
  int64_t& head = released_[std::countr_zero(capacity)];
  runs_[start].first = head;
  head = static_cast<int64_t>(start);
}

bool OccupancyTree::Insert(int32_t& index, int64_t begin, int64_t end) {
  if (index < 0) {
    index = static_cast<int32_t>(sets_.size());
    sets_.push_back({Allocate(1), 1, 1});
    runs_[sets_.back().start] = {begin, end};
    return true;
  }
  RunSet& set = sets_[index];
  Run* const runs = runs_.data() + set.start;
  Run* const runs_end = runs + set.size;
  // The first run that ends at or after `begin` (it may touch or overlap the new one).
  Run* first = std::lower_bound(runs, runs_end, begin,
                                [](const Run& run, int64_t at) { return run.second < at; });
  if (first != runs_end && first->first <= begin && end <= first->second) return false;
  Run* last = first;  // one past the runs the new one overlaps or touches
  while (last != runs_end && last->first <= end) ++last;
  if (first != last) {
    first->first = std::min(begin, first->first);
    first->second = std::max(end, (last - 1)->second);
    std::copy(last, runs_end, first + 1);
    set.size -= static_cast<uint32_t>(last - first - 1);
    return true;
  }
  const auto at = static_cast<size_t>(first - runs);
  if (set.size < set.capacity) {
    std::copy_backward(first, runs_end, runs_end + 1);
    *first = {begin, end};
  } else {
    // Full: move to a chunk twice the size.
    const size_t start = Allocate(2 * set.capacity);  // may move runs_: `runs` is stale
    const Run* const from = runs_.data() + set.start;
    Run* const to = runs_.data() + start;
    std::copy(from, from + at, to);
    to[at] = {begin, end};
    std::copy(from + at, from + set.size, to + at + 1);
    Release(set.start, set.capacity);
    set.start = start;
    set.capacity *= 2;
  }
  ++set.size;
  return true;
}

void OccupancyTree::Occupy(int32_t first, int32_t last, int64_t begin, int64_t end) {
  if (positions_ > 0 && first <= last && begin < end) {
    Occupy(1, 0, positions_ - 1, first, last, begin, end);
  }
}

bool OccupancyTree::Occupy(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last,
                           int64_t begin, int64_t end) {
  if (first <= lo && hi <= last) {
    Insert(own_[node], begin, end);
    return Insert(below_[node], begin, end);
  }
  const int32_t mid = lo + (hi - lo) / 2;
  bool changed = false;
  if (first <= mid) changed |= Occupy(2 * node, lo, mid, first, last, begin, end);
  if (last > mid) changed |= Occupy(2 * node + 1, mid + 1, hi, first, last, begin, end);
  // A child's union is part of this one: if no child's changed, this one already covers it.
  return changed && Insert(below_[node], begin, end);
}

namespace {

// Merges two runs sorted by begin, each disjoint and not touching, into `out` as their union:
// sorted, disjoint, not touching. Returns one past the last run written. Coalescing as it
// merges keeps each later round of the pairwise merge to the union's size, not the sum of the
// sets read (sibling nodes' sets share most of their runs where blocks stack alike).
using Run = OccupancyTree::Run;
Run* MergeUnion(const Run* a, const Run* a_end, const Run* b, const Run* b_end, Run* out) {
  Run* last = nullptr;  // the run being grown in `out`
  auto add = [&](const Run& run) {
    if (last != nullptr && run.first <= last->second) {
      last->second = std::max(last->second, run.second);
    } else {
      last = out++;
      *last = run;
    }
  };
  while (a != a_end && b != b_end) add(b->first < a->first ? *b++ : *a++);
  while (a != a_end) add(*a++);
  while (b != b_end) add(*b++);
  return out;
}

}  // namespace

void OccupancyTree::Occupied(int32_t first, int32_t last, std::vector<Run>& runs) {
  runs.clear();
  ends_.clear();
  if (positions_ > 0 && first <= last) Collect(1, 0, positions_ - 1, first, last, runs);
  // The sets read are each sorted: merge neighbours pairwise until one is left, O(r log k)
  // for r runs from k sets. Sorting them instead was a quarter of a greedy pass when queries
  // return dozens of runs (Llama-3-8B training arenas).
  while (ends_.size() > 1) {
    merged_.resize(runs.size());
    size_t kept = 0;
    size_t begin = 0;
    Run* out = merged_.data();
    for (size_t k = 0; k < ends_.size(); k += 2) {
      const size_t middle = ends_[k];
      const size_t end = k + 1 < ends_.size() ? ends_[k + 1] : middle;
      out = MergeUnion(runs.data() + begin, runs.data() + middle, runs.data() + middle,
                       runs.data() + end, out);
      ends_[kept++] = static_cast<size_t>(out - merged_.data());
      begin = end;
    }
    ends_.resize(kept);
    merged_.resize(ends_.back());
    runs.swap(merged_);  // the caller's buffer becomes the next scratch: no copy back
  }
}

void OccupancyTree::Collect(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last,
                            std::vector<Run>& runs) {
  if (below_[node] < 0) return;  // nothing recorded at or below this node
  if (first <= lo && hi <= last) {
    Append(below_[node], runs);
    return;
  }
  Append(own_[node], runs);
  const int32_t mid = lo + (hi - lo) / 2;
  if (first <= mid) Collect(2 * node, lo, mid, first, last, runs);
  if (last > mid) Collect(2 * node + 1, mid + 1, hi, first, last, runs);
}

void OccupancyTree::Append(int32_t index, std::vector<Run>& runs) {
  if (index < 0) return;
  const RunSet& set = sets_[index];
  const Run* const from = runs_.data() + set.start;
  runs.insert(runs.end(), from, from + set.size);
  ends_.push_back(runs.size());
}

}  // namespace hyperplan::planner
