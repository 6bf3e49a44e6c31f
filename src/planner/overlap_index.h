// OverlapIndex: among a fixed set of blocks (ranges of positions), the ones marked placed that
// overlap a query range, each reported once.
//
// A centered interval tree over positions: each tree node is one position (the middle of its
// range) and holds the blocks that contain it but not the middle of its parent's range, sorted
// by first position (ascending) and by last position (descending). A query descends from the
// root: at a node whose middle lies in the query every block there overlaps it; left of the
// middle only a prefix of the by-first list does, right of it only a prefix of the by-last
// list; whole subtrees with no placed block are skipped. Built once for all blocks (greedy
// layout marks them placed one by one, and Reset starts another pass).
// Cost: O(n log n) to build, O(log P) to place, O(log P + r) per query where r counts the
// blocks overlapping the query, placed or not (at most twice the pairs a pass reports).
// Limits: positions and block indices are int32.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/planner/layout.h"

namespace hyperplan::planner {

class OverlapIndex {
 public:
  OverlapIndex(const std::vector<LayoutBlock>& blocks, int32_t positions);

  void Place(int32_t block);
  void Reset();  // nothing placed

  // Appends every placed block overlapping [first, last] to `out`, each once, in no set order.
  void Overlapping(int32_t first, int32_t last, std::vector<int32_t>& out) const;

 private:
  int32_t NodeOf(int32_t first, int32_t last) const;
  void Visit(int32_t lo, int32_t hi, int32_t first, int32_t last,
             std::vector<int32_t>& out) const;

  const std::vector<LayoutBlock>& blocks_;
  int32_t positions_ = 0;
  // Per node (its middle position): its blocks in [begin_[m], begin_[m + 1]) of both lists.
  std::vector<int32_t> begin_;
  std::vector<int32_t> by_first_;
  std::vector<int32_t> by_last_;
  std::vector<int32_t> placed_below_;  // per node: placed blocks in its subtree
  std::vector<uint8_t> placed_;        // per block
};

}  // namespace hyperplan::planner
