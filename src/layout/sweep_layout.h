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

// The same with the blocks' PlacementOrder by size given (`size_order`, which the caller's
// greedy pass already has), stopping as soon as the size reaches `stop_at_bytes`: the size only
// grows as blocks are placed, so a result that must be strictly smaller than a layout already
// kept is known lost there. A stopped sweep returns a size of at least `stop_at_bytes` and
// leaves `offsets` partly written.
int64_t PlaceSweepBestFit(const std::vector<LayoutBlock>& blocks,
                          const std::vector<int64_t>& padded_bytes, int32_t positions,
                          const std::vector<int32_t>& size_order, std::vector<int64_t>& offsets,
                          int64_t stop_at_bytes);

}  // namespace hyperplan::planner
