// PlacementCache: the refine's evaluated placements at one step, kept across its greedy rounds
// until a change touches what they read (refine.h).
//
// A placement (refine.cc Place, with its bundle) is a function of the candidate, the step it
// must free and the part of the refiner's state it reads: the channels of some links (the
// planned links, or the compute-only axis's pre-peak Store links) over time windows, the room
// of some off-device tiers over step ranges, per value whether its Store is placed and its
// home copy counted, and whether its bundle's partners are taken. Each read is recorded as a
// window that no change outside can affect (a search's answer depends only on which times are
// free on each channel, never on how the busy intervals are split or merged):
// - EarliestSlot from `lower` answering s (least over the channels, ties to the lower one):
//   [lower, s + d]. A start before s on any channel, or [s, s + d) busy on the chosen one,
//   needs a change inside it.
// - LatestSlot by `deadline` answering s (greatest over the channels): [s, deadline]; with no
//   answer, [lower, deadline]. A start after s (or any start) lies inside it.
// - A tier's Max over steps [first, last]: that range.
// A change (a reservation or release of [start, end] on a link's channel, bytes added to a tier
// over steps, a value's Store or home copy, a candidate taken) drops every entry with a read
// of the same resource that overlaps it (closed intervals, so touching counts too: the cache
// errs towards placing again). So an entry still held is what placing the candidate again at
// its step would give, byte for byte. Changes that are undone before anything else reads the
// state (a bundle's partners placed against its slots, a trial re-placement) are not changes.
// Why: where no placement hides its transfer (streaming from NVMe on h100-sxm), a greedy round
// places up to kEvaluatedPerRound candidates, takes one and returns the rest to the index, and
// the next round at the same step placed them all again.
// Cost: recording adds a window per search; a change scans the held entries (only those of the
// current step: an entry at another step is dropped when the step changes) and their reads.
// Memory: one entry per candidate evaluated at the current step.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "hyperplan/plan/plan.h"

namespace hyperplan::planner {

// What a placement read, as closed windows per resource.
class PlacementReads {
 public:
  enum class Kind : uint8_t { kLink, kPrePeakLink, kValue, kCandidate, kTierRoom };

  void Add(Kind kind, int32_t id, int64_t first, int64_t last) {
    windows_.push_back({kind, id, first, last});
  }
  void Add(Kind kind, int32_t id) { Add(kind, id, 0, 0); }
  // A room check of `tier` over steps [first, last] that passed (`slack_bytes` >= 0: the bytes
  // still free at its fullest step) or failed (< 0: the bytes it lacked).
  void AddRoom(int32_t tier, int64_t first, int64_t last, int64_t slack_bytes) {
    windows_.push_back({Kind::kTierRoom, tier, first, last, slack_bytes});
  }

  // Whether a change of `id` of `kind` over [first, last] overlaps one of the reads.
  bool Touches(Kind kind, int32_t id, int64_t first, int64_t last) const {
    for (const Window& w : windows_) {
      if (w.kind == kind && w.id == id && first <= w.last && last >= w.first) return true;
    }
    return false;
  }

  // `delta_bytes` added to `tier` over steps [first, last]: whether a room check might now
  // answer otherwise. Each overlapping change is charged against the check's slack, as if
  // it fell on the fullest step (a passed check loses room only to additions, a failed one
  // gains it only from releases), so a check kept is one whose answer cannot have changed.
  bool RoomChanges(int32_t tier, int64_t first, int64_t last, int64_t delta_bytes) {
    for (Window& w : windows_) {
      if (w.kind != Kind::kTierRoom || w.id != tier || first > w.last || last < w.first) continue;
      if (w.slack_bytes >= 0) {
        w.slack_bytes -= std::max<int64_t>(delta_bytes, 0);
        if (w.slack_bytes < 0) return true;
      } else {
        w.slack_bytes += std::max<int64_t>(-delta_bytes, 0);
        if (w.slack_bytes >= 0) return true;
      }
    }
    return false;
  }

 private:
  struct Window {
    Kind kind;
    int32_t id;
    int64_t first;
    int64_t last;
    int64_t slack_bytes = 0;  // kTierRoom only
  };
  std::vector<Window> windows_;
};

// `Result` (the refiner's Attempt) per candidate, over the steps at which it holds. Changes
// are logged; an entry catches up with the log when it is looked up, and one that missed more
// than kMaxCatchUp changes is placed again instead (bounding a lookup's cost).
template <typename Result>
class PlacementCache {
 public:
  static constexpr size_t kMaxCatchUp = 128;

  explicit PlacementCache(size_t candidate_count = 0) : entries_(candidate_count) {}

  // The result held for `candidate` at `step`, if it holds there and no change since touched
  // its reads; null otherwise.
  const Result* Find(int32_t candidate, Step step) {
    Entry& entry = entries_[static_cast<size_t>(candidate)];
    if (!entry.held || step < entry.first_step || step > entry.last_step) return nullptr;
    if (log_.size() - entry.seen > kMaxCatchUp || Missed(entry)) {
      entry = Entry();
      return nullptr;
    }
    entry.seen = log_.size();
    return &entry.result;
  }

  // Holds `result` for `candidate` at steps [first_step, last_step].
  void Hold(int32_t candidate, Step first_step, Step last_step, Result result,
            PlacementReads reads) {
    entries_[static_cast<size_t>(candidate)] =
        Entry{true, first_step, last_step, log_.size(), std::move(result), std::move(reads)};
  }

  // A change of `id` of `kind` over [first, last].
  void Change(PlacementReads::Kind kind, int32_t id, int64_t first, int64_t last) {
    log_.push_back({kind, id, first, last, 0});
  }
  void Change(PlacementReads::Kind kind, int32_t id) { Change(kind, id, 0, 0); }

  // `delta_bytes` on `tier` over steps [first, last].
  void ChangeRoom(int32_t tier, int64_t first, int64_t last, int64_t delta_bytes) {
    log_.push_back({PlacementReads::Kind::kTierRoom, tier, first, last, delta_bytes});
  }

 private:
  struct Logged {
    PlacementReads::Kind kind;
    int32_t id;
    int64_t first;
    int64_t last;
    int64_t delta_bytes;
  };

  struct Entry {
    bool held = false;
    Step first_step = 0;
    Step last_step = -1;
    size_t seen = 0;  // the log's length when it was last checked
    Result result;
    PlacementReads reads;
  };

  // Whether a change logged since the entry was last checked touches its reads.
  bool Missed(Entry& entry) const {
    for (size_t i = entry.seen; i < log_.size(); ++i) {
      const Logged& change = log_[i];
      const bool touched =
          change.kind == PlacementReads::Kind::kTierRoom
              ? entry.reads.RoomChanges(change.id, change.first, change.last, change.delta_bytes)
              : entry.reads.Touches(change.kind, change.id, change.first, change.last);
      if (touched) return true;
    }
    return false;
  }

  std::vector<Entry> entries_;  // by candidate
  std::vector<Logged> log_;
};

}  // namespace hyperplan::planner
