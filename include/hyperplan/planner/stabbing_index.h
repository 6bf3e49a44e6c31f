// StabbingIndex: among ranked intervals of steps, the best-ranked live one that contains a
// given step ("stabbing" query). The planner's refine asks it for the best candidate covering
// the peak step; the op-distance contender for the largest gap covering it. Each caller ranks
// its own intervals (lower rank is better) and says which are alive.
//
// A segment tree over steps; each interval sits in the O(log n) canonical nodes that tile it,
// and each node keeps a min-heap of ranks. A step lies in at most one of an interval's
// canonical nodes, so popping it there removes it from every query at that step; the other
// nodes keep it for other steps. Intervals that are no longer alive are dropped lazily when
// they reach a heap's top. Flat storage: every node's heap is a slice of one array (a full
// slice moves to the array's end at twice its capacity), and each node's top rank is kept in
// an array of its own, so a query reads a heap only where its top could beat the best found
// higher up, and building or copying an index allocates a few arrays, not a vector per node.
// Cost: O(k log n) memory (at most 4x the entries, for the moved slices) and build for k
// intervals; PopBest O(log n) tops plus the lazy pops; PushBack and Add O(log k) per node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hyperplan {

class StabbingIndex {
 public:
  struct Entry {
    int32_t rank = -1;  // -1: none
    int32_t node = 0;   // the tree node it was popped from
  };

  explicit StabbingIndex(int32_t step_count);

  int32_t step_count() const { return step_count_; }

  // Adds interval `rank` over [first, last] (inclusive), clipped to the steps; an empty range
  // adds nothing.
  void Add(int32_t rank, int32_t first, int32_t last);

  // Removes and returns the best-ranked interval containing `step` whose `alive[rank]` is set.
  Entry PopBest(int32_t step, const std::vector<uint8_t>& alive);

  // Puts a popped interval back where it came from.
  void PushBack(const Entry& entry);

 private:
  // A node's min-heap of ranks: ranks_[begin, begin + size), room for `capacity`.
  struct Heap {
    std::size_t begin = 0;
    int32_t size = 0;
    int32_t capacity = 0;
  };

  void AddRec(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last, int32_t rank);
  void Push(int32_t node, int32_t rank);
  void Pop(int32_t node);
  void Grow(Heap& heap);

  int32_t step_count_ = 0;
  std::vector<Heap> heaps_;     // by tree node
  std::vector<int32_t> ranks_;  // the heaps' slices
  std::vector<int32_t> tops_;   // by tree node: its heap's top, or after every rank if empty
};

}  // namespace hyperplan
