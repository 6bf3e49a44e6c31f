// Block layout: the sweep, greedy placements in several orders, the smallest kept (see
// layout.h).
#include "hyperplan/planner/layout.h"

#include <string>
#include <utility>

#include "hyperplan/error.h"
#include "planner/greedy_layout.h"
#include "planner/overlap_index.h"
#include "planner/sweep_layout.h"

namespace hyperplan {
namespace {

using planner::GreedyOrder;

void MeasureLivePeak(const std::vector<LayoutBlock>& blocks, int32_t positions,
                     BlockLayout& layout) {
  std::vector<int64_t> delta(static_cast<size_t>(positions) + 1, 0);
  for (const LayoutBlock& block : blocks) {
    if (block.bytes <= 0) continue;
    delta[block.first] += block.bytes;
    delta[block.last + 1] -= block.bytes;
  }
  int64_t live = 0;
  for (int32_t position = 0; position < positions; ++position) {
    live += delta[position];
    if (live > layout.live_peak_bytes) {
      layout.live_peak_bytes = live;
      layout.live_peak_position = position;
    }
  }
}

// Keeps `offsets` when they beat what `layout` holds (or tie it, when `wins_ties`).
void Keep(std::vector<int64_t>& offsets, int64_t size_bytes, std::string algorithm,
          bool wins_ties, BlockLayout& layout) {
  if (size_bytes < layout.size_bytes || (wins_ties && size_bytes == layout.size_bytes)) {
    layout.offset_bytes = std::move(offsets);
    layout.size_bytes = size_bytes;
    layout.algorithm = std::move(algorithm);
  }
}

// TFLite's greedy by size (best fit) first: it wins ties with the sweep; every other order
// must do strictly better than what is kept.
void TryGreedyOrders(const std::vector<LayoutBlock>& blocks, const std::vector<int64_t>& padded,
                     const LayoutOptions& options, planner::OverlapIndex& index,
                     BlockLayout& layout) {
  const bool all_orders = blocks.size() <= options.all_orders_limit;
  for (const bool best_fit : {true, false}) {
    for (const GreedyOrder order : planner::kGreedyOrders) {
      const bool tflite = best_fit && order == GreedyOrder::kSize;
      if (!all_orders && !tflite) continue;
      std::vector<int64_t> offsets(blocks.size(), 0);
      const int64_t size_bytes =
          PlaceGreedy(blocks, padded, PlacementOrder(blocks, padded, order), best_fit, index,
                      offsets);
      Keep(offsets, size_bytes,
           std::string(GreedyOrderName(order)) + (best_fit ? "" : "_first_fit"), tflite, layout);
    }
  }
}

// Small problems: shaken size orders too, until one reaches the lower bound.
void TryShakenOrders(const std::vector<LayoutBlock>& blocks, const std::vector<int64_t>& padded,
                     int64_t padded_peak_bytes, const LayoutOptions& options,
                     planner::OverlapIndex& index, BlockLayout& layout) {
  if (blocks.size() > options.shaken_limit) return;
  for (uint32_t trial = 1; trial <= options.shaken_trials && layout.size_bytes > padded_peak_bytes;
       ++trial) {
    std::vector<int64_t> offsets(blocks.size(), 0);
    const bool best_fit = trial % 2 == 1;
    const int64_t size_bytes =
        PlaceGreedy(blocks, padded, planner::ShakenSizeOrder(padded, trial), best_fit, index,
                    offsets);
    Keep(offsets, size_bytes, "greedy_shaken_" + std::to_string(trial), false, layout);
  }
}

// Max over positions of live padded bytes: what no layout of the padded blocks can beat.
int64_t PaddedPeak(const std::vector<LayoutBlock>& blocks, const std::vector<int64_t>& padded,
                   int32_t positions) {
  std::vector<int64_t> delta(static_cast<size_t>(positions) + 1, 0);
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].bytes <= 0) continue;
    delta[blocks[b].first] += padded[b];
    delta[blocks[b].last + 1] -= padded[b];
  }
  int64_t live = 0;
  int64_t peak = 0;
  for (int32_t position = 0; position < positions; ++position) {
    live += delta[position];
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace

int64_t AlignUp(int64_t bytes, int64_t alignment_bytes) {
  if (alignment_bytes <= 1) return bytes;
  return (bytes + alignment_bytes - 1) / alignment_bytes * alignment_bytes;
}

BlockLayout LayoutBlocks(const std::vector<LayoutBlock>& blocks, int32_t positions,
                         int64_t alignment_bytes, const LayoutOptions& options) {
  if (alignment_bytes < 1) {
    throw Error(ErrorKind::kInternal, "layout alignment must be at least 1 byte");
  }
  BlockLayout layout;
  layout.offset_bytes.assign(blocks.size(), 0);
  if (positions <= 0) return layout;
  for (const LayoutBlock& block : blocks) {
    if (block.bytes > 0 && (block.first < 0 || block.last < block.first || block.last >= positions)) {
      throw Error(ErrorKind::kInternal, "layout block outside the positions laid out");
    }
  }
  MeasureLivePeak(blocks, positions, layout);
  std::vector<int64_t> padded(blocks.size(), 0);
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].bytes > 0) padded[b] = AlignUp(blocks[b].bytes, alignment_bytes);
  }

  std::vector<int64_t> sweep_offsets(blocks.size(), 0);
  layout.size_bytes = planner::PlaceSweepBestFit(blocks, padded, positions, sweep_offsets);
  layout.offset_bytes = std::move(sweep_offsets);
  layout.algorithm = "sweep_best_fit";
  if (options.greedy) {
    planner::OverlapIndex index(blocks, positions);
    TryGreedyOrders(blocks, padded, options, index, layout);
    TryShakenOrders(blocks, padded, PaddedPeak(blocks, padded, positions), options, index,
                    layout);
  }
  return layout;
}

ArenaLayout LayoutArena(const std::vector<ResidentInterval>& residency, Step step_count,
                        int64_t alignment_bytes, const LayoutOptions& options) {
  std::vector<LayoutBlock> blocks;
  blocks.reserve(residency.size());
  for (const ResidentInterval& interval : residency) {
    blocks.push_back({interval.first_step, interval.last_step, interval.bytes});
  }
  BlockLayout placed = LayoutBlocks(blocks, step_count, alignment_bytes, options);
  ArenaLayout layout;
  layout.offset_bytes = std::move(placed.offset_bytes);
  layout.arena_bytes = placed.size_bytes;
  layout.live_peak_bytes = placed.live_peak_bytes;
  layout.live_peak_step = placed.live_peak_position;
  layout.alignment_bytes = alignment_bytes;
  layout.algorithm = std::move(placed.algorithm);
  return layout;
}

}  // namespace hyperplan
