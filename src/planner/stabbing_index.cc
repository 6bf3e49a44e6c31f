// Stabbing queries over ranked step intervals (see stabbing_index.h).
#include "hyperplan/planner/stabbing_index.h"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>

namespace hyperplan {
namespace {

// An empty node's top: ranks after every rank, so it never beats the best found.
constexpr int32_t kEmpty = std::numeric_limits<int32_t>::max();
// A node's first slice: most nodes hold a few intervals.
constexpr int32_t kFirstCapacity = 4;

}  // namespace

StabbingIndex::StabbingIndex(int32_t step_count) : step_count_(step_count) {
  if (step_count_ <= 0) return;
  heaps_.resize(4 * static_cast<size_t>(step_count_));
  tops_.assign(heaps_.size(), kEmpty);
}

// The heap's slice moved to the array's end at twice its capacity (its old slice left unused).
void StabbingIndex::Grow(Heap& heap) {
  const int32_t capacity = heap.capacity == 0 ? kFirstCapacity : 2 * heap.capacity;
  const size_t begin = ranks_.size();
  ranks_.resize(begin + static_cast<size_t>(capacity));
  std::copy_n(ranks_.begin() + static_cast<std::ptrdiff_t>(heap.begin), heap.size,
              ranks_.begin() + static_cast<std::ptrdiff_t>(begin));
  heap.begin = begin;
  heap.capacity = capacity;
}

void StabbingIndex::Push(int32_t node, int32_t rank) {
  Heap& heap = heaps_[node];
  if (heap.size == heap.capacity) Grow(heap);
  int32_t* const first = ranks_.data() + heap.begin;
  first[heap.size++] = rank;
  std::push_heap(first, first + heap.size, std::greater<int32_t>());
  tops_[node] = first[0];
}

void StabbingIndex::Pop(int32_t node) {
  Heap& heap = heaps_[node];
  int32_t* const first = ranks_.data() + heap.begin;
  std::pop_heap(first, first + heap.size, std::greater<int32_t>());
  --heap.size;
  tops_[node] = heap.size > 0 ? first[0] : kEmpty;
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
    // Ranks added in ascending order append in place: a sorted slice is already a min-heap.
    Push(node, rank);
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
  int32_t best_rank = kEmpty;  // best.rank, or after every rank while none is found
  while (true) {
    // A top ranked after the best found cannot win, dead or alive (every rank below it is
    // larger): its node is left as it is, its dead tops dropped by a later query that needs
    // them. Ranks are distinct, so the answer is the same; only the alive lookups are saved.
    while (tops_[node] < best_rank && !alive[tops_[node]]) Pop(node);
    if (tops_[node] < best_rank) {
      best_rank = tops_[node];
      best = Entry{best_rank, node};
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
  if (best.rank >= 0) Pop(best.node);
  return best;
}

void StabbingIndex::PushBack(const Entry& entry) { Push(entry.node, entry.rank); }

}  // namespace hyperplan
