// Sweep best-fit placement (see sweep_layout.h).
#include "layout/sweep_layout.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "layout/greedy_layout.h"

namespace hyperplan::planner {
namespace {

// Free blocks by size and by offset; giving one back merges it with its free neighbours.
class FreeList {
 public:
  // The smallest free block of at least `bytes`, taken whole; {-1, 0} when none.
  std::pair<int64_t, int64_t> TakeBestFit(int64_t bytes) {
    const auto fit = by_size_.lower_bound({bytes, 0});
    if (fit == by_size_.end()) return {-1, 0};
    const auto [size, offset] = *fit;
    Take(by_offset_.find(offset));
    return {offset, size};
  }

  // The free block ending at `top`, taken whole; -1 when none.
  int64_t TakeEndingAt(int64_t top) {
    if (by_offset_.empty()) return -1;
    const auto last = std::prev(by_offset_.end());
    if (last->first + last->second != top) return -1;
    const int64_t offset = last->first;
    Take(last);
    return offset;
  }

  void Give(int64_t offset, int64_t size) {
    auto next = by_offset_.lower_bound(offset);
    if (next != by_offset_.end() && next->first == offset + size) {
      size += next->second;
      Take(next);
    }
    auto previous = by_offset_.lower_bound(offset);
    if (previous != by_offset_.begin()) {
      --previous;
      if (previous->first + previous->second == offset) {
        offset = previous->first;
        size += previous->second;
        Take(previous);
      }
    }
    by_offset_.emplace(offset, size);
    by_size_.emplace(size, offset);
  }

 private:
  void Take(std::map<int64_t, int64_t>::iterator block) {
    by_size_.erase({block->second, block->first});
    by_offset_.erase(block);
  }

  std::set<std::pair<int64_t, int64_t>> by_size_;  // (size, offset)
  std::map<int64_t, int64_t> by_offset_;           // offset -> size
};

// Blocks bucketed by one position each (their first or last), in the order given: bucket p is
// index[start[p], start[p + 1]). Two flat arrays, not a vector per position: a 245k-step
// plan's layout spent a tenth of its time allocating and freeing those.
struct Buckets {
  std::vector<int32_t> start;  // positions + 1 entries
  std::vector<int32_t> index;

  Buckets(const std::vector<int32_t>& order, int32_t positions,
          const std::function<int32_t(int32_t)>& position_of)
      : start(static_cast<size_t>(positions) + 1, 0), index(order.size()) {
    for (const int32_t b : order) ++start[position_of(b) + 1];
    for (int32_t p = 0; p < positions; ++p) start[p + 1] += start[p];
    std::vector<int32_t> fill(start.begin(), start.end() - 1);
    for (const int32_t b : order) index[fill[position_of(b)]++] = b;
  }
  template <typename Visit>
  void ForEach(int32_t position, Visit visit) const {
    for (int32_t k = start[position]; k < start[position + 1]; ++k) visit(index[k]);
  }
};

}  // namespace

int64_t PlaceSweepBestFit(const std::vector<LayoutBlock>& blocks,
                          const std::vector<int64_t>& padded_bytes, int32_t positions,
                          std::vector<int64_t>& offsets) {
  return PlaceSweepBestFit(blocks, padded_bytes, positions,
                           PlacementOrder(blocks, padded_bytes, GreedyOrder::kSize), offsets,
                           std::numeric_limits<int64_t>::max());
}

int64_t PlaceSweepBestFit(const std::vector<LayoutBlock>& blocks,
                          const std::vector<int64_t>& padded_bytes, int32_t positions,
                          const std::vector<int32_t>& order, std::vector<int64_t>& offsets,
                          int64_t stop_at_bytes) {
  // A wrapped block is held from position 0 to its end: an allocator replay cannot promise the
  // offset is free again when its tail begins.
  const Buckets starting(order, positions,
                         [&](int32_t b) { return blocks[b].head_last >= 0 ? 0 : blocks[b].first; });
  const Buckets ending(order, positions, [&](int32_t b) { return blocks[b].last; });
  FreeList free;
  int64_t top = 0;
  for (int32_t position = 0; position < positions; ++position) {
    starting.ForEach(position, [&](int32_t b) {
      if (top >= stop_at_bytes) return;  // lost: the rest of this position is skipped too
      const int64_t bytes = padded_bytes[b];
      const auto [offset, size] = free.TakeBestFit(bytes);
      if (offset >= 0) {
        offsets[b] = offset;
        if (size > bytes) free.Give(offset + bytes, size - bytes);
        return;
      }
      // Grow the arena from the free block at its top, if any.
      const int64_t below_top = free.TakeEndingAt(top);
      offsets[b] = below_top >= 0 ? below_top : top;
      top = offsets[b] + bytes;
    });
    if (top >= stop_at_bytes) return top;
    ending.ForEach(position, [&](int32_t b) { free.Give(offsets[b], padded_bytes[b]); });
  }
  return top;
}

}  // namespace hyperplan::planner
