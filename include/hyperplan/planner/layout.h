// LayoutArena: an offset in the device arena for every resident interval.
//
// Several placements, the smallest arena wins (ties: TFLite's greedy by size). Greedy (the
// TFLite arena planner and XLA heap simulator scheme): intervals in a priority order, each
// into the tightest gap (best fit) or the lowest gap (first fit) among the already-placed
// intervals that overlap it in time, else on top. Orders: largest, longest-lived, largest
// area (bytes x steps), earliest start (all eight variants up to 1024 intervals, greedy by
// size alone beyond); up to 256 intervals also up to 32 shaken size orders (sizes scaled by
// a seeded pseudo-random factor in [1, 1.5), deterministic) until one meets the lower bound.
// Sweep best-fit: steps in order, frees before allocations, each allocation into the smallest
// free block (coalesced), else on top. Greedy costs O(k^2) in the number of intervals, so it
// runs only up to kGreedyLayoutLimit of them; the sweep costs O(k log k) and always runs. The
// live-bytes peak (max over steps of resident bytes) is the lower bound reported next to the
// arena size.
// Limits: no alignment padding (offsets are byte-exact); an interval is one contiguous block.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/lifetimes.h"
#include "hyperplan/planner/plan.h"

namespace hyperplan {

inline constexpr size_t kGreedyLayoutLimit = 4096;

// `step_count` is the order's size; every interval lies within [0, step_count).
ArenaLayout LayoutArena(const std::vector<ResidentInterval>& residency, Step step_count);

}  // namespace hyperplan
