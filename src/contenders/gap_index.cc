// Stabbing index over ranked step intervals (see gap_index.h).
#include "contenders/gap_index.h"

namespace hyperplan::contenders {

GapIndex::GapIndex(int32_t step_count) : size_(step_count) {
  const size_t nodes = step_count > 0 ? 4 * static_cast<size_t>(step_count) : 1;
  lists_.resize(nodes);
  cursor_.assign(nodes, 0);
}

void GapIndex::Add(int32_t rank, int32_t first, int32_t last) {
  if (first > last || first >= size_ || last < 0) return;
  if (static_cast<size_t>(rank) >= taken_.size()) taken_.resize(static_cast<size_t>(rank) + 1, 0);
  AddRec(1, 0, size_ - 1, first < 0 ? 0 : first, last >= size_ ? size_ - 1 : last, rank);
}

void GapIndex::AddRec(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last,
                      int32_t rank) {
  if (last < lo || hi < first) return;
  if (first <= lo && hi <= last) {
    lists_[node].push_back(rank);
    return;
  }
  const int32_t mid = lo + (hi - lo) / 2;
  AddRec(2 * node, lo, mid, first, last, rank);
  AddRec(2 * node + 1, mid + 1, hi, first, last, rank);
}

int32_t GapIndex::Top(int32_t node) {
  std::vector<int32_t>& list = lists_[node];
  size_t& cursor = cursor_[node];
  while (cursor < list.size() && taken_[list[cursor]]) ++cursor;
  return cursor < list.size() ? list[cursor] : -1;
}

int32_t GapIndex::Best(int32_t step) {
  if (step < 0 || step >= size_) return -1;
  int32_t best = -1;
  int32_t node = 1;
  int32_t lo = 0;
  int32_t hi = size_ - 1;
  while (true) {
    const int32_t top = Top(node);
    if (top >= 0 && (best < 0 || top < best)) best = top;
    if (lo == hi) break;
    const int32_t mid = lo + (hi - lo) / 2;
    if (step <= mid) {
      node = 2 * node;
      hi = mid;
    } else {
      node = 2 * node + 1;
      lo = mid + 1;
    }
  }
  return best;
}

void GapIndex::Take(int32_t rank) {
  if (static_cast<size_t>(rank) < taken_.size()) taken_[rank] = 1;
}

}  // namespace hyperplan::contenders
