// Sweep best-fit: a runtime allocator replayed over positions (see layout.h). At each
// position, frees of the blocks that ended before it, then allocations, largest first, each
// into the smallest free block (free blocks coalesce), else growing the top.
// Cost: O(n log n). Limits: never moves a block once placed, so it fragments more than greedy
// on long-lived mixes (kept as a candidate because it is cheap and sometimes wins).
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/layout/layout.h"

namespace hyperplan::planner {

// Returns the size (max offset + padded size); `offsets` parallel to `blocks`.
int64_t PlaceSweepBestFit(const std::vector<LayoutBlock>& blocks,
                          const std::vector<int64_t>& padded_bytes, int32_t positions,
                          std::vector<int64_t>& offsets);

}  // namespace hyperplan::planner
