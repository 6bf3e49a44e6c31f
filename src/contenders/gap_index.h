// GapIndex: among intervals of steps, each with a rank, the best-ranked one not yet taken that
// contains a given step ("stabbing" query), as the op-distance baseline asks at each peak.
//
// A segment tree over steps; each interval is listed at the O(log n) canonical nodes that
// cover it, in rank order, with a cursor that skips taken entries for good. A query walks one
// root-to-leaf path. Cost: O(k log n) to build for k intervals, O(log n) amortized per query
// and per take. Limits: ranks must be distinct and inserted in ascending order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hyperplan::contenders {

class GapIndex {
 public:
  explicit GapIndex(int32_t step_count);

  // Adds interval `rank` over [first, last] (inclusive); ranks ascend across calls.
  void Add(int32_t rank, int32_t first, int32_t last);
  // The smallest untaken rank whose interval contains `step`, or -1.
  int32_t Best(int32_t step);
  void Take(int32_t rank);

 private:
  void AddRec(int32_t node, int32_t lo, int32_t hi, int32_t first, int32_t last, int32_t rank);
  int32_t Top(int32_t node);

  int32_t size_ = 0;
  std::vector<std::vector<int32_t>> lists_;  // by tree node
  std::vector<size_t> cursor_;               // by tree node
  std::vector<uint8_t> taken_;               // by rank
};

}  // namespace hyperplan::contenders
