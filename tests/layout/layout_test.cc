// Block layout: greedy by size at any size, alignment padding, the sweep it beats, and the
// overlap index behind it, against hand arithmetic and brute force.
#include "hyperplan/layout/layout.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "layout/greedy_layout.h"
#include "layout/occupancy_tree.h"
#include "layout/sweep_layout.h"

using namespace hyperplan;

namespace {

// Every pair of blocks live at a common position is apart in space (padded sizes), every
// offset is aligned, every padded block ends inside the layout. Brute force over pairs.
void CheckValid(const std::vector<LayoutBlock>& blocks, const BlockLayout& layout,
                int64_t alignment_bytes) {
  REQUIRE(layout.offset_bytes.size() == blocks.size());
  for (size_t a = 0; a < blocks.size(); ++a) {
    if (blocks[a].bytes <= 0) continue;
    const int64_t a_begin = layout.offset_bytes[a];
    const int64_t a_end = a_begin + AlignUp(blocks[a].bytes, alignment_bytes);
    REQUIRE(a_begin >= 0);
    REQUIRE(a_begin % alignment_bytes == 0);
    REQUIRE(a_end <= layout.size_bytes);
    for (size_t b = a + 1; b < blocks.size(); ++b) {
      if (blocks[b].bytes <= 0) continue;
      const bool same_time = blocks[a].first <= blocks[b].last && blocks[b].first <= blocks[a].last;
      if (!same_time) continue;
      const int64_t b_begin = layout.offset_bytes[b];
      const int64_t b_end = b_begin + AlignUp(blocks[b].bytes, alignment_bytes);
      INFO("blocks " << a << " and " << b);
      REQUIRE((a_end <= b_begin || b_end <= a_begin));
    }
  }
}

// Max over positions of live bytes, by brute force.
int64_t LivePeak(const std::vector<LayoutBlock>& blocks, int32_t positions, int64_t alignment) {
  int64_t peak = 0;
  for (int32_t p = 0; p < positions; ++p) {
    int64_t live = 0;
    for (const LayoutBlock& block : blocks) {
      if (block.bytes > 0 && block.first <= p && p <= block.last) {
        live += AlignUp(block.bytes, alignment);
      }
    }
    peak = std::max(peak, live);
  }
  return peak;
}

std::vector<LayoutBlock> RandomBlocks(std::mt19937& random, size_t count, int32_t positions,
                                      int32_t max_length, int64_t max_bytes) {
  std::vector<LayoutBlock> blocks;
  for (size_t i = 0; i < count; ++i) {
    LayoutBlock block;
    block.first = static_cast<int32_t>(random() % static_cast<uint32_t>(positions));
    const auto length = static_cast<int32_t>(random() % static_cast<uint32_t>(max_length));
    block.last = std::min(positions - 1, block.first + length);
    // One block in 16 lives the whole run, as weights and home copies do.
    if (random() % 16 == 0) {
      block.first = 0;
      block.last = positions - 1;
    }
    block.bytes = static_cast<int64_t>(random() % static_cast<uint64_t>(max_bytes));  // 0 too
    blocks.push_back(block);
  }
  return blocks;
}

}  // namespace

TEST_CASE("layout: greedy by size with 64-byte alignment pads every block and offset") {
  // a (100 B, steps 0..1), b (50 B, 1..2), c (100 B, 2..3), d (10 B, 0..3); padded to 64:
  // a 128, b 64, c 128, d 64. d lives at every step: it goes to the bottom, [0, 64), and the
  // others are laid out above it. Largest first (ties: longer, then earlier): a, c, b.
  // a at 64. c does not meet a in time: 64. b meets a and c ([64,192) both): 192.
  // Size 192 + 64 = 256 = the padded peak at step 1 (64 + 128 + 64); the unpadded peak is
  // 10 + 100 + 50 = 160.
  std::vector<ResidentInterval> residency(4);
  residency[0] = {0, kNoNode, 0, 1, 100, -1, -1};
  residency[1] = {1, kNoNode, 1, 2, 50, -1, -1};
  residency[2] = {2, kNoNode, 2, 3, 100, -1, -1};
  residency[3] = {3, kNoNode, 0, 3, 10, -1, -1};
  const ArenaLayout layout = LayoutArena(residency, 4, 64);
  CHECK(layout.offset_bytes == std::vector<int64_t>{64, 192, 64, 0});
  CHECK(layout.arena_bytes == 256);
  CHECK(layout.live_peak_bytes == 160);
  CHECK(layout.live_peak_step == 1);
  CHECK(layout.alignment_bytes == 64);
  // The sweep above d ties at 192 (a 0, b 128, c into a's freed block); greedy by size wins
  // ties.
  CHECK(layout.algorithm == "greedy_by_size");
}

