// PlacementCache: the refine's evaluated placements, kept across its greedy rounds until a
// change touches what they read (refine.h).
//
// A placement (refine.cc Place, with its bundle) is a function of the candidate, the step it
// must free and the part of the refiner's state it reads: the channels of some links (the
// planned links, or the compute-only axis's pre-peak Store links), the room of some off-device
// tiers over step ranges, per value whether its Store is placed and its home copy counted, and
// whether its bundle's partners are taken. A link search's answer depends only on which times
// are free on each channel, never on how the busy intervals are split or merged, so each read
// is recorded with what a change must touch to alter its answer:
// - EarliestSlot from `lower` answering slot [s, s + d] on channel c (the least start over the
//   channels, ties to the lower channel). A reservation only delays other channels, so it
//   alters the answer only by overlapping [s, s + d] on c; a release alters it only by
//   freeing an earlier start, or a tie on a lower channel, inside [lower, s + d].
// - LatestSlot by `deadline` answering [s, s + d] on c (the greatest start): a reservation
//   only by overlapping [s, s + d] on c; a release only by freeing a later start (or a tie on
//   a lower channel) inside [s, deadline]. With no answer, no reservation alters it, and a
//   release only inside [lower, deadline].
// - A tier's room check over steps [first, last] (its fullest step plus the bytes against the
//   capacity): each overlapping change is charged against the check's slack as if it fell on
//   the fullest step; a passed check loses room only to additions, a failed one gains it only
//   from releases.
// Overlaps are of closed intervals, so touching counts too: the cache errs towards placing
// again. An entry still held is what placing the candidate again would give, byte for byte.
// Changes undone before anything else reads the state (a bundle's partners placed against its
// slots, a trial re-placement) are not changes. The steps an entry holds at are the caller's
// (refine.cc SameAtSteps).
// Why: where no placement hides its transfer (streaming from NVMe on h100-sxm), a greedy round
// places up to kEvaluatedPerRound candidates, takes one and returns the rest to the index, and
// the next rounds placed them all again: on the DeepSeek-V3-sized QMoE decode on h100-sxm
// 11.6 M placements for 0.93 M commits.
// Cost: recording adds a window per read; changes are logged, and an entry checks those logged
// since its last lookup when it is looked up (at most kMaxCatchUp, else it is placed again).
// Memory: one entry per candidate evaluated, and the log (a few changes per commit).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "hyperplan/plan/plan.h"
#include "planner/link_schedule.h"

namespace hyperplan::planner {

// A change of the refiner's state that placements read.
struct StateChange {
  enum class Kind : uint8_t { kLink, kPrePeakLink, kValue, kCandidate, kTierRoom };
  Kind kind = Kind::kValue;
  int32_t id = 0;        // the link, value, candidate or tier
  int32_t channel = -1;  // links: the channel
  int64_t first = 0;     // links: ns; tiers: steps (closed)
  int64_t last = 0;
  int64_t delta = 0;  // links: +1 reserved, -1 released; tiers: bytes added

  static StateChange Link(Kind kind, int32_t link, const Slot& slot, int sign) {
    return {kind, link, slot.channel, slot.start_ns, slot.end_ns, sign};
  }
  static StateChange Id(Kind kind, int32_t id) { return {kind, id, -1, 0, 0, 0}; }
  static StateChange Room(int32_t tier, Step first, Step last, int64_t delta_bytes) {
    return {Kind::kTierRoom, tier, -1, first, last, delta_bytes};
  }
};

// What a placement read (see above).
class PlacementReads {
 public:
  using Kind = StateChange::Kind;

