// The centered interval tree behind greedy layout (see overlap_index.h).
#include "planner/overlap_index.h"

#include <algorithm>

namespace hyperplan::planner {

OverlapIndex::OverlapIndex(const std::vector<LayoutBlock>& blocks, int32_t positions)
    : blocks_(blocks),
      positions_(positions),
      begin_(static_cast<size_t>(positions) + 1, 0),
      placed_below_(static_cast<size_t>(positions), 0),
      placed_(blocks.size(), 0) {
  std::vector<int32_t> node(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) {
    node[b] = NodeOf(blocks[b].first, blocks[b].last);
    ++begin_[node[b] + 1];
  }
  for (int32_t m = 0; m < positions_; ++m) begin_[m + 1] += begin_[m];
  by_first_.resize(blocks.size());
  std::vector<int32_t> cursor(begin_.begin(), begin_.end() - 1);
  for (size_t b = 0; b < blocks.size(); ++b) by_first_[cursor[node[b]]++] = static_cast<int32_t>(b);
  by_last_ = by_first_;
  for (int32_t m = 0; m < positions_; ++m) {
    const auto from = static_cast<ptrdiff_t>(begin_[m]);
    const auto to = static_cast<ptrdiff_t>(begin_[m + 1]);
    if (to - from < 2) continue;
    std::sort(by_first_.begin() + from, by_first_.begin() + to, [&](int32_t a, int32_t b) {
      return blocks_[a].first != blocks_[b].first ? blocks_[a].first < blocks_[b].first : a < b;
    });
    std::sort(by_last_.begin() + from, by_last_.begin() + to, [&](int32_t a, int32_t b) {
      return blocks_[a].last != blocks_[b].last ? blocks_[a].last > blocks_[b].last : a < b;
    });
  }
}

// The node holding [first, last]: the first middle, from the root down, inside the range.
int32_t OverlapIndex::NodeOf(int32_t first, int32_t last) const {
  int32_t lo = 0;
  int32_t hi = positions_ - 1;
  while (true) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (last < mid) {
      hi = mid - 1;
    } else if (first > mid) {
      lo = mid + 1;
    } else {
      return mid;
    }
  }
}

void OverlapIndex::Place(int32_t block) {
  placed_[block] = 1;
  const LayoutBlock& range = blocks_[block];
  int32_t lo = 0;
  int32_t hi = positions_ - 1;
  while (true) {
    const int32_t mid = lo + (hi - lo) / 2;
    ++placed_below_[mid];
    if (range.last < mid) {
      hi = mid - 1;
    } else if (range.first > mid) {
      lo = mid + 1;
    } else {
      return;
    }
  }
}

void OverlapIndex::Reset() {
  std::fill(placed_below_.begin(), placed_below_.end(), 0);
  std::fill(placed_.begin(), placed_.end(), 0);
}

void OverlapIndex::Overlapping(int32_t first, int32_t last, std::vector<int32_t>& out) const {
  if (positions_ > 0) Visit(0, positions_ - 1, first, last, out);
}

void OverlapIndex::Visit(int32_t lo, int32_t hi, int32_t first, int32_t last,
                         std::vector<int32_t>& out) const {
  while (lo <= hi && hi >= first && lo <= last) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (placed_below_[mid] == 0) return;
    const int32_t begin = begin_[mid];
    const int32_t end = begin_[mid + 1];
    if (last < mid) {
      // Every block here reaches past `last`: it overlaps when it starts by then.
      for (int32_t i = begin; i < end && blocks_[by_first_[i]].first <= last; ++i) {
        if (placed_[by_first_[i]]) out.push_back(by_first_[i]);
      }
      hi = mid - 1;
    } else if (first > mid) {
      for (int32_t i = begin; i < end && blocks_[by_last_[i]].last >= first; ++i) {
        if (placed_[by_last_[i]]) out.push_back(by_last_[i]);
      }
      lo = mid + 1;
    } else {
      for (int32_t i = begin; i < end; ++i) {
        if (placed_[by_first_[i]]) out.push_back(by_first_[i]);
      }
      Visit(lo, mid - 1, first, last, out);
      lo = mid + 1;
    }
  }
}

}  // namespace hyperplan::planner