TEST_CASE("layout: blocks alive at every position sit at the bottom, largest first") {
  // Over 3 positions: h1 (5 B, all), p (7 B, position 1), h2 (9 B, all). h2 at 0, h1 at 9,
  // p above them at 14: size 21 = the peak at position 1.
  const std::vector<LayoutBlock> blocks = {{0, 2, 5}, {1, 1, 7}, {0, 2, 9}};
  const BlockLayout layout = LayoutBlocks(blocks, 3, 1);
  CHECK(layout.offset_bytes == std::vector<int64_t>{9, 14, 0});
  CHECK(layout.size_bytes == 21);
  CHECK(layout.live_peak_bytes == 21);
}

TEST_CASE("layout: greedy by size is tighter than the sweep where the sweep must guess") {
  // Over steps 0..3: A (2 B, step 0), B (1 B, steps 0..2), C (3 B, steps 1..2). Live: 3, 4,
  // 4, 0. (No block lives at every step, so none is set aside at the bottom.)
  // Sweep, step 0 largest first: A at 0, B at 2 (top 3). Step 1: A's [0,2) is free but C
  // needs 3 and the free block does not reach the top (B sits at 2): C at 3, size 6.
  // Greedy by size: C at 0; A does not meet C in time: 0; B meets A [0,2) and C [0,3): 3.
  // Size 4, the live peak: optimal.
  const std::vector<LayoutBlock> blocks = {{0, 0, 2}, {0, 2, 1}, {1, 2, 3}};
  const std::vector<int64_t> padded = {2, 1, 3};
  std::vector<int64_t> sweep_offsets(3, 0);
  CHECK(planner::PlaceSweepBestFit(blocks, padded, 3, sweep_offsets) == 6);
  CHECK(sweep_offsets == std::vector<int64_t>{0, 2, 3});

  const BlockLayout layout = LayoutBlocks(blocks, 4, 1);
  CHECK(layout.size_bytes == 4);
  CHECK(layout.live_peak_bytes == 4);
  CHECK(layout.offset_bytes == std::vector<int64_t>{0, 3, 0});
  CHECK(layout.algorithm == "greedy_by_size");

  LayoutOptions sweep_only;
  sweep_only.greedy = false;
  const BlockLayout swept = LayoutBlocks(blocks, 4, 1, sweep_only);
  CHECK(swept.size_bytes == 6);
  CHECK(swept.algorithm == "sweep_best_fit");
}

TEST_CASE("layout: best fit takes the tightest gap, first fit the lowest") {
  // Placed in this order (an explicit order), over steps 0..1:
  //   L1 (4 B, step 0) at 0; A (2 B, 0..1) above L1 at 4; L2 (1 B, step 0) above A at 6;
  //   B (1 B, 0..1) above L2 at 7. X (1 B, step 1) meets only A [4,6) and B [7,8): gaps
  //   [0,4) (4 B) and [6,7) (1 B). Best fit takes the exact [6,7); first fit the lowest, 0.
  const std::vector<LayoutBlock> blocks = {{0, 0, 4}, {0, 1, 2}, {0, 0, 1}, {0, 1, 1}, {1, 1, 1}};
  const std::vector<int64_t> padded = {4, 2, 1, 1, 1};
  const std::vector<int32_t> order = {0, 1, 2, 3, 4};
  planner::OccupancyTree occupied(2);
  std::vector<int64_t> best(5, 0);
  CHECK(planner::PlaceGreedy(blocks, padded, order, true, occupied, best) == 8);
  CHECK(best == std::vector<int64_t>{0, 4, 6, 7, 6});
  std::vector<int64_t> first(5, 0);
  CHECK(planner::PlaceGreedy(blocks, padded, order, false, occupied, first) == 8);
  CHECK(first == std::vector<int64_t>{0, 4, 6, 7, 0});
  // The size order: L1 (4), A (2), then the 1-byte blocks longest first (B), then by start
  // (L2 at 0, X at 1).
  CHECK(planner::PlacementOrder(blocks, padded, planner::GreedyOrder::kSize) ==
        std::vector<int32_t>{0, 1, 3, 2, 4});
}

