// Block layout: the sweep, greedy placements in several orders, the smallest kept (see
// layout.h).
#include "hyperplan/layout/layout.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hyperplan/error.h"
#include "layout/greedy_layout.h"
#include "layout/occupancy_tree.h"
#include "layout/sweep_layout.h"

namespace hyperplan {
namespace {

using planner::GreedyOrder;

// Adds `bytes` over the positions a block lives at to a difference array.
void AddLive(const LayoutBlock& block, int64_t bytes, std::vector<int64_t>& delta) {
  delta[block.first] += bytes;
  delta[block.last + 1] -= bytes;
  if (block.head_last >= 0) {
    delta[0] += bytes;
    delta[block.head_last + 1] -= bytes;
  }
}

void MeasureLivePeak(const std::vector<LayoutBlock>& blocks, int32_t positions,
                     BlockLayout& layout) {
  std::vector<int64_t> delta(static_cast<size_t>(positions) + 1, 0);
  for (const LayoutBlock& block : blocks) {
    if (block.bytes > 0) AddLive(block, block.bytes, delta);
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

// Keeps `offsets` when they are strictly smaller than what `layout` holds.
void Keep(std::vector<int64_t>& offsets, int64_t size_bytes, std::string algorithm,
          BlockLayout& layout) {
  if (size_bytes < layout.size_bytes) {
    layout.offset_bytes = std::move(offsets);
    layout.size_bytes = size_bytes;
    layout.algorithm = std::move(algorithm);
  }
}

// The greedy orders after TFLite's (placed first, see LayoutPartialBlocks), each kept only when
// it does strictly better than what is kept.
// `size_order`: PlacementOrder by size, computed once for every pass that uses it.
void TryOtherGreedyOrders(const std::vector<LayoutBlock>& blocks,
                          const std::vector<int64_t>& padded,
                          const std::vector<int32_t>& size_order, const LayoutOptions& options,
                          planner::OccupancyTree& occupied, BlockLayout& layout) {
  if (blocks.size() > options.all_orders_limit) return;
  for (const bool best_fit : {true, false}) {
    for (const GreedyOrder order : planner::kGreedyOrders) {
      if (best_fit && order == GreedyOrder::kSize) continue;
      std::vector<int64_t> offsets(blocks.size(), 0);
      // Kept only when strictly smaller: placing stops once it is not.
      const int64_t size_bytes = PlaceGreedy(
          blocks, padded,
          order == GreedyOrder::kSize ? size_order : PlacementOrder(blocks, padded, order),
          best_fit, occupied, offsets, layout.size_bytes);
      Keep(offsets, size_bytes,
           std::string(GreedyOrderName(order)) + (best_fit ? "" : "_first_fit"), layout);
    }
  }
}

// Small problems: shaken size orders too, until one reaches the lower bound.
void TryShakenOrders(const std::vector<LayoutBlock>& blocks, const std::vector<int64_t>& padded,
                     int64_t padded_peak_bytes, const LayoutOptions& options,
                     planner::OccupancyTree& occupied, BlockLayout& layout) {
  if (blocks.size() > options.shaken_limit) return;
  for (uint32_t trial = 1; trial <= options.shaken_trials && layout.size_bytes > padded_peak_bytes;
       ++trial) {
    std::vector<int64_t> offsets(blocks.size(), 0);
    const bool best_fit = trial % 2 == 1;
    const int64_t size_bytes = PlaceGreedy(blocks, padded, planner::ShakenSizeOrder(padded, trial),
                                           best_fit, occupied, offsets, layout.size_bytes);
    Keep(offsets, size_bytes, "greedy_shaken_" + std::to_string(trial), layout);
  }
}

// Max over positions of live padded bytes: what no layout of the padded blocks can beat.
int64_t PaddedPeak(const std::vector<LayoutBlock>& blocks, const std::vector<int64_t>& padded,
                   int32_t positions) {
  std::vector<int64_t> delta(static_cast<size_t>(positions) + 1, 0);
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].bytes > 0) AddLive(blocks[b], padded[b], delta);
  }
  int64_t live = 0;
  int64_t peak = 0;
  for (int32_t position = 0; position < positions; ++position) {
    live += delta[position];
    peak = std::max(peak, live);
  }
  return peak;
}

// Every algorithm on `blocks`, none of which lives at every position. TFLite's greedy by size
// (best fit) runs first and is kept over the sweep at equal size, and every other order must
// do strictly better than what is kept; so when it meets the lower bound (the padded peak)
// nothing else could be kept and nothing else runs. The result is the same as running them
// all.
BlockLayout LayoutPartialBlocks(const std::vector<LayoutBlock>& blocks,
                                const std::vector<int64_t>& padded, int32_t positions,
                                const LayoutOptions& options) {
  BlockLayout layout;
  const int64_t padded_peak_bytes = PaddedPeak(blocks, padded, positions);
  planner::OccupancyTree occupied(options.greedy ? positions : 0);
  const std::vector<int32_t> size_order = PlacementOrder(blocks, padded, GreedyOrder::kSize);
  if (options.greedy) {
    layout.offset_bytes.assign(blocks.size(), 0);
    layout.size_bytes = PlaceGreedy(blocks, padded, size_order,
                                    /*best_fit=*/true, occupied, layout.offset_bytes);
    layout.algorithm = GreedyOrderName(GreedyOrder::kSize);
    if (layout.size_bytes <= padded_peak_bytes) return layout;
  }
  // After greedy the sweep is kept only when strictly smaller: it stops once it is not.
  std::vector<int64_t> sweep_offsets(blocks.size(), 0);
  const int64_t sweep_bytes = planner::PlaceSweepBestFit(
      blocks, padded, positions, size_order, sweep_offsets,
      options.greedy ? layout.size_bytes : std::numeric_limits<int64_t>::max());
  if (!options.greedy || sweep_bytes < layout.size_bytes) {
    layout.offset_bytes = std::move(sweep_offsets);
    layout.size_bytes = sweep_bytes;
    layout.algorithm = "sweep_best_fit";
  }
  if (options.greedy) {
    TryOtherGreedyOrders(blocks, padded, size_order, options, occupied, layout);
    TryShakenOrders(blocks, padded, padded_peak_bytes, options, occupied, layout);
  }
  return layout;
}

void CheckBlocks(const std::vector<LayoutBlock>& blocks, int32_t positions,
                 int64_t alignment_bytes) {
  if (alignment_bytes < 1) {
    throw Error(ErrorKind::kInternal, "layout alignment must be at least 1 byte");
  }
  for (const LayoutBlock& block : blocks) {
    if (block.bytes > 0 &&
        (block.first < 0 || block.last < block.first || block.last >= positions ||
         (block.head_last >= 0 && block.head_last >= block.first - 1))) {
      throw Error(ErrorKind::kInternal, "layout block outside the positions laid out");
    }
  }
}

std::vector<int64_t> PaddedSizes(const std::vector<LayoutBlock>& blocks, int64_t alignment_bytes) {
  std::vector<int64_t> padded(blocks.size(), 0);
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].bytes > 0) padded[b] = AlignUp(blocks[b].bytes, alignment_bytes);
  }
  return padded;
}

