// RangeMaxTree: an array of int64 (bytes per step) that answers "max over an interval" and
// applies "add over an interval" in O(log n) each.
//
// The planner keeps the device memory-over-time profile in one of these: every offload
// decision subtracts a value's bytes from the steps it frees, and the next decision looks at
// the new peak. Lazy propagation without push-down: each node stores the max of its subtree
// including the adds pending at that node, so queries are const and never rewrite the tree.
// Cost: O(n) to build, O(log n) per Add, Max, Get and LastAbove, O(log^2 n) per MaxAt; 2 * 4n
// int64 of memory.
// Limits: indices are int32; sums must stay inside int64 (bytes do, by a wide margin).
#pragma once

#include <cstdint>
#include <vector>

namespace hyperplan {

class RangeMaxTree {
 public:
  struct Peak {
    int64_t value = 0;
    int32_t index = -1;  // the first index reaching `value`; -1 for an empty range
  };

  RangeMaxTree() = default;
  explicit RangeMaxTree(const std::vector<int64_t>& values);

  int32_t size() const { return size_; }

  // Adds `delta` to every element of [first, last] (inclusive); an empty range does nothing.
  void Add(int32_t first, int32_t last, int64_t delta);

  // Max over [first, last]; INT64_MIN for an empty range. O(log n): unlike MaxAt it never
  // descends a covered subtree to find where its max is.
  int64_t Max(int32_t first, int32_t last) const;

  // Max over [first, last] and the first index reaching it.
  Peak MaxAt(int32_t first, int32_t last) const;

  int64_t Get(int32_t index) const;

  // The last index in [first, last] whose value exceeds `threshold`, or -1.
  int32_t LastAbove(int32_t first, int32_t last, int64_t threshold) const;

  // The current array (O(n log n)); for tests and reports.
  std::vector<int64_t> Values() const;

 private:
  void Build(int32_t node, int32_t lo, int32_t hi, const std::vector<int64_t>& values);
  void AddRec(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last, int64_t delta);
  Peak MaxRec(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last) const;
  int64_t MaxValueRec(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last) const;
  int32_t LastAboveRec(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last,
                       int64_t threshold) const;

  int32_t size_ = 0;
  std::vector<int64_t> max_;  // max of the subtree, pending adds at this node included
  std::vector<int64_t> add_;  // add pending for the whole subtree, not yet in the children
};

}  // namespace hyperplan
