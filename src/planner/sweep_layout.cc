// Sweep best-fit placement (see sweep_layout.h).
#include "planner/sweep_layout.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <utility>

#include "planner/greedy_layout.h"

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

}  // namespace

int64_t PlaceSweepBestFit(const std::vector<LayoutBlock>& blocks,
                          const std::vector<int64_t>& padded_bytes, int32_t positions,
                          std::vector<int64_t>& offsets) {
  std::vector<std::vector<int32_t>> starting(static_cast<size_t>(positions));
  std::vector<std::vector<int32_t>> ending(static_cast<size_t>(positions));
  for (const int32_t b : PlacementOrder(blocks, padded_bytes, GreedyOrder::kSize)) {
    starting[blocks[b].first].push_back(b);
    ending[blocks[b].last].push_back(b);
  }
  FreeList free;
  int64_t top = 0;
  for (int32_t position = 0; position < positions; ++position) {
    for (const int32_t b : starting[position]) {
      const int64_t bytes = padded_bytes[b];
      const auto [offset, size] = free.TakeBestFit(bytes);
      if (offset >= 0) {
        offsets[b] = offset;
        if (size > bytes) free.Give(offset + bytes, size - bytes);
        continue;
      }
      // Grow the arena from the free block at its top, if any.
      const int64_t below_top = free.TakeEndingAt(top);
      offsets[b] = below_top >= 0 ? below_top : top;
      top = offsets[b] + bytes;
    }
    for (const int32_t b : ending[position]) free.Give(offsets[b], padded_bytes[b]);
  }
  return top;
}

}  // namespace hyperplan::planner