TEST_CASE("layout: a greedy placement told a size to stop at stops once it reaches it") {
  // The blocks and order of the test above: L1 at 0 (size 4), A at 4 (6), L2 at 6 (7), B at
  // 7 (8), X at 6 (8). Stopping at 7, it stops after L2 (the size 7) and leaves B and X
  // where they were; stopping at 9, above the full run's 8, it places them all.
  const std::vector<LayoutBlock> blocks = {{0, 0, 4}, {0, 1, 2}, {0, 0, 1}, {0, 1, 1}, {1, 1, 1}};
  const std::vector<int64_t> padded = {4, 2, 1, 1, 1};
  const std::vector<int32_t> order = {0, 1, 2, 3, 4};
  planner::OccupancyTree occupied(2);
  std::vector<int64_t> stopped(5, -1);
  CHECK(planner::PlaceGreedy(blocks, padded, order, true, occupied, stopped, 7) == 7);
  CHECK(stopped == std::vector<int64_t>{0, 4, 6, -1, -1});
  std::vector<int64_t> full(5, -1);
  CHECK(planner::PlaceGreedy(blocks, padded, order, true, occupied, full, 9) == 8);
  CHECK(full == std::vector<int64_t>{0, 4, 6, 7, 6});
}

TEST_CASE("layout: the occupancy tree returns exactly the union of the blocks met, coalesced") {
  std::mt19937 random(7);
  const int32_t positions = 97;
  const std::vector<LayoutBlock> blocks = RandomBlocks(random, 300, positions, 30, 100);
  planner::OccupancyTree occupied(positions);
  std::vector<int64_t> offset(blocks.size(), 0);
  std::vector<uint8_t> placed(blocks.size(), 0);
  for (size_t b = 0; b < blocks.size(); ++b) {
    // Any offsets will do (overlaps included): the tree answers a union, not a layout.
    offset[b] = static_cast<int64_t>(random() % 2000);
    if (blocks[b].bytes > 0) {
      occupied.Occupy(blocks[b].first, blocks[b].last, offset[b], offset[b] + blocks[b].bytes);
      placed[b] = 1;
    }
    const auto first = static_cast<int32_t>(random() % positions);
    const auto last = std::min(positions - 1, first + static_cast<int32_t>(random() % 40));
    std::vector<planner::OccupancyTree::Run> runs;
    occupied.Occupied(first, last, runs);
    // Sorted, disjoint and not touching: each run begins past the end of the one before (the
    // greedy's gap scan relies only on the order; disjoint runs keep its merges small).
    for (size_t r = 0; r < runs.size(); ++r) {
      REQUIRE(runs[r].first < runs[r].second);
      if (r > 0) REQUIRE(runs[r - 1].second < runs[r].first);
    }
    // Compare byte by byte over the offsets used: taken by the runs vs by the blocks.
    std::vector<uint8_t> by_runs(2100, 0);
    std::vector<uint8_t> by_blocks(2100, 0);
    for (const auto& [begin, end] : runs) {
      for (int64_t x = begin; x < end; ++x) by_runs[x] = 1;
    }
    for (size_t i = 0; i <= b; ++i) {
      if (!placed[i] || blocks[i].last < first || blocks[i].first > last) continue;
      for (int64_t x = offset[i]; x < offset[i] + blocks[i].bytes; ++x) by_blocks[x] = 1;
    }
    REQUIRE(by_runs == by_blocks);
  }
  occupied.Reset();
  std::vector<planner::OccupancyTree::Run> none;
  occupied.Occupied(0, positions - 1, none);
  CHECK(none.empty());
}