bool LivesAtEveryPosition(const LayoutBlock& block, int32_t positions) {
  return LivePositions(block) == positions;
}

// The blocks alive at every position, stacked from 0, largest first (ties: index). Returns
// the bytes they take.
int64_t StackAllRunBlocks(const std::vector<LayoutBlock>& blocks,
                          const std::vector<int64_t>& padded, int32_t positions,
                          BlockLayout& layout) {
  std::vector<int32_t> all_run;
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].bytes > 0 && LivesAtEveryPosition(blocks[b], positions)) {
      all_run.push_back(static_cast<int32_t>(b));
    }
  }
  std::stable_sort(all_run.begin(), all_run.end(),
                   [&](int32_t a, int32_t b) { return padded[a] > padded[b]; });
  int64_t base_bytes = 0;
  for (const int32_t b : all_run) {
    layout.offset_bytes[b] = base_bytes;
    base_bytes += padded[b];
  }
  layout.size_bytes = base_bytes;
  layout.algorithm = all_run.empty() ? "" : "stacked";
  return base_bytes;
}

// Every other block, laid out by the algorithms on its own, then shifted up by `base_bytes`.
void LayOutAbove(const std::vector<LayoutBlock>& blocks, const std::vector<int64_t>& padded,
                 int32_t positions, int64_t base_bytes, const LayoutOptions& options,
                 BlockLayout& layout) {
  std::vector<int32_t> index;  // into blocks
  std::vector<LayoutBlock> rest;
  std::vector<int64_t> rest_padded;
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].bytes <= 0 || LivesAtEveryPosition(blocks[b], positions)) continue;
    index.push_back(static_cast<int32_t>(b));
    rest.push_back(blocks[b]);
    rest_padded.push_back(padded[b]);
  }
  if (rest.empty()) return;
  const BlockLayout above = LayoutPartialBlocks(rest, rest_padded, positions, options);
  for (size_t k = 0; k < index.size(); ++k) {
    layout.offset_bytes[index[k]] = base_bytes + above.offset_bytes[k];
  }
  layout.size_bytes = base_bytes + above.size_bytes;
  layout.algorithm = above.algorithm;
}

