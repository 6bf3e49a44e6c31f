// Arena layout: greedy placements in several orders and a sweep best-fit (see layout.h).
#include "hyperplan/planner/layout.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>

namespace hyperplan {
namespace {

bool Overlaps(const ResidentInterval& a, const ResidentInterval& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

// Orders greedy placement tries: largest first (TFLite's greedy by size), longest-lived
// first, largest area (bytes x steps) first, earliest start first. Ties by start, then index.
constexpr size_t kAllVariantsLimit = 1024;
constexpr size_t kShakenLimit = 256;
constexpr uint32_t kShakenTrials = 32;

enum class Priority { kSize, kDuration, kArea, kStart };
constexpr Priority kPriorities[] = {Priority::kSize, Priority::kDuration, Priority::kArea,
                                    Priority::kStart};

std::vector<size_t> PlacementOrder(const std::vector<ResidentInterval>& residency,
                                   Priority priority) {
  std::vector<size_t> order;
  for (size_t i = 0; i < residency.size(); ++i) {
    if (residency[i].bytes > 0) order.push_back(i);
  }
  auto key = [&](size_t i) {
    const ResidentInterval& r = residency[i];
    const int64_t length = r.last_step - r.first_step + 1;
    switch (priority) {
      case Priority::kDuration:
        return std::make_tuple(-length, -r.bytes, int64_t{r.first_step}, i);
      case Priority::kArea:
        return std::make_tuple(-length * r.bytes, -r.bytes, int64_t{r.first_step}, i);
      case Priority::kStart:
        return std::make_tuple(int64_t{r.first_step}, -r.bytes, int64_t{0}, i);
      default:
        return std::make_tuple(-r.bytes, -length, int64_t{r.first_step}, i);
    }
  };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  return order;
}

// Each interval, in the given order, into a gap among the placed intervals that overlap it in
// time: the tightest gap (best fit, as TFLite) or the lowest (first fit); else on top.
int64_t Greedy(const std::vector<ResidentInterval>& residency, const std::vector<size_t>& order,
               bool best_fit, std::vector<int64_t>& offsets) {
  std::vector<size_t> placed;  // sorted by offset
  int64_t arena_bytes = 0;
  for (size_t i : order) {
    const ResidentInterval& interval = residency[i];
    int64_t best_offset = -1;
    int64_t best_gap = 0;
    int64_t cursor = 0;
    for (size_t j : placed) {
      if (!Overlaps(interval, residency[j])) continue;
      const int64_t gap = offsets[j] - cursor;
      if (gap >= interval.bytes && (best_offset < 0 || (best_fit && gap < best_gap))) {
        best_offset = cursor;
        best_gap = gap;
      }
      cursor = std::max(cursor, offsets[j] + residency[j].bytes);
    }
    offsets[i] = best_offset >= 0 ? best_offset : cursor;
    arena_bytes = std::max(arena_bytes, offsets[i] + interval.bytes);
    const auto at = std::upper_bound(placed.begin(), placed.end(), i, [&](size_t a, size_t b) {
      return std::tie(offsets[a], a) < std::tie(offsets[b], b);
    });
    placed.insert(at, i);
  }
  return arena_bytes;
}

// Largest first with each size scaled by a pseudo-random factor in [1, 1.5): a deterministic
// shake of TFLite's order (std::mt19937's output is fixed by the standard).
std::vector<size_t> PerturbedOrder(const std::vector<ResidentInterval>& residency, uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<std::pair<__int128, size_t>> keyed;
  for (size_t i = 0; i < residency.size(); ++i) {
    const int64_t factor = 1000 + static_cast<int64_t>(random() % 500);
    if (residency[i].bytes > 0)
      keyed.push_back({-static_cast<__int128>(residency[i].bytes) * factor, i});
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<size_t> order;
  order.reserve(keyed.size());
  for (const auto& entry : keyed) order.push_back(entry.second);
  return order;
}

// A runtime allocator replayed over steps: best-fit free block, coalescing on free.
int64_t SweepBestFit(const std::vector<ResidentInterval>& residency, Step step_count,
                     std::vector<int64_t>& offsets) {
  std::vector<std::vector<size_t>> starting(static_cast<size_t>(step_count));
  std::vector<std::vector<size_t>> ending(static_cast<size_t>(step_count));
  for (size_t i : PlacementOrder(residency, Priority::kSize)) {
    starting[residency[i].first_step].push_back(i);
    ending[residency[i].last_step].push_back(i);
  }
  std::set<std::pair<int64_t, int64_t>> by_size;  // (size, offset)
  std::map<int64_t, int64_t> by_offset;           // offset -> size
  int64_t top = 0;
  int64_t arena_bytes = 0;
  auto take = [&](std::map<int64_t, int64_t>::iterator block) {
    by_size.erase({block->second, block->first});
    by_offset.erase(block);
  };
  auto give = [&](int64_t offset, int64_t size) {
    auto next = by_offset.lower_bound(offset);
    if (next != by_offset.end() && next->first == offset + size) {
      size += next->second;
      take(next);
    }
    auto previous = by_offset.lower_bound(offset);
    if (previous != by_offset.begin()) {
      --previous;
      if (previous->first + previous->second == offset) {
        offset = previous->first;
        size += previous->second;
        take(previous);
      }
    }
    by_offset.emplace(offset, size);
    by_size.emplace(size, offset);
  };
  for (Step step = 0; step < step_count; ++step) {
    for (size_t i : starting[step]) {
      const int64_t bytes = residency[i].bytes;
      const auto fit = by_size.lower_bound({bytes, 0});
      if (fit != by_size.end()) {
        const auto [size, offset] = *fit;
        take(by_offset.find(offset));
        offsets[i] = offset;
        if (size > bytes) give(offset + bytes, size - bytes);
      } else if (!by_offset.empty() &&
                 std::prev(by_offset.end())->first + std::prev(by_offset.end())->second == top) {
        // Grow the arena from the free block at its top.
        const auto last = std::prev(by_offset.end());
        offsets[i] = last->first;
        take(last);
        top = offsets[i] + bytes;
      } else {
        offsets[i] = top;
        top += bytes;
      }
      arena_bytes = std::max(arena_bytes, top);
    }
    for (size_t i : ending[step]) give(offsets[i], residency[i].bytes);
  }
  return arena_bytes;
}

}  // namespace

ArenaLayout LayoutArena(const std::vector<ResidentInterval>& residency, Step step_count) {
  ArenaLayout layout;
  layout.offset_bytes.assign(residency.size(), 0);
  if (step_count <= 0) return layout;

  std::vector<int64_t> live(static_cast<size_t>(step_count) + 1, 0);
  for (const ResidentInterval& interval : residency) {
    if (interval.bytes <= 0) continue;
    live[interval.first_step] += interval.bytes;
    live[interval.last_step + 1] -= interval.bytes;
  }
  int64_t bytes = 0;
  for (Step step = 0; step < step_count; ++step) {
    bytes += live[step];
    if (bytes > layout.live_peak_bytes) {
      layout.live_peak_bytes = bytes;
      layout.live_peak_step = step;
    }
  }

  std::vector<int64_t> sweep_offsets(residency.size(), 0);
  const int64_t sweep_bytes = SweepBestFit(residency, step_count, sweep_offsets);
  layout.offset_bytes = std::move(sweep_offsets);
  layout.arena_bytes = sweep_bytes;
  layout.algorithm = "sweep_best_fit";
  if (residency.size() <= kGreedyLayoutLimit) {
    static constexpr const char* kNames[] = {"greedy_by_size", "greedy_by_duration",
                                             "greedy_by_area", "greedy_by_start"};
    // Every variant while cheap; beyond kAllVariantsLimit intervals only TFLite's.
    const bool all_variants = residency.size() <= kAllVariantsLimit;
    for (const bool best_fit : {true, false}) {
      for (const Priority priority : kPriorities) {
        if (!all_variants && !(best_fit && priority == Priority::kSize)) continue;
        std::vector<int64_t> offsets(residency.size(), 0);
        const int64_t bytes =
            Greedy(residency, PlacementOrder(residency, priority), best_fit, offsets);
        // TFLite's greedy by size (the first variant) wins ties with the sweep; the others
        // must do strictly better than what is kept.
        const bool first = best_fit && priority == Priority::kSize;
        if (bytes < layout.arena_bytes || (first && bytes == layout.arena_bytes)) {
          layout.offset_bytes = std::move(offsets);
          layout.arena_bytes = bytes;
          layout.algorithm =
              std::string(kNames[static_cast<int>(priority)]) + (best_fit ? "" : "_first_fit");
        }
      }
    }
    // Small problems: shaken orders too, until one reaches the lower bound.
    if (residency.size() <= kShakenLimit) {
      for (uint32_t trial = 1;
           trial <= kShakenTrials && layout.arena_bytes > layout.live_peak_bytes; ++trial) {
        std::vector<int64_t> offsets(residency.size(), 0);
        const bool best_fit = trial % 2 == 1;
        const int64_t bytes =
            Greedy(residency, PerturbedOrder(residency, trial), best_fit, offsets);
        if (bytes < layout.arena_bytes) {
          layout.offset_bytes = std::move(offsets);
          layout.arena_bytes = bytes;
          layout.algorithm = "greedy_shaken_" + std::to_string(trial);
        }
      }
    }
  }
  return layout;
}

}  // namespace hyperplan