TEST_CASE("layout: greedy places exactly as TFLite's quadratic scan over placed blocks") {
  // The oracle: for each block, every placed block in offset order, skipping those that do
  // not meet it in time (TFLite's ArenaPlanner, and this planner's layout before the tree).
  auto quadratic = [](const std::vector<LayoutBlock>& blocks, const std::vector<int64_t>& padded,
                      const std::vector<int32_t>& order, bool best_fit) {
    std::vector<int64_t> offsets(blocks.size(), 0);
    std::vector<int32_t> placed;  // by (offset, index)
    for (const int32_t i : order) {
      int64_t best_offset = -1;
      int64_t best_gap = 0;
      int64_t cursor = 0;
      for (const int32_t j : placed) {
        if (blocks[i].first > blocks[j].last || blocks[j].first > blocks[i].last) continue;
        const int64_t gap = offsets[j] - cursor;
        if (gap >= padded[i] && (best_offset < 0 || (best_fit && gap < best_gap))) {
          best_offset = cursor;
          best_gap = gap;
        }
        cursor = std::max(cursor, offsets[j] + padded[j]);
      }
      offsets[i] = best_offset >= 0 ? best_offset : cursor;
      const auto at = std::upper_bound(placed.begin(), placed.end(), i, [&](int32_t a, int32_t b) {
        return std::tie(offsets[a], a) < std::tie(offsets[b], b);
      });
      placed.insert(at, i);
    }
    return offsets;
  };
  for (const uint32_t seed : {21u, 22u, 23u, 24u}) {
    std::mt19937 random(seed);
    const int32_t positions = 40 + static_cast<int32_t>(random() % 100);
    const std::vector<LayoutBlock> blocks = RandomBlocks(random, 500, positions, 25, 300);
    std::vector<int64_t> padded;
    for (const LayoutBlock& block : blocks) padded.push_back(AlignUp(block.bytes, 16));
    planner::OccupancyTree occupied(positions);
    for (const planner::GreedyOrder order : planner::kGreedyOrders) {
      for (const bool best_fit : {true, false}) {
        const std::vector<int32_t> sequence = planner::PlacementOrder(blocks, padded, order);
        std::vector<int64_t> offsets(blocks.size(), 0);
        planner::PlaceGreedy(blocks, padded, sequence, best_fit, occupied, offsets);
        INFO("seed " << seed << ", " << planner::GreedyOrderName(order) << ", best fit "
                     << best_fit);
        REQUIRE(offsets == quadratic(blocks, padded, sequence, best_fit));
      }
    }
  }
}

TEST_CASE("layout: the sweep is kept only where it beats greedy by size, which runs first") {
  // LayoutBlocks skips the sweep when greedy by size meets the padded peak; whatever it skips,
  // the kept layout must be the one running both and keeping the smaller (greedy at a tie)
  // would keep. The oracle runs both on their own. No block lives at every position (those
  // are stacked apart) and the other orders are off.
  LayoutOptions size_and_sweep;
  size_and_sweep.all_orders_limit = 0;
  size_and_sweep.shaken_limit = 0;
  int sweep_kept = 0;
  int greedy_kept = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 random(seed);
    const int32_t positions = 8 + static_cast<int32_t>(random() % 24);
    std::vector<LayoutBlock> blocks = RandomBlocks(random, 30, positions, 6, 50);
    for (LayoutBlock& block : blocks) {
      if (block.first == 0 && block.last == positions - 1) block.last = positions - 2;
    }
    std::vector<int64_t> unpadded;  // alignment 1: padded sizes are the sizes
    for (const LayoutBlock& block : blocks) unpadded.push_back(std::max<int64_t>(0, block.bytes));
    planner::OccupancyTree occupied(positions);
    std::vector<int64_t> greedy_offsets(blocks.size(), 0);
    const int64_t greedy_bytes = planner::PlaceGreedy(
        blocks, unpadded, planner::PlacementOrder(blocks, unpadded, planner::GreedyOrder::kSize),
        true, occupied, greedy_offsets);
    std::vector<int64_t> sweep_offsets(blocks.size(), 0);
    const int64_t sweep_bytes =
        planner::PlaceSweepBestFit(blocks, unpadded, positions, sweep_offsets);
    const BlockLayout layout = LayoutBlocks(blocks, positions, 1, size_and_sweep);
    INFO("seed " << seed << ": greedy " << greedy_bytes << ", sweep " << sweep_bytes);
    if (sweep_bytes < greedy_bytes) {
      ++sweep_kept;
      CHECK(layout.algorithm == "sweep_best_fit");
      CHECK(layout.size_bytes == sweep_bytes);
    } else {
      ++greedy_kept;
      CHECK(layout.algorithm == "greedy_by_size");
      CHECK(layout.size_bytes == greedy_bytes);
    }
  }
  // Both outcomes occur among these seeds, so both paths were checked.
  CHECK(sweep_kept > 0);
  CHECK(greedy_kept > 0);
}