// Per value, its interval opened at the run's start (first step 0) and its other interval
// closed at the run's end (last step `step_count` - 1): {head, tail} indices into `residency`.
std::vector<std::pair<size_t, size_t>> WrappedPairs(const std::vector<ResidentInterval>& residency,
                                                    Step step_count) {
  std::map<ValueId, size_t> head_of;
  for (size_t r = 0; r < residency.size(); ++r) {
    const ResidentInterval& interval = residency[r];
    if (interval.value != kNoValue && interval.opened_by < 0 && interval.first_step == 0) {
      head_of.emplace(interval.value, r);
    }
  }
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t r = 0; r < residency.size(); ++r) {
    const ResidentInterval& interval = residency[r];
    if (interval.value == kNoValue || interval.closed_by >= 0 ||
        interval.last_step != step_count - 1) {
      continue;
    }
    // Only with a gap between them: touching, the two would be one interval.
    const auto head = head_of.find(interval.value);
    if (head != head_of.end() && residency[head->second].last_step + 1 < interval.first_step) {
      pairs.emplace_back(head->second, r);
    }
  }
  return pairs;
}

// The arenas last laid out on this thread: their blocks, positions, alignment and options, and
// the layouts they gave. The planner often assembles plans with the same residency (the budget
// rounds and their retries reach the same selection). On the DeepSeek-V3 hf-config int4 decode
// on h100-sxm a quarter of the blocks laid out (1.8 of 7.2 million, 272 of 1080 arenas)
// repeated an earlier arena, 176 of those arenas the one just before on the log. On the
// recomputing 8B training step on rtx-4090-xeon-2s (606 arenas of ~8.5 k blocks, 113 of them
// repeats), replaying its log, the thread's last arena caught 10, its last 8 48 and its last 32
// 101: a retime chain's round plans a selection an earlier round's retries had planned 20-30
// arenas before (16.1 s of CPU against 17.4 s, every plan the same). Layout is a pure function of
// these inputs, so an exact match returns the same layout without placing a block. Per thread,
// since the planner lays out on several; compared in full (no hash), so a hit is always right and a
// miss costs a compare per entry (the sizes first; unequal blocks differ early) and one copy of the
// blocks. Bounded in entries and in blocks held (kRecentBlocks: ~32 B each, blocks and offsets, so
// ~32 MB a thread at most; +12 MB RSS on that row), the least recently used dropped first.
struct RecentArena {
  std::vector<LayoutBlock> blocks;
  int32_t positions = 0;
  int64_t alignment_bytes = 0;
  LayoutOptions options;
  BlockLayout layout;
};
constexpr size_t kRecentArenas = 32;
constexpr size_t kRecentBlocks = size_t{1} << 20;

bool SameArena(const RecentArena& recent, const std::vector<LayoutBlock>& blocks, int32_t positions,
               int64_t alignment_bytes, const LayoutOptions& options) {
  return recent.positions == positions && recent.alignment_bytes == alignment_bytes &&
         recent.blocks.size() == blocks.size() && recent.options == options &&
         recent.blocks == blocks;
}

// This thread's recent arenas, the most recently used last, and the blocks they hold.
struct RecentArenas {
  std::vector<RecentArena> arenas;
  size_t blocks_held = 0;

