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
// runs after it; sets are sorted, small in practice), O(log P + r log k) per query for r runs
// read from k sets (each set is sorted, so they are merged, not sorted, coalescing as they
// merge). Memory: two ints per tree node, and the runs in one pool of power-of-two chunks (a
// set's chunk holds under twice the most runs it held; one it outgrew goes to the next set
// that needs that size); Reset keeps the pool's storage for the next pass.
// Limits: blocks are only added (Reset empties everything); positions are int32; a query
// uses the tree's scratch space, so one tree serves one thread.
#pragma once

#include <array>
#include <cstddef>
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

  // Replaces `runs` with the runs taken at some position of [first, last]: sorted, disjoint
  // and not touching, together exactly the union of the blocks that meet [first, last].
  void Occupied(int32_t first, int32_t last, std::vector<Run>& runs);

 private:
  // A set of runs: sorted, disjoint and not touching, stored in runs_[start, start + size)
  // within a chunk of `capacity` (a power of two) runs.
  struct RunSet {
    size_t start = 0;
    uint32_t size = 0;
    uint32_t capacity = 0;
  };

  // Adds [begin, end) to the set `index` names (making it when -1); false when it was already
  // covered (nothing changed).
  bool Insert(int32_t& index, int64_t begin, int64_t end);
  // A chunk of `capacity` runs in runs_: a released one of that size, else a new one at the end.
  size_t Allocate(uint32_t capacity);
  void Release(size_t start, uint32_t capacity);
  // Returns whether `below` changed at `node`.
  bool Occupy(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last, int64_t begin,
              int64_t end);
  // Appends the sets a query reads, each sorted, and where each ends to ends_.
  void Collect(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last,
               std::vector<Run>& runs);
  void Append(int32_t index, std::vector<Run>& runs);

  int32_t positions_ = 0;
  std::vector<int32_t> own_;    // per node: index into sets_, or -1 when empty
  std::vector<int32_t> below_;  // per node: index into sets_, or -1 when empty
  std::vector<RunSet> sets_;
  // Every set's runs in one pool, not a vector per set: a 183k-block arena makes about 400k
  // sets, and allocating then freeing them one by one was a quarter of a greedy pass.
  std::vector<Run> runs_;
  // Per log2 capacity, the start of a released chunk or -1; a released chunk's first run
  // holds the start of the next one.
  std::array<int64_t, 33> released_;
  // A query's scratch: the end of each set read in its runs, and the merge's other buffer.
  std::vector<size_t> ends_;
  std::vector<Run> merged_;
};

}  // namespace hyperplan::planner