TEST_CASE("layout: random blocks never overlap, stay aligned, and reach at least the peak") {
  for (const uint32_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    std::mt19937 random(seed);
    const int32_t positions = 50 + static_cast<int32_t>(random() % 200);
    const size_t count = 50 + random() % 600;
    const int64_t alignment = int64_t{1} << (random() % 9);  // 1 .. 256
    const std::vector<LayoutBlock> blocks = RandomBlocks(random, count, positions, 40, 5000);
    INFO("seed " << seed << ", " << count << " blocks, alignment " << alignment);
    LayoutOptions options;
    options.all_orders_limit = seed % 2 == 0 ? 0 : 16'384;  // greedy by size alone, or all
    const BlockLayout layout = LayoutBlocks(blocks, positions, alignment, options);
    CheckValid(blocks, layout, alignment);
    CHECK(layout.live_peak_bytes == LivePeak(blocks, positions, 1));
    CHECK(layout.size_bytes >= LivePeak(blocks, positions, alignment));
    // Never worse than the sweep, which always runs.
    LayoutOptions sweep_only;
    sweep_only.greedy = false;
    const BlockLayout swept = LayoutBlocks(blocks, positions, alignment, sweep_only);
    CheckValid(blocks, swept, alignment);
    CHECK(layout.size_bytes <= swept.size_bytes);
  }
}

TEST_CASE("layout: greedy by size runs at any size (6000 blocks) and stays valid") {
  std::vector<LayoutBlock> blocks;
  const int32_t steps = 3000;
  for (int32_t s = 0; s + 2 < steps; ++s) blocks.push_back({s, s + 2, 10 + (s % 7) * 10});
  blocks.insert(blocks.end(), blocks.begin(), blocks.end());
  LayoutOptions options;
  options.all_orders_limit = 1024;  // beyond it: greedy by size and the sweep only
  const BlockLayout layout = LayoutBlocks(blocks, steps, 8, options);
  CHECK(layout.algorithm.rfind("greedy_by_size", 0) == 0);
  CHECK(layout.size_bytes >= layout.live_peak_bytes);
  // No two live blocks overlap: brute force over a window of steps.
  for (int32_t s = 0; s < 200; ++s) {
    std::vector<std::pair<int64_t, int64_t>> live;
    for (size_t i = 0; i < blocks.size(); ++i) {
      if (blocks[i].first <= s && s <= blocks[i].last) {
        live.push_back(
            {layout.offset_bytes[i], layout.offset_bytes[i] + AlignUp(blocks[i].bytes, 8)});
      }
    }
    std::sort(live.begin(), live.end());
    for (size_t i = 1; i < live.size(); ++i) REQUIRE(live[i - 1].second <= live[i].first);
  }
}