  // The entry for these inputs moved to the back, or null.
  const RecentArena* Find(const std::vector<LayoutBlock>& blocks, int32_t positions,
                          int64_t alignment_bytes, const LayoutOptions& options) {
    for (size_t k = arenas.size(); k-- > 0;) {
      if (!SameArena(arenas[k], blocks, positions, alignment_bytes, options)) continue;
      std::rotate(arenas.begin() + static_cast<std::ptrdiff_t>(k),
                  arenas.begin() + static_cast<std::ptrdiff_t>(k) + 1, arenas.end());
      return &arenas.back();
    }
    return nullptr;
  }

  // Records `arena`, dropping the least recently used entries past either bound (an arena
  // larger than kRecentBlocks alone is not kept).
  void Add(RecentArena arena) {
    if (arena.blocks.size() > kRecentBlocks) return;
    blocks_held += arena.blocks.size();
    arenas.push_back(std::move(arena));
    size_t dropped = 0;
    while (arenas.size() - dropped > kRecentArenas || blocks_held > kRecentBlocks) {
      blocks_held -= arenas[dropped].blocks.size();
      ++dropped;
    }
    arenas.erase(arenas.begin(), arenas.begin() + static_cast<std::ptrdiff_t>(dropped));
  }
};

// LayoutBlocks, reusing one of this thread's recent layouts when its inputs were the same.
BlockLayout LayoutBlocksOrRecent(const std::vector<LayoutBlock>& blocks, int32_t positions,
                                 int64_t alignment_bytes, const LayoutOptions& options) {
  thread_local RecentArenas recent;
  if (const RecentArena* hit = recent.Find(blocks, positions, alignment_bytes, options)) {
    return hit->layout;
  }
  // Recorded only once laid out: a throw leaves nothing half recorded.
  RecentArena arena{blocks, positions, alignment_bytes, options,
                    LayoutBlocks(blocks, positions, alignment_bytes, options)};
  BlockLayout layout = arena.layout;
  recent.Add(std::move(arena));
  return layout;
}

}  // namespace

int64_t LivePositions(const LayoutBlock& block) {
  return int64_t{block.last} - block.first + 1 + (block.head_last + 1);
}

int64_t AlignUp(int64_t bytes, int64_t alignment_bytes) {
  if (alignment_bytes <= 1) return bytes;
  return (bytes + alignment_bytes - 1) / alignment_bytes * alignment_bytes;
}

// Blocks that live at every position (home copies, values resident all run) are stacked at
// the bottom, largest first, and the others laid out above them. This loses nothing: in any
// layout, moving the all-run blocks to the bottom and every other block down by the all-run
// bytes below it keeps every pair apart and the size unchanged. It also keeps greedy fast,
// since an all-run block would otherwise overlap every block placed after it.
BlockLayout LayoutBlocks(const std::vector<LayoutBlock>& blocks, int32_t positions,
                         int64_t alignment_bytes, const LayoutOptions& options) {
  CheckBlocks(blocks, positions, alignment_bytes);
  BlockLayout layout;
  layout.offset_bytes.assign(blocks.size(), 0);
  if (positions <= 0) return layout;
  MeasureLivePeak(blocks, positions, layout);
  const std::vector<int64_t> padded = PaddedSizes(blocks, alignment_bytes);
  const int64_t base_bytes = StackAllRunBlocks(blocks, padded, positions, layout);
  LayOutAbove(blocks, padded, positions, base_bytes, options, layout);
  return layout;
}

ArenaLayout LayoutArena(const std::vector<ResidentInterval>& residency, Step step_count,
                        int64_t alignment_bytes, const LayoutOptions& options, bool periodic) {
  // One block per interval, except that a wrapped pair is one block (the end interval's,
  // with the start interval as its head; the start interval's own block gets 0 bytes).
  std::vector<LayoutBlock> blocks;
  blocks.reserve(residency.size());
  for (const ResidentInterval& interval : residency) {
    blocks.push_back({interval.first_step, interval.last_step, interval.bytes});
  }
  const std::vector<std::pair<size_t, size_t>> wrapped =
      periodic ? WrappedPairs(residency, step_count) : std::vector<std::pair<size_t, size_t>>{};
  for (const auto& [head, tail] : wrapped) {
    blocks[tail].head_last = residency[head].last_step;
    blocks[head].bytes = 0;
  }
  BlockLayout placed = LayoutBlocksOrRecent(blocks, step_count, alignment_bytes, options);
  for (const auto& [head, tail] : wrapped) placed.offset_bytes[head] = placed.offset_bytes[tail];
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
