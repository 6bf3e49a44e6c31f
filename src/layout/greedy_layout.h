// Greedy block placement in a priority order (see layout.h): each block into the tightest
// (best fit) or the lowest (first fit) gap among the placed blocks that overlap it in time,
// else on top of them. TFLite's arena planner with largest-first order; XLA's heap simulator
// offers the same family.
// Cost: O(n log n) for an order; per pass O(n log^2 P) to record the blocks plus, per block,
// the occupied runs over its lifetime merged by offset (occupancy_tree.h): coalesced runs,
// not the blocks behind them, so a block under a stack of a thousand long-lived ones costs a
// handful. Limits: see layout.h.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "hyperplan/layout/layout.h"
#include "layout/occupancy_tree.h"

namespace hyperplan::planner {

enum class GreedyOrder { kSize, kDuration, kArea, kStart };
inline constexpr GreedyOrder kGreedyOrders[] = {GreedyOrder::kSize, GreedyOrder::kDuration,
                                                GreedyOrder::kArea, GreedyOrder::kStart};
const char* GreedyOrderName(GreedyOrder order);  // "greedy_by_size", ...

// Blocks of more than 0 bytes in the order's priority (largest size, longest life, largest
// area = bytes x positions, earliest start); ties by size, then start, then index. Sizes are
// the padded ones.
std::vector<int32_t> PlacementOrder(const std::vector<LayoutBlock>& blocks,
                                    const std::vector<int64_t>& padded_bytes, GreedyOrder order);

// Largest first with each size scaled by a pseudo-random factor in [1, 1.5): a deterministic
// shake of TFLite's order (std::mt19937's output is fixed by the standard).
std::vector<int32_t> ShakenSizeOrder(const std::vector<int64_t>& padded_bytes, uint32_t seed);

// Places the blocks of `order` (the others keep offset 0); returns the size (max offset +
// padded size). `occupied` spans the blocks' positions; it is reset first. With
// `stop_at_bytes`, stops as soon as the size reaches it (the size only grows, so a caller that
// keeps only layouts smaller than that loses nothing) and returns the size so far, the later
// blocks' offsets left as they were.
int64_t PlaceGreedy(const std::vector<LayoutBlock>& blocks,
                    const std::vector<int64_t>& padded_bytes, const std::vector<int32_t>& order,
                    bool best_fit, OccupancyTree& occupied, std::vector<int64_t>& offsets,
                    int64_t stop_at_bytes = std::numeric_limits<int64_t>::max());

}  // namespace hyperplan::planner