TEST_CASE("layout: an arena laid out again answers for its own inputs, not the last ones") {
  // A thread's last arena is reused only for the very same inputs; each change below must
  // give its own layout. a 4 B over steps 0..1, b 2 B over 1..2 (they meet at step 1), one
  // byte alignment: a at 0, b at 4, arena 6.
  std::vector<ResidentInterval> residency(2);
  residency[0] = {0, kNoNode, 0, 1, 4, -1, -1};
  residency[1] = {1, kNoNode, 1, 2, 2, -1, -1};
  CHECK(LayoutArena(residency, 3, 1).arena_bytes == 6);
  CHECK(LayoutArena(residency, 3, 1).offset_bytes == std::vector<int64_t>{0, 4});
  // b 5 B: now the larger, placed first at 0, a on top at 5: arena 9.
  residency[1].bytes = 5;
  const ArenaLayout bigger_b = LayoutArena(residency, 3, 1);
  CHECK(bigger_b.arena_bytes == 9);
  CHECK(bigger_b.offset_bytes == std::vector<int64_t>{5, 0});
  // Aligned to 8: a and b take 8 each, as long (ties: the earlier first): a at 0, b at 8.
  CHECK(LayoutArena(residency, 3, 8).arena_bytes == 16);
  // b over step 2 only: they never meet, both at 0, arena 5 (b's 5 B).
  residency[1].first_step = 2;
  CHECK(LayoutArena(residency, 3, 1).arena_bytes == 5);
  // The positions alone: c 2 B over steps 0..2, d 4 B at step 0. Over 3 steps c lives at
  // every one and is stacked at the bottom, d above it at 2; over 4 steps it does not, so the
  // larger d goes first at 0 and c, meeting it at step 0, on top at 4.
  std::vector<ResidentInterval> cd(2);
  cd[0] = {0, kNoNode, 0, 2, 2, -1, -1};
  cd[1] = {1, kNoNode, 0, 0, 4, -1, -1};
  CHECK(LayoutArena(cd, 3, 1).offset_bytes == std::vector<int64_t>{0, 2});
  CHECK(LayoutArena(cd, 4, 1).offset_bytes == std::vector<int64_t>{4, 0});
}

TEST_CASE("layout: arenas laid out in turn each answer for their own inputs") {
  // A thread keeps its recent arenas (layout.cc RecentArenas, up to 32): interleaved, each
  // must still get its own layout, whether it comes back one arena later or after many.
  // a 4 B over steps 0..1, b 2 B over 1..2 (they meet at step 1): a at 0, b at 4, arena 6.
  std::vector<ResidentInterval> small_b(2);
  small_b[0] = {0, kNoNode, 0, 1, 4, -1, -1};
  small_b[1] = {1, kNoNode, 1, 2, 2, -1, -1};
  // b 5 B: the larger, placed first at 0, a on top at 5: arena 9.
  std::vector<ResidentInterval> big_b = small_b;
  big_b[1].bytes = 5;
  // Filler arenas, each with its own size (c over steps 0..1, d at step 2: never meet, both
  // at 0; arena max(c, d) = 10 + k): they push the two above back in the recent list, past
  // its 32 entries from k = 31 on.
  auto filler = [](int64_t k) {
    std::vector<ResidentInterval> residency(2);
    residency[0] = {0, kNoNode, 0, 1, 10 + k, -1, -1};
    residency[1] = {1, kNoNode, 2, 2, 3, -1, -1};
    return residency;
  };
  for (int64_t round = 0; round < 2; ++round) {
    CHECK(LayoutArena(small_b, 3, 1).offset_bytes == std::vector<int64_t>{0, 4});
    CHECK(LayoutArena(big_b, 3, 1).offset_bytes == std::vector<int64_t>{5, 0});
    for (int64_t k = 0; k < 40; ++k) {
      const ArenaLayout layout = LayoutArena(filler(k), 3, 1);
      CHECK(layout.arena_bytes == 10 + k);
      CHECK(layout.offset_bytes == std::vector<int64_t>{0, 0});
      // Every few fillers the two again, at various depths of the recent list.
      if (k % 7 == 0) {
        CHECK(LayoutArena(small_b, 3, 1).arena_bytes == 6);
        CHECK(LayoutArena(big_b, 3, 1).arena_bytes == 9);
        CHECK(LayoutArena(big_b, 3, 8).arena_bytes == 16);  // aligned to 8: a at 0, b at 8
      }
    }
    // A filler again, now deep in the list or dropped from it: its own size either way.
    CHECK(LayoutArena(filler(3), 3, 1).arena_bytes == 13);
    CHECK(LayoutArena(filler(39), 3, 1).arena_bytes == 49);
  }
}

