// Stabbing queries over ranked step intervals (see stabbing_index.h).
#include "hyperplan/planner/stabbing_index.h"

#include <algorithm>
#include <functional>

namespace hyperplan {

StabbingIndex::StabbingIndex(int32_t step_count) : step_count_(step_count) {
  if (step_count_ > 0) heaps_.resize(4 * static_cast<size_t>(step_count_));
}

void StabbingIndex::Add(int32_t rank, int32_t first, int32_t last) {
  first = std::max<int32_t>(first, 0);
  last = std::min<int32_t>(last, step_count_ - 1);
  if (step_count_ <= 0 || first > last) return;
  AddRec(1, 0, step_count_ - 1, first, last, rank);
}

void StabbingIndex::AddRec(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last,
                           int32_t rank) {
  if (first <= lo && hi <= last) {
    // Ranks added in ascending order append in place: a sorted vector is already a min-heap.
    auto& heap = heaps_[node];
    heap.push_back(rank);
    std::push_heap(heap.begin(), heap.end(), std::greater<int32_t>());
    return;
  }
  const int32_t mid = lo + (hi - lo) / 2;
  if (first <= mid) AddRec(2 * node, lo, mid, first, last, rank);
  if (last > mid) AddRec(2 * node + 1, mid + 1, hi, first, last, rank);
}

StabbingIndex::Entry StabbingIndex::PopBest(int32_t step, const std::vector<uint8_t>& alive) {
  Entry best;
  if (step < 0 || step >= step_count_) return best;
  int32_t lo = 0;
  int32_t hi = step_count_ - 1;
  int32_t node = 1;
  while (true) {
    auto& heap = heaps_[node];
    // A top ranked after the best found cannot win, dead or alive (every rank below it is
    // larger): its node is left as it is, its dead tops dropped by a later query that needs
    // them. Ranks are distinct, so the answer is the same; only the alive lookups are saved.
    while (!heap.empty() && (best.rank < 0 || heap.front() < best.rank) && !alive[heap.front()]) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<int32_t>());
      heap.pop_back();
    }
    if (!heap.empty() && (best.rank < 0 || heap.front() < best.rank)) {
      best = Entry{heap.front(), node};
    }
    if (lo == hi) break;
    const int32_t mid = lo + (hi - lo) / 2;
    if (step <= mid) {
      hi = mid;
      node = 2 * node;
    } else {
      lo = mid + 1;
      node = 2 * node + 1;
    }
  }
  if (best.rank >= 0) {
    auto& heap = heaps_[best.node];
    std::pop_heap(heap.begin(), heap.end(), std::greater<int32_t>());
    heap.pop_back();
  }
  return best;
}

void StabbingIndex::PushBack(const Entry& entry) {
  auto& heap = heaps_[entry.node];
  heap.push_back(entry.rank);
  std::push_heap(heap.begin(), heap.end(), std::greater<int32_t>());
}

}  // namespace hyperplan
