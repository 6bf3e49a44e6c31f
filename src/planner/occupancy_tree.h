// OccupancyTree: which offset ranges are taken at some position of a range of positions, as
// placed blocks (a range of positions x a range of offsets) accumulate.
//
// A segment tree over positions. A block is recorded at the O(log P) nodes whose ranges tile
// its own (canonical nodes) and in the union kept by every node above them: each node holds
// the offset runs of the blocks recorded at it (`own`: they all live over the node's whole
// range, so they never overlap each other) and the union of the runs of every block recorded
// in its subtree (`below`), both as coalesced runs. A query over [first, last] reads `below`
// at its own canonical nodes and `own` at their ancestors: every block that meets the query
// in time is in exactly those sets. Runs coalesce as blocks stack, so the answer is usually
// far smaller than the number of blocks it covers; greedy layout needs only its gaps.
// Recording goes bottom up and stops at the first node whose union already covered the runs
// (every node above covers it too), so long-lived neighbours cost little.
// Cost: O(log P) set insertions per block at most (each a binary search plus a move of the
// runs after it; sets are sorted vectors, small in practice), O(log P + r) per query for r
// runs returned. Memory: two ints per tree node and the runs.
// Limits: blocks are only added (Reset empties everything); positions are int32.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace hyperplan::planner {

class OccupancyTree {
 public:
  using Run = std::pair<int64_t, int64_t>;  // [begin, end) in bytes

  explicit OccupancyTree(int32_t positions);

  void Reset();  // nothing occupied

  // [begin, end) is taken over positions [first, last].
  void Occupy(int32_t first, int32_t last, int64_t begin, int64_t end);

  // Appends the runs taken at some position of [first, last]: unsorted, possibly overlapping
  // one another, together exactly the union of the blocks that meet [first, last].
  void Occupied(int32_t first, int32_t last, std::vector<Run>& runs) const;

 private:
  using RunSet = std::vector<Run>;  // sorted, disjoint and not touching

  // Adds [begin, end) to `set`; false when it was already covered (nothing changed).
  static bool Insert(RunSet& set, int64_t begin, int64_t end);
  RunSet& SetAt(std::vector<int32_t>& index, int32_t node);
  // Returns whether `below` changed at `node`.
  bool Occupy(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last, int64_t begin,
              int64_t end);
  void Occupied(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last,
                std::vector<Run>& runs) const;
  void Append(const std::vector<int32_t>& index, int32_t node, std::vector<Run>& runs) const;

  int32_t positions_ = 0;
  std::vector<int32_t> own_;    // per node: index into sets_, or -1 when empty
  std::vector<int32_t> below_;  // per node: index into sets_, or -1 when empty
  std::vector<RunSet> sets_;
};

}  // namespace hyperplan::planner