TEST_CASE("layout: a loop's block kept across the boundary gets one offset at both ends") {
  // Over 5 steps: w at step 0 (opened at the run's start, closed by step 9) and again over
  // steps 3..4 (opened by step 7, open at the run's end), 100 B; p 100 B over steps 2..4.
  // Periodic: w's two intervals are one block living 3 positions, [3,4] and [0,0]. Largest
  // first, ties: longer, then earlier first: p (first 2) before w (first 3). p at 0; w meets p
  // at 3..4, so it goes on top of it, 100, at both ends. Size 200 = the peak at steps 3..4.
  std::vector<ResidentInterval> residency(3);
  residency[0] = {0, kNoNode, 0, 0, 100, -1, 9};
  residency[1] = {0, kNoNode, 3, 4, 100, 7, -1};
  residency[2] = {1, kNoNode, 2, 4, 100, -1, -1};
  const ArenaLayout loop = LayoutArena(residency, 5, 1, {}, /*periodic=*/true);
  CHECK(loop.offset_bytes == std::vector<int64_t>{100, 100, 0});
  CHECK(loop.arena_bytes == 200);
  CHECK(loop.live_peak_bytes == 200);
  CHECK(loop.live_peak_step == 3);
  // One run: two blocks. p (3 positions) first at 0, then w's [3,4] (2) at 100 over p, then
  // w's [0,0] (1) at 0: the offsets differ, which a loop's end cannot allow.
  const ArenaLayout once = LayoutArena(residency, 5, 1, {}, /*periodic=*/false);
  CHECK(once.offset_bytes == std::vector<int64_t>{0, 100, 0});
  CHECK(once.arena_bytes == 200);
}

TEST_CASE("layout: a sweep that cannot beat a kept size stops where it reaches it") {
  // The blocks of "greedy by size is tighter than the sweep": A (2 B, step 0), B (1 B, steps
  // 0..2), C (3 B, steps 1..2). The full sweep: A at 0, B at 2 (top 3), then C at 3: 6.
  const std::vector<LayoutBlock> blocks = {{0, 0, 2}, {0, 2, 1}, {1, 2, 3}};
  const std::vector<int64_t> padded = {2, 1, 3};
  const std::vector<int32_t> order =
      planner::PlacementOrder(blocks, padded, planner::GreedyOrder::kSize);
  // Above the full size: nothing stops it, the same offsets as without a stop.
  std::vector<int64_t> offsets(3, -1);
  CHECK(planner::PlaceSweepBestFit(blocks, padded, 3, order, offsets, 7) == 6);
  CHECK(offsets == std::vector<int64_t>{0, 2, 3});
  // Stop at 6 (greedy's 4 would be kept over it): C's placement reaches 6 and it returns 6,
  // not less, so the caller's strict test still rejects it.
  CHECK(planner::PlaceSweepBestFit(blocks, padded, 3, order, offsets, 6) == 6);
  // Stop at 3: B takes the top to 3 at step 0, so C is never placed (its offset stays -1).
  std::fill(offsets.begin(), offsets.end(), -1);
  CHECK(planner::PlaceSweepBestFit(blocks, padded, 3, order, offsets, 3) == 3);
  CHECK(offsets == std::vector<int64_t>{0, 2, -1});
  // LayoutBlocks, where greedy's 4 is kept and the sweep stops, still lays out as greedy.
  const BlockLayout layout = LayoutBlocks(blocks, 4, 1);
  CHECK(layout.size_bytes == 4);
  CHECK(layout.offset_bytes == std::vector<int64_t>{0, 3, 0});
}

TEST_CASE("layout: the sweep holds a wrapped block from the first position to its end") {
  // w 100 B over [3,4] and [0,0]; x 100 B over [1,2]. Greedy shares offset 0 between them
  // (they never meet): size 100. The sweep, which cannot promise w's offset is free again at
  // position 3, holds w over [0,4], so x goes on top: 200.
  const std::vector<LayoutBlock> blocks = {{3, 4, 100, 0}, {1, 2, 100}};
  std::vector<int64_t> offsets(2, 0);
  CHECK(planner::PlaceSweepBestFit(blocks, {100, 100}, 5, offsets) == 200);
  CHECK(offsets == std::vector<int64_t>{0, 100});
  const BlockLayout layout = LayoutBlocks(blocks, 5, 1);
  CHECK(layout.offset_bytes == std::vector<int64_t>{0, 0});
  CHECK(layout.size_bytes == 100);
  CHECK(layout.live_peak_bytes == 100);
}
