// Block layout: an offset for every block that lives over a range of positions, so that no two
// blocks live at the same position overlap in space; the device arena and each off-device
// tier's buffer are laid out by it.
//
// Several placements, the smallest size wins (ties: TFLite's greedy by size). Greedy (the
// TFLite arena planner and XLA heap simulator scheme): blocks in a priority order, each into
// the tightest gap (best fit) or the lowest gap (first fit) among the already-placed blocks
// that overlap it in time, else on top of them. Greedy by size (largest first, best fit) runs
// at any size; the other orders (longest-lived, largest area = bytes x positions, earliest
// start, each with best and first fit) up to LayoutOptions::all_orders_limit blocks, and up to
// shaken_limit blocks also up to shaken_trials shaken size orders (sizes scaled by a seeded
// pseudo-random factor in [1, 1.5), deterministic) until one meets the lower bound. Sweep
// best-fit (a runtime allocator replayed over positions: frees before allocations, each
// allocation into the smallest free block, coalesced, else on top) runs unless greedy by size,
// which runs first, already meets the lower bound (the padded peak): it would lose the tie.
// Blocks that live at every position are stacked at the bottom first (without loss, see
// layout.cc); the algorithms run on the others above them.
// Alignment: every block is padded to a multiple of the alignment and every offset is one;
// the size counts the padding. The live-bytes peak (max over positions of the blocks' own
// bytes, unpadded) is the lower bound reported next to the size.
// Cost: a greedy pass reads, for each block, the offset runs taken during its life from a
// segment tree of coalesced runs over positions (layout/occupancy_tree.h), so it costs about
// O(n log^2 P + r log log P) for n blocks over P positions and r runs read (merged from at
// most 2 log P sorted sets), where a stack of blocks counts as one run; it places exactly as
// TFLite's quadratic scan would. The sweep costs O(n log n). Measured in docs/benchmarks.md
// (hyperplan-bench layout).
// Limits: a block is one contiguous range, or two where it wraps around a loop's boundary (the
// sweep then holds it over the positions between them too); greedy is not optimal (a shaken order
// sometimes does better, and the lower bound is not always reachable).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hyperplan/lifetimes.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

// Knobs that change layout quality and cost (PlanOptions::layout; the plan records which
// algorithm won). Defaults: every order while all of them together stay cheap next to the
// planner's other work (each pass costs about as much as greedy by size: 0.03 s at 10k
// blocks, 0.11 s at 183k, Release), since the planner lays out every round it assembles.
struct LayoutOptions {
  size_t all_orders_limit = 1024;  // up to this many blocks: every order, best and first fit
  size_t shaken_limit = 256;       // up to this many blocks: shaken size orders too
  uint32_t shaken_trials = 32;
  bool greedy = true;  // false: the sweep alone (what a first-come runtime allocator would do)

  bool operator==(const LayoutOptions&) const = default;  // every field: layout.cc's reuse
};

// A block over positions [first, last] (inclusive); blocks of 0 bytes get offset 0. With
// head_last >= 0 it also lives over [0, head_last] at the same offset (head_last < first - 1):
// a value a loop keeps on the device across the iteration boundary while it leaves in between.
struct LayoutBlock {
  int32_t first = 0;
  int32_t last = 0;
  int64_t bytes = 0;
  int32_t head_last = -1;

  bool operator==(const LayoutBlock&) const = default;  // every field: layout.cc's reuse
};

// Positions the block lives at: both ranges.
int64_t LivePositions(const LayoutBlock& block);

struct BlockLayout {
  std::vector<int64_t> offset_bytes;  // parallel to the blocks
  int64_t size_bytes = 0;             // max over blocks of offset + padded size
  int64_t live_peak_bytes = 0;        // max over positions of live (unpadded) bytes
  int32_t live_peak_position = 0;     // first position reaching it
  std::string algorithm;  // "greedy_by_size", ..., "sweep_best_fit"; "stacked": all-run only
};

// `bytes` rounded up to a multiple of `alignment_bytes` (>= 1).
int64_t AlignUp(int64_t bytes, int64_t alignment_bytes);

// Every block lies within [0, positions). `alignment_bytes` >= 1.
BlockLayout LayoutBlocks(const std::vector<LayoutBlock>& blocks, int32_t positions,
                         int64_t alignment_bytes, const LayoutOptions& options = {});

// The device arena: an offset for every resident interval, over the order's steps.
// `step_count` is the order's size; every interval lies within [0, step_count). `periodic`: a
// value's interval open at the run's start and its interval open at the run's end are one
// block wrapped around the loop's boundary (docs/design.md invariant 8: one offset at both ends).
ArenaLayout LayoutArena(const std::vector<ResidentInterval>& residency, Step step_count,
                        int64_t alignment_bytes = 1, const LayoutOptions& options = {},
                        bool periodic = false);

}  // namespace hyperplan