  // A link search (kLink or kPrePeakLink) that looked over [from_ns, to_ns] and answered
  // `slot` (none: nullopt).
  void AddSearch(Kind kind, int32_t link, int64_t from_ns, int64_t to_ns,
                 const std::optional<Slot>& slot) {
    Read read{kind, link, from_ns, to_ns};
    if (slot) {
      read.channel = slot->channel;
      read.slot_first = slot->start_ns;
      read.slot_last = slot->end_ns;
    }
    reads_.push_back(read);
  }
  void AddId(Kind kind, int32_t id) { reads_.push_back({kind, id, 0, 0}); }
  // A room check of `tier` over steps [first, last] that passed (`slack_bytes` >= 0: the bytes
  // still free at its fullest step) or failed (< 0: the bytes it lacked).
  void AddRoom(int32_t tier, Step first, Step last, int64_t slack_bytes) {
    Read read{Kind::kTierRoom, tier, first, last};
    read.slack_bytes = slack_bytes;
    reads_.push_back(read);
  }

  // Whether `change` might alter what was read (room checks are charged with it).
  bool Alters(const StateChange& change) {
    for (Read& read : reads_) {
      if (read.kind == change.kind && read.id == change.id && AltersRead(change, read)) {
        return true;
      }
    }
    return false;
  }

 private:
  struct Read {
    Kind kind;
    int32_t id;
    int64_t first;  // links: the window searched; tiers: the steps
    int64_t last;
    int32_t channel = -1;  // links: the answer's channel, -1 for none
    int64_t slot_first = 0;
    int64_t slot_last = 0;
    int64_t slack_bytes = 0;  // tiers
  };

  static bool Overlap(int64_t a_first, int64_t a_last, int64_t b_first, int64_t b_last) {
    return a_first <= b_last && b_first <= a_last;
  }

  static bool AltersRead(const StateChange& change, Read& read) {
    switch (change.kind) {
      case Kind::kLink:
      case Kind::kPrePeakLink:
        if (change.delta < 0) return Overlap(change.first, change.last, read.first, read.last);
        return read.channel == change.channel &&
               Overlap(change.first, change.last, read.slot_first, read.slot_last);
      case Kind::kTierRoom:
        if (!Overlap(change.first, change.last, read.first, read.last)) return false;
        if (read.slack_bytes >= 0) {
          read.slack_bytes -= std::max<int64_t>(change.delta, 0);
          return read.slack_bytes < 0;
        }
        read.slack_bytes += std::max<int64_t>(-change.delta, 0);
        return read.slack_bytes >= 0;
      case Kind::kValue:
      case Kind::kCandidate:
        return true;
    }
    return true;
  }

  std::vector<Read> reads_;
};

// `Result` (the refiner's Attempt) per candidate, over the steps at which it holds. Changes
// are logged; an entry catches up with the log when it is looked up, and one that missed more
// than kMaxCatchUp changes is placed again instead (bounding a lookup's cost).
template <typename Result>
class PlacementCache {
 public:
  static constexpr size_t kMaxCatchUp = 128;

  explicit PlacementCache(size_t candidate_count = 0) : entries_(candidate_count) {}

  // The result held for `candidate` at `step`, if it holds there and no change since altered
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

  // Holds `result` for `candidate` at steps [first_step, last_step]; returns it as held (until
  // the candidate's entry is held again or dropped by a Find of it).
  const Result& Hold(int32_t candidate, Step first_step, Step last_step, Result result,
                     PlacementReads reads) {
    Entry& entry = entries_[static_cast<size_t>(candidate)];
    entry = Entry{true, first_step, last_step, log_.size(), std::move(result), std::move(reads)};
    return entry.result;
  }

  void Change(const StateChange& change) { log_.push_back(change); }

 private:
  struct Entry {
    bool held = false;
    Step first_step = 0;
    Step last_step = -1;
    size_t seen = 0;  // the log's length when it was last checked
    Result result;
    PlacementReads reads;
  };

  // Whether a change logged since the entry was last checked alters its reads.
  bool Missed(Entry& entry) const {
    for (size_t i = entry.seen; i < log_.size(); ++i) {
      if (entry.reads.Alters(log_[i])) return true;
    }
    return false;
  }

  std::vector<Entry> entries_;  // by candidate
  std::vector<StateChange> log_;
};

}  // namespace hyperplan::planner
