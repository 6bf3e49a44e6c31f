// The peak-driven greedy and time-based placement (see refine.h).
#include "planner/refine.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "hyperplan/error.h"
#include "hyperplan/plan/simulate.h"
#include "hyperplan/planner/segment_tree.h"
#include "hyperplan/planner/stabbing_index.h"
#include "planner/host_crossings.h"
#include "planner/placement_cache.h"
#include "planner/pre_peak_stores.h"

namespace hyperplan::planner {
namespace {

constexpr int kMaxPopsPerRound = 256;
// HoistPrefetches leaves 1/64 of the largest target free at every step it fills.
constexpr int64_t kHoistMarginDivisor = 64;
// StageAheadByRoom leaves 1/64 of a staging tier free: its layout is by replayed time, with
// alignment and fragmentation, where the room is counted per step.
constexpr int64_t kStageMarginDivisor = 64;
constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();
constexpr int64_t kSetAside = int64_t{1} << 60;  // far below any byte count

// The candidates by rank over the steps each could free: a copy of the set's index, not one
// built again per refine (on the DeepSeek-V3 rows, thousands of refines a context). It holds
// every candidate, the ones dead at the start too (taken as must_take, or not allowed): a
// query drops a dead rank when it reaches a heap's top, as it drops one taken later, and no
// candidate comes back to life (alive_ only turns 0), so the answers are those of an index of
// the live ones alone.
StabbingIndex IndexCandidates(Step step_count, const CandidateSet& set) {
  if (set.cover_index.step_count() == step_count) return set.cover_index;
  return CoverIndex(set.candidates, step_count);
}

struct StoreState {
  bool stored = false;
  int64_t end_ns = 0;
  Step last_boundary = 0;
  int64_t pre_peak_end_ns = kNoTime;  // on the compute-only axis; kNoTime: not judged there
};

class Refiner {
  struct Round;  // what the greedy carries from round to round (below)

 public:
  Refiner(const PlanContext& context, const RefineRequest& request)
      : context_(context),
        request_(&request),
        graph_(*context.graph),
        profile_(*context.profile),
        start_ns_(context.cost.step_start_ns),
        candidates_(context.candidates.candidates),
        step_count_(context.step_count()),
        device_(context.base_live_bytes()),
        links_(profile_),
        pre_peak_stores_(context),
        stores_(graph_.values.size()),
        home_counted_(graph_.values.size(), 0),
        committed_(context.step_count()) {
    const std::vector<int64_t> zeros(static_cast<size_t>(step_count_), 0);
    for (size_t tier = 0; tier < profile_.tiers.size(); ++tier) tiers_.emplace_back(zeros);
    CountHostCopies();
    ReserveCrossings();
    alive_.assign(candidates_.size(), 1);
    if (request_->allowed != nullptr) {
      for (size_t c = 0; c < candidates_.size(); ++c) alive_[c] = (*request_->allowed)[c];
    }
    if (request_->step_targets != nullptr || request_->target_live_bytes) {
      has_target_ = true;
      std::vector<int64_t> excess = context.base_live_bytes();
      for (size_t k = 0; k < excess.size(); ++k) {
        excess[k] -= request_->step_targets != nullptr ? (*request_->step_targets)[k]
                                                       : *request_->target_live_bytes;
      }
      excess_ = RangeMaxTree(excess);
      const int64_t largest_target =
          request_->step_targets == nullptr ? *request_->target_live_bytes
          : request_->step_targets->empty()
              ? 0
              : *std::max_element(request_->step_targets->begin(), request_->step_targets->end());
      hoist_margin_bytes_ = std::max<int64_t>(0, largest_target / kHoistMarginDivisor);
    }
    placement_of_.assign(candidates_.size(), -1);
    evaluated_ = PlacementCache<Attempt>(candidates_.size());
    repairable_.assign(candidates_.size(), 0);
    selection_.reason.assign(candidates_.size(), DecisionReason::kNotNeeded);
    selection_.detail.assign(candidates_.size(), std::string());
  }

  // The refine; with `checkpoint`, its state where it first meets its target is recorded there.
  Selection Run(RefineCheckpoint* checkpoint) {
    if (step_count_ == 0) {
      selection_.reached_target = true;
      return std::move(selection_);
    }
    TakeMustTake();
    checkpoint_ = checkpoint;
    Round round{IndexCandidates(step_count_, context_.candidates),
                request_->stall_allowance_ns,
                false,
                RangeMaxTree(),
                {}};
    return Continue(round);
  }

  // The refine of `request` from `checkpoint`'s state on (see ResumeRefine).
  static Selection Resume(const RefineRequest& request, RefineCheckpoint::State& checkpoint);

  // The refine of `request` at one lower target for every step, `to_bytes`, from a state
  // recorded at one target for every step, `from_bytes` (see ResumeRefineLowered).
  Selection ContinueLowered(const RefineRequest& request, int64_t from_bytes, int64_t to_bytes,
                            RefineCheckpoint* record, Round& round) {
    request_ = &request;
    excess_.Add(0, step_count_ - 1, from_bytes - to_bytes);
    hoist_margin_bytes_ = std::max<int64_t>(0, to_bytes / kHoistMarginDivisor);
    checkpoint_ = record;
    return Continue(round);
  }

 private:
  friend struct RefineCheckpoint::State;

  // The greedy's rounds from `round` on, then the passes after them.
  Selection Continue(Round& round) {
    while (NextRound(round)) {
    }
    if (has_target_ && context_.hoist_prefetches) HoistPrefetches();
    StageAheadByRoom();
    return std::move(selection_);
  }

  // The state where the target is first met, for a round that asks for free cuts after it.
  void RecordAtTarget(const Round& round) {
    if (checkpoint_ == nullptr || checkpoint_->state != nullptr) return;
    RefineCheckpoint* const checkpoint = checkpoint_;
    checkpoint_ = nullptr;  // the copy records nothing
    checkpoint->state = Snapshot(round, !checkpoint->without_cache);
    checkpoint->uniform_target_bytes = UniformTarget();
    checkpoint_ = checkpoint;
  }

  // A copy of this refiner and `round`, with or without the placements it keeps for later
  // rounds (placement_cache.h: a copy without them places those afresh, the same selection).
  // Left as it was; not thread-safe (the cache is moved out and back around the copy).
  std::shared_ptr<RefineCheckpoint::State> Snapshot(const Round& round, bool with_cache) {
    if (with_cache) return std::make_shared<RefineCheckpoint::State>(*this, round);
    PlacementCache<Attempt> evaluated =
        std::exchange(evaluated_, PlacementCache<Attempt>(candidates_.size()));
    std::shared_ptr<RefineCheckpoint::State> copy =
        std::make_shared<RefineCheckpoint::State>(*this, round);
    evaluated_ = std::move(evaluated);
    return copy;
  }

  // The request's target when every step has the same one.
  std::optional<int64_t> UniformTarget() const {
    if (request_->step_targets == nullptr) return request_->target_live_bytes;
    const std::vector<int64_t>& targets = *request_->step_targets;
    if (targets.empty() || std::adjacent_find(targets.begin(), targets.end(),
                                              std::not_equal_to<>()) != targets.end()) {
      return std::nullopt;
    }
    return targets.front();
  }

  // The placements a round evaluated, held in `evaluated_` (each candidate's entry stays as it
  // is until the candidate is evaluated again, in a later round).
  using Evaluated = std::vector<std::pair<StabbingIndex::Entry, const Placement*>>;

  // Before the greedy: every must_take candidate (candidates.h: a host-updated value's
  // leading and trailing gaps) with its bundle, its Prefetch as late as it hides, its Detach
  // right after the last read. Placed first, so the greedy plans around their link slots.
  // One that cannot be placed (its home tier full) keeps its reason; the verifier then names
  // the device copy left open.
  void TakeMustTake() {
    for (size_t c = 0; c < candidates_.size(); ++c) {
      const Candidate& candidate = candidates_[c];
      if (!candidate.must_take || selection_.reason[c] == DecisionReason::kOffloaded) continue;
      const Step step = candidate.after_step < 0
                            ? Step{-1}
                            : std::max(candidate.cover_first, candidate.cover_last);
      Attempt attempt = PlaceBundle(static_cast<int32_t>(c), step);
      alive_[c] = 0;
      if (!attempt.ok) {
        selection_.reason[c] = attempt.reason;
        selection_.detail[c] = std::move(attempt.detail);
        continue;
      }
      CommitBundle(attempt.placement);
    }
    selection_.must_take_count = selection_.placements.size();
  }

  // What the greedy carries from round to round.
  struct Round {
    StabbingIndex index;  // the candidates not yet taken nor turned down for good
    int64_t stall_left_ns = 0;
    bool cutting_free = false;
    // Free cuts go beyond the peak: a step no stall-free cut can lower is set aside in
    // `search`, and the next highest step is tried, until every step has been.
    RangeMaxTree search;
    // Gaps whose Store is too late at this step (kStoreTooLate): out of the index until the
    // step or the device bytes change, then back (a later step may still take them). Kept
    // across the rounds that pop more at the same step.
    std::vector<StabbingIndex::Entry> too_late_here;
  };

  // One round: the step to free, the placements that free it, and the one taken (or the
  // reason to stop). Returns whether to go on.
  bool NextRound(Round& round) {
    const RangeMaxTree::Peak peak = RoundPeak(round);
    if (round.cutting_free && peak.value < 0) return false;
    if (!round.cutting_free && has_target_ && peak.value <= 0) {
      if (!request_->free_cuts_after_target) RecordAtTarget(round);
      return StartFreeCuts(round);
    }
    const Step step = peak.index;
    bool exhausted = false;
    Evaluated valid = Evaluate(round, step, exhausted);
    if (valid.empty() && !exhausted) return true;  // all popped were rejected; pop more
    const size_t best = BestEvaluated(valid);
    if (RepairWins(round, step, valid, best)) return true;
    if (valid.empty()) {
      if (round.cutting_free) {
        SetAside(round, step);
        return true;
      }
      selection_.stuck_step = step;
      return false;  // nothing can free the peak step
    }
    return TakeBest(round, step, valid, best);
  }

  // The step this round frees: the live peak, the largest excess over the targets, or while
  // cutting free the highest step not set aside. Records the live peak.
  RangeMaxTree::Peak RoundPeak(const Round& round) {
    const RangeMaxTree::Peak live_peak = device_.MaxAt(0, step_count_ - 1);
    selection_.live_peak_bytes = live_peak.value;
    selection_.peak_step = live_peak.index;
    if (round.cutting_free) return round.search.MaxAt(0, step_count_ - 1);
    if (has_target_) return excess_.MaxAt(0, step_count_ - 1);  // bytes over each step's target
    return live_peak;
  }

  // The target is met: stop, or go on with stall-free cuts at every step in turn.
  bool StartFreeCuts(Round& round) {
    selection_.reached_target = true;
    if (!request_->free_cuts_after_target) return false;
    round.cutting_free = true;
    round.stall_left_ns = 0;
    round.search = device_;
    search_ = &round.search;
    return true;
  }

  // Pops candidates covering `step` in rank order and places each, until kEvaluatedPerRound
  // are valid (or, least stall wanted, one is stall-free); `exhausted`: none covers it.
  Evaluated Evaluate(Round& round, Step step, bool& exhausted) {
    Evaluated valid;
    int popped = 0;
    while (static_cast<int>(valid.size()) < kEvaluatedPerRound && popped < kMaxPopsPerRound) {
      const StabbingIndex::Entry entry = round.index.PopBest(step, alive_);
      if (entry.rank < 0) {
        exhausted = true;
        break;
      }
      ++popped;
      const Attempt& attempt = EvaluateBundle(entry.rank, step);
      if (!attempt.ok) {
        selection_.reason[entry.rank] = attempt.reason;
        selection_.detail[entry.rank] = attempt.detail;
        if (attempt.reason == DecisionReason::kStoreTooLate) {
          round.too_late_here.push_back(entry);
        } else {
          alive_[entry.rank] = 0;
        }
        continue;
      }
      const bool stall_free = TotalStall(attempt.placement) == 0;
      valid.emplace_back(entry, &attempt.placement);
      if (stall_free && request_->choice == Choice::kLeastStall) break;
    }
    return valid;
  }

  // Popped in rank order, so the first minimum is the best-ranked least-stall placement (or,
  // with Choice::kMostBytes, the largest value). 0 when there is none.
  size_t BestEvaluated(const Evaluated& valid) const {
    size_t best = 0;
    for (size_t i = 1; i < valid.size(); ++i) {
      const Placement& a = *valid[i].second;
      const Placement& b = *valid[best].second;
      const int64_t a_bytes = candidates_[a.candidate].bytes;
      const int64_t b_bytes = candidates_[b.candidate].bytes;
      const bool better =
          request_->choice == Choice::kMostBytes
              ? a_bytes > b_bytes || (a_bytes == b_bytes && TotalStall(a) < TotalStall(b))
              : TotalStall(a) < TotalStall(b);
      if (better) best = i;
    }
    return best;
  }

  // With a target, widening a gap already taken competes with the new candidates; when it
  // wins it is applied and the candidates go back to the index.
  bool RepairWins(Round& round, Step step, const Evaluated& valid, size_t best) {
    if (!has_target_ || round.cutting_free) return false;
    if (!valid.empty() && TotalStall(*valid[best].second) <= 0) return false;
    std::optional<RepairOption> repair = BestRepair(step);
    const bool repair_wins =
        repair && (valid.empty() || (request_->choice == Choice::kLeastStall &&
                                     repair->extra_stall_ns < TotalStall(*valid[best].second)));
    if (!repair_wins) return false;
    ApplyRepair(*repair);
    for (const auto& [entry, placement] : valid) round.index.PushBack(entry);
    GiveBackTooLate(round);
    return true;
  }

  // Takes the best placement if the stall allowance has room for it (returns true), else
  // records why the round stops (returns false; while cutting free, sets the step aside).
  bool TakeBest(Round& round, Step step, Evaluated& valid, size_t best) {
    const int64_t stall_ns = TotalStall(*valid[best].second);
    if (stall_ns > round.stall_left_ns) {
      if (round.cutting_free) {  // the target was met; only free cuts are wanted
        for (const auto& [entry, placement] : valid) round.index.PushBack(entry);
        SetAside(round, step);
        return true;
      }
      for (const auto& [entry, placement] : valid) {
        selection_.reason[entry.rank] = DecisionReason::kStallOverLimit;
        selection_.detail[entry.rank] =
            "predicted stall " + std::to_string(TotalStall(*placement)) + " ns exceeds the " +
            std::to_string(round.stall_left_ns) + " ns of overhead left";
      }
      return false;
    }
    round.stall_left_ns -= stall_ns;
    Placement taken = *valid[best].second;
    CommitBundle(taken);
    for (size_t i = 0; i < valid.size(); ++i) {
      if (i != best) round.index.PushBack(valid[i].first);
    }
    GiveBackTooLate(round);
    return true;
  }

  // While cutting free: no stall-free cut lowers `step`; try the next highest.
  void SetAside(Round& round, Step step) {
    round.search.Add(step, step, -kSetAside);
    GiveBackTooLate(round);
  }

  void GiveBackTooLate(Round& round) {
    for (const StabbingIndex::Entry& entry : round.too_late_here) {
      if (alive_[entry.rank]) round.index.PushBack(entry);
    }
    round.too_late_here.clear();
  }

  // Once the placements are made: each staging hop of a Prefetch (NVMe -> DDR) is issued, in
  // the order the device reads the values, at the earliest boundary from which its staging
  // tier has room for the copy until the consumer (never before the previous one's, never
  // later than it was). Placed against a link the axis cannot hide (the compute-only axis, or
  // one its own serialized replay stretched), a staging hop's planned slot lies past its
  // consumer's start, so its boundary came out as the consumer's and the replay ran it after
  // the step before, one value at a time on one channel; issued ahead, the staging hops keep
  // every channel of the link busy as far as the staging tier allows (layer_streaming.cc's
  // stage_by_room). Only Prefetches that do not hide (their device hop ends after the
  // consumer's start) of values whose home copy is current (no Store) move.
  void StageAheadByRoom() {
    Step floor = 0;  // the read order: no staging hop before an earlier-read value's
    for (size_t j : UnhiddenStagedPrefetches()) {
      floor = StageHopsAhead(selection_.placements[j], floor);
    }
  }

  // The placements whose Prefetch has a staging hop, does not hide (its device hop ends after
  // the consumer's start) and reads a current home copy (no Store this iteration: a gap before
  // an in-place write reads the last iteration's), in the order the device reads their values
  // (then by the device hop's planned start).
  std::vector<size_t> UnhiddenStagedPrefetches() const {
    std::vector<size_t> order;
    for (size_t j = 0; j < selection_.placements.size(); ++j) {
      const Placement& placement = selection_.placements[j];
      const Candidate& candidate = candidates_[placement.candidate];
      if (placement.prefetch_hops.size() > 1 && !ReadsThisIterationsStore(candidate) &&
          placement.prefetch_hops.back().slot.end_ns > start_ns_[candidate.before_step]) {
        order.push_back(j);
      }
    }
    auto key = [&](size_t j) {
      const Placement& placement = selection_.placements[j];
      return std::make_pair(candidates_[placement.candidate].before_step,
                            placement.prefetch_hops.back().slot.start_ns);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return key(a) < key(b); });
    return order;
  }

  // Moves each staging hop of `placement` to the earliest boundary, from `floor` on, from which
  // its tier keeps room for the copy until the hop's old boundary (kStageMarginDivisor of the
  // tier kept free), with its tier reservation; returns the floor for the next value.
  Step StageHopsAhead(Placement& placement, Step floor) {
    const Candidate& candidate = candidates_[placement.candidate];
    for (size_t h = 0; h + 1 < placement.prefetch_hops.size(); ++h) {
      HopPlacement& hop = placement.prefetch_hops[h];
      const Step old_boundary = std::min(hop.boundary, step_count_ - 1);
      // Never before the hop it reads from (the sequence orders hops by boundary).
      const Step previous_hop = h > 0 ? placement.prefetch_hops[h - 1].boundary : Step{0};
      const Step lower = std::max<Step>({floor, candidate.after_step + 1, previous_hop});
      if (lower >= old_boundary) continue;
      const int64_t capacity = profile_.tiers[hop.dst_tier].capacity_bytes;
      Step room_from = lower;
      if (capacity > 0) {
        const int32_t blocked = tiers_[hop.dst_tier].LastAbove(
            lower, old_boundary - 1, capacity - capacity / kStageMarginDivisor - candidate.bytes);
        room_from = blocked < 0 ? lower : blocked + 1;
      }
      if (room_from >= old_boundary) continue;
      tiers_[hop.dst_tier].Add(room_from, old_boundary - 1, candidate.bytes);
      ChangedTier(hop.dst_tier, room_from, old_boundary - 1, candidate.bytes);
      for (TierReservation& reservation : placement.tier_reservations) {
        if (reservation.prefetch_staging && reservation.tier == hop.dst_tier &&
            reservation.first == old_boundary) {
          reservation.first = room_from;
          break;
        }
      }
      hop.boundary = room_from;
    }
    return std::max(floor, placement.prefetch_hops.front().boundary);
  }

  // Once the peak meets the target: each one-hop Prefetch (of a homed value, or of a stored
  // one no earlier than its Store ends) moves to the earliest boundary from which every step up to
  // its old one keeps `hoist_margin_bytes_` below its target with the value back on the device, and
  // to the earliest free slot of its link from there, earliest consumer first. Placed latest-first,
  // a Prefetch hides behind compute only on the timeline it was planned on; where stalls stretch
  // the run (the training step's Adam moments, read only by the optimizer at the end), the link
  // idled through steps that had room (h100-sxm, in the planner's hoisted chain: 2.41 -> 2.29 s).
  // The margin leaves the layout room for fragmentation; with about 1/300 of the target
  // (0.25 GiB) h100-sxm gained nothing in an experiment, and the results are not monotone in
  // it. Cost: O(p log p + p (log n + link search)) for p placements.
  void HoistPrefetches() {
    std::vector<size_t> order;
    for (size_t j = 0; j < selection_.placements.size(); ++j) {
      const Placement& placement = selection_.placements[j];
      if (placement.prefetch_hops.size() == 1) {
        order.push_back(j);
      }
    }
    auto boundary_of = [&](size_t j) {
      return selection_.placements[j].prefetch_hops.back().boundary;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return boundary_of(a) < boundary_of(b); });
    for (size_t j : order) HoistPrefetch(selection_.placements[j]);
    const RangeMaxTree::Peak live_peak = device_.MaxAt(0, step_count_ - 1);
    selection_.live_peak_bytes = live_peak.value;
    selection_.peak_step = live_peak.index;
  }

  void HoistPrefetch(Placement& current) {
    const Candidate& candidate = candidates_[current.candidate];
    const HopPlacement old_hop = current.prefetch_hops.back();
    const Step fetch = old_hop.boundary;
    const Step first_free = current.freed_first + 1;  // the gap still frees its first step
    if (fetch <= first_free) return;
    const int32_t blocked =
        excess_.LastAbove(first_free, fetch - 1, -candidate.bytes - hoist_margin_bytes_);
    const Step room_from = blocked < 0 ? first_free : blocked + 1;
    if (room_from >= fetch) return;
    links_.Release(old_hop.link, old_hop.slot);
    const int64_t source_ready =
        ReadsThisIterationsStore(candidate) ? stores_[candidate.value].end_ns : 0;
    const Slot slot =
        links_.EarliestSlot(old_hop.link, std::max(start_ns_[room_from], source_ready),
                            old_hop.slot.end_ns - old_hop.slot.start_ns);
    links_.Reserve(old_hop.link, old_hop.slot);
    if (slot.start_ns >= old_hop.slot.start_ns || Boundary(slot.start_ns) >= fetch) return;
    Placement hoisted = current;
    hoisted.prefetch_hops[0] = Hop(old_hop.link, slot);
    hoisted.freed_last = hoisted.prefetch_hops[0].boundary - 1;
    // The stall is the Detach's wait plus the Prefetch's overrun of its consumer's start.
    const int64_t deadline_ns = start_ns_[candidate.before_step];
    const int64_t detach_wait_ns = std::max<int64_t>(
        0, current.stall_ns - std::max<int64_t>(0, old_hop.slot.end_ns - deadline_ns));
    hoisted.stall_ns = detach_wait_ns + std::max<int64_t>(0, slot.end_ns - deadline_ns);
    ApplyPrefetchSide(current, -1);
    ApplyPrefetchSide(hoisted, +1);
    selection_.predicted_stall_ns += hoisted.stall_ns - current.stall_ns;
    current = std::move(hoisted);
  }

  struct Attempt {
    bool ok = false;
    Placement placement;
    DecisionReason reason = DecisionReason::kNotNeeded;
    std::string detail;
    // The steps it would free alike (Place's SameAtSteps; PlaceBundle keeps its own).
    Step same_first = 0;
    Step same_last = -1;
  };

  // PlaceBundle, or what it gave at this step while nothing it read has changed since
  // (placement_cache.h): a round that takes one placement leaves the others' reads mostly
  // untouched, and the next round at the same step pops them again.
  // Held in `evaluated_` either way (Evaluated); without reuse_placements, never looked up.
  const Attempt& EvaluateBundle(int32_t candidate, Step step) {
    if (!request_->reuse_placements) {
      return evaluated_.Hold(candidate, step, step, PlaceBundle(candidate, step), {});
    }
    if (const Attempt* held = evaluated_.Find(candidate, step)) return *held;
    PlacementReads reads;
    reads_ = &reads;
    Attempt attempt = PlaceBundle(candidate, step);
    reads_ = nullptr;
    if (!attempt.ok) attempt.same_first = attempt.same_last = step;
    const Step first = attempt.same_first;
    const Step last = attempt.same_last;
    return evaluated_.Hold(candidate, first, last, std::move(attempt), std::move(reads));
  }

  static Attempt Reject(DecisionReason reason, std::string detail) {
    Attempt attempt;
    attempt.reason = reason;
    attempt.detail = std::move(detail);
    return attempt;
  }

  // The link and tier reads of Place, recorded while an evaluation is (placement_cache.h).
  std::optional<Slot> LatestSlot(int32_t link, int64_t lower_ns, int64_t deadline_ns,
                                 int64_t duration_ns) const {
    std::optional<Slot> slot = links_.LatestSlot(link, lower_ns, deadline_ns, duration_ns);
    if (reads_ != nullptr) {
      reads_->AddSearch(StateChange::Kind::kLink, link, slot ? slot->start_ns : lower_ns,
                        deadline_ns, slot);
    }
    return slot;
  }

  Slot EarliestSlot(int32_t link, int64_t lower_ns, int64_t duration_ns) const {
    const Slot slot = links_.EarliestSlot(link, lower_ns, duration_ns);
    if (reads_ != nullptr) {
      reads_->AddSearch(StateChange::Kind::kLink, link, lower_ns, slot.end_ns, slot);
    }
    return slot;
  }

  // LinkSchedule::EarliestChain: each hop an EarliestSlot from the hop before's end.
  std::vector<LinkSlot> EarliestChain(const Route& route, int64_t lower_ns, int64_t bytes) const {
    std::vector<LinkSlot> hops = links_.EarliestChain(profile_, route, lower_ns, bytes);
    RecordChain(StateChange::Kind::kLink, hops, lower_ns);
    return hops;
  }

  void RecordChain(StateChange::Kind kind, const std::vector<LinkSlot>& hops,
                   int64_t lower_ns) const {
    if (reads_ == nullptr) return;
    for (const LinkSlot& hop : hops) {
      reads_->AddSearch(kind, hop.link, lower_ns, hop.slot.end_ns, hop.slot);
      lower_ns = hop.slot.end_ns;
    }
  }

  // Whether `tier` holds `bytes` more at every step of [first, last] within `capacity`.
  bool TierHasRoom(TierId tier, Step first, Step last, int64_t bytes, int64_t capacity) const {
    const int64_t slack = capacity - (tiers_[tier].Max(first, last) + bytes);
    if (reads_ != nullptr) reads_->AddRoom(tier, first, last, slack);
    return slack >= 0;
  }

  // Changes the evaluated placements may have read (placement_cache.h): `hops` reserved
  // (`sign` +1) or released (-1).
  void ChangedLinks(const std::vector<HopPlacement>& hops, int sign) {
    for (const HopPlacement& hop : hops) {
      evaluated_.Change(StateChange::Link(StateChange::Kind::kLink, hop.link, hop.slot, sign));
    }
  }

  void ChangedTier(TierId tier, Step first, Step last, int64_t delta_bytes) {
    evaluated_.Change(StateChange::Room(tier, first, last, delta_bytes));
  }

  Step Boundary(int64_t time_ns) const {
    return std::min(BoundaryAtOrBefore(start_ns_, time_ns), step_count_);
  }

  HopPlacement Hop(int32_t link, const Slot& slot) const {
    HopPlacement hop;
    hop.link = link;
    hop.slot = slot;
    hop.src_tier = profile_.links[link].from;
    hop.dst_tier = profile_.links[link].to;
    hop.boundary = Boundary(slot.start_ns);
    return hop;
  }

  // The hops of a Prefetch that cannot hide before its consumer: the device hop as early as
  // the device has room (`device_lower`) and its link allows. Staging hops (NVMe->DDR) need no
  // device room, so they run ahead of compute: as late as still feeds that device slot, else
  // as early as the source and links allow, as long as each staging tier has room for the
  // copy until the consumer. Without room they wait for the device, one hop after the other.
  // `same_until_ns`: lowered to the start of each earliest slot searched from `device_lower`
  // (SameAtSteps): every lower bound from `device_lower` to there gives these hops again.
  std::vector<HopPlacement> StallingHops(const Route& route, int64_t bytes, int64_t device_lower,
                                         int64_t source_ready, Step consumer,
                                         int64_t& same_until_ns) const {
    auto duration = [&](size_t h) {
      return ChannelTransferTimeNs(profile_.links[route[h]], bytes);
    };
    const size_t last = route.size() - 1;
    std::vector<HopPlacement> hops(route.size());
    if (last > 0) {
      hops[last] = Hop(route[last], EarliestSlot(route[last], device_lower, duration(last)));
      same_until_ns = std::min(same_until_ns, hops[last].slot.start_ns);
      bool feeds = true;
      int64_t end_limit = hops[last].slot.start_ns;
      for (size_t h = last; h-- > 0;) {
        const auto slot = LatestSlot(route[h], source_ready, end_limit, duration(h));
        if (!slot) {
          feeds = false;
          break;
        }
        hops[h] = Hop(route[h], *slot);
        end_limit = slot->start_ns;
      }
      if (!feeds) {  // the staging link is busy until after that slot: start as early as it can
        int64_t lower = source_ready;
        for (size_t h = 0; h < last; ++h) {
          hops[h] = Hop(route[h], EarliestSlot(route[h], lower, duration(h)));
          lower = hops[h].slot.end_ns;
        }
        hops[last] = Hop(route[last],
                         EarliestSlot(route[last], std::max(device_lower, lower), duration(last)));
        same_until_ns = std::min(same_until_ns, hops[last].slot.start_ns);
      }
      if (StagingHasRoom(hops, bytes, consumer)) return hops;
    }
    const std::vector<LinkSlot> chain = EarliestChain(route, device_lower, bytes);
    same_until_ns = std::min(same_until_ns, chain.front().slot.start_ns);  // the rest follow it
    for (size_t h = 0; h <= last; ++h) hops[h] = Hop(chain[h].link, chain[h].slot);
    return hops;
  }

  // Whether every staging tier of `hops` has room for `bytes` from its hop's issue to `consumer`.
  bool StagingHasRoom(const std::vector<HopPlacement>& hops, int64_t bytes, Step consumer) const {
    const Step last_step = step_count_ - 1;
    for (size_t h = 0; h + 1 < hops.size(); ++h) {
      const int64_t capacity = profile_.tiers[hops[h].dst_tier].capacity_bytes;
      const Step first = std::min(hops[h].boundary, last_step);
      const Step last = std::min(consumer, last_step);
      if (capacity > 0 && first <= last &&
          !TierHasRoom(hops[h].dst_tier, first, last, bytes, capacity)) {
        return false;
      }
    }
    return true;
  }

  // Places a candidate so that it frees `step`: its Store, Detach and Prefetch, then room for
  // its off-device copies. A re-placement passes the placement it replaces as `current` and
  // never frees fewer steps than it, so re-placements only grow; when `current` issued the
  // value's Store, the re-placement may issue that Store earlier (PlaceDetach).
  Attempt Place(int32_t candidate_index, Step step, const Placement* current = nullptr) const {
    const Candidate& candidate = candidates_[candidate_index];
    // Its Store (stores_) and home copy (home_counted_), as placed so far.
    if (reads_ != nullptr) reads_->AddId(StateChange::Kind::kValue, candidate.value);
    const Step keep_first = current != nullptr ? current->freed_first : Step{-1};
    const Step keep_last = current != nullptr ? current->freed_last : Step{-1};
    Placement placement;
    placement.candidate = candidate_index;
    StoreTiming store = PlaceStore(candidate, placement);
    if (current != nullptr && !current->store_hops.empty()) {
      placement.store_hops = current->store_hops;  // the same slots, its own to issue
      store.first_boundary = StoreFirstBoundary(candidate);
    }
    Step detach = candidate.cover_first;
    StepUse step_use = keep_first >= 0 || keep_last >= 0 ? StepUse::kExact : StepUse::kNone;
    int64_t same_until_ns = std::numeric_limits<int64_t>::max();  // see SameAtSteps
    if (!StartsOffTheDevice(candidate)) {
      const Step latest = keep_first >= 0 ? std::min(step, keep_first) : step;
      if (std::optional<Attempt> rejected =
              PlaceDetach(candidate, step, latest, store, placement, step_use)) {
        rejected->same_first = rejected->same_last = step;
        return *std::move(rejected);
      }
      detach = placement.detach_boundary;
    }
    Step fetch = step_count_;
    if (candidate.before_step < step_count_) {
      const Step after = keep_last >= 0 ? std::max(step, keep_last) : step;
      fetch = PlacePrefetch(candidate, after, candidate.needs_store ? store.end_ns : 0, placement,
                            step_use, same_until_ns);
    }
    placement.freed_first = detach;
    placement.freed_last = fetch - 1;
    Attempt attempt;
    if (std::optional<Attempt> rejected = ReserveTierRoom(candidate, placement, current)) {
      attempt = *std::move(rejected);
    } else {
      attempt.ok = true;
      attempt.placement = std::move(placement);
    }
    SameAtSteps(attempt, step, step_use, same_until_ns);
    return attempt;
  }

  // How a placement depends on the step it frees (SameAtSteps).
  enum class StepUse : uint8_t {
    kNone,        // only as the Detach's latest and the Prefetch's lower bound, not binding
    kLowerBound,  // also as a stalling Prefetch's lower bound, from which it searched
    kExact,       // otherwise (a Detach pulled to it or judged there, a re-placement, ...)
  };

  // The steps at which Place gives `attempt` again (with the same reads). It reads the step it
  // frees only as the latest boundary for the Detach and as the lower bound L of the Prefetch's
  // device hop (the next boundary's start). A Detach not pulled to the step (nor judged against
  // it on the compute-only axis) is the same at every step from it on. A Prefetch that hides
  // took the latest slot by its deadline, the same from any L up to its device hop's start. One
  // that stalls searched earliest slots from L (or from L or later times, the greater), each
  // the same from any L' in [L, its start]: no start before it was free on any channel, and
  // from L' nothing changes up to it; its other searches follow from those (a latest slot by
  // L' fails as it did by L). So from the Detach (from `step` for a stalling one) to the last
  // step whose next boundary starts by `same_until_ns` (the least such start).
  void SameAtSteps(Attempt& attempt, Step step, StepUse step_use, int64_t same_until_ns) const {
    attempt.same_first = attempt.same_last = step;
    if (step_use == StepUse::kExact || !attempt.ok) return;
    const Placement& placement = attempt.placement;
    attempt.same_first =
        step_use == StepUse::kLowerBound ? step : std::min(step, placement.freed_first);
    // The first boundary starting after `same_until_ns`: the steps before the one before it
    // have their next boundary start by then.
    const Step after = static_cast<Step>(
        std::upper_bound(start_ns_.begin(), start_ns_.end(), same_until_ns) - start_ns_.begin());
    attempt.same_last = std::max(step, std::min<Step>(step_count_ - 1, after - 2));
  }

  // A candidate's Store as its Detach and Prefetch see it.
  struct StoreTiming {
    int64_t end_ns = kNoTime;
    int64_t pre_peak_end_ns = kNoTime;  // on the compute-only axis (pre_peak_stores.h)
    Step last_boundary = -1;
    Step first_boundary = 0;  // the earliest a Store may be issued: after its writer
  };

  // Store: once per value, as early as the producer (or in-place writer) and links allow; a
  // later gap of the value reuses it.
  StoreTiming PlaceStore(const Candidate& candidate, Placement& placement) const {
    StoreTiming store;
    if (!candidate.needs_store) return store;
    const StoreState& state = stores_[candidate.value];
    if (state.stored) {
      store.end_ns = state.end_ns;
      store.last_boundary = state.last_boundary;
      store.pre_peak_end_ns = state.pre_peak_end_ns;
    } else {
      IssueStore(candidate, placement, store);
    }
    if (candidate.write_back_last_iteration) {
      // The Store after the write is the last iteration's for this gap (candidates.h).
      store.end_ns = 0;
      store.last_boundary = -1;
      store.pre_peak_end_ns = kNoTime;
    }
    return store;
  }

  // The earliest boundary a Store of the candidate's value may be issued at: after its
  // producer, or after its in-place writer (unless kept across the boundary), else 0.
  Step StoreFirstBoundary(const Candidate& candidate) const {
    const Value& value = graph_.values[candidate.value];
    if (value.producer != kNoNode) {
      return context_.lifetimes.lifetimes[candidate.value].def_step + 1;
    }
    if (value.written_by != kNoNode && !candidate.write_back_at_start) {
      return context_.lifetimes.step_of_node[value.written_by] + 1;
    }
    return 0;
  }

  // The value's first Store: each hop in the earliest free slot from its writer's end, and the
  // same Store on the compute-only axis.
  void IssueStore(const Candidate& candidate, Placement& placement, StoreTiming& store) const {
    store.first_boundary = StoreFirstBoundary(candidate);
    const Route& route = *context_.cost.routes.from_device[candidate.tier];
    for (const LinkSlot& hop :
         EarliestChain(route, start_ns_[store.first_boundary], candidate.store_bytes)) {
      placement.store_hops.push_back(Hop(hop.link, hop.slot));
    }
    store.end_ns = placement.store_hops.back().slot.end_ns;
    store.last_boundary = placement.store_hops.back().boundary;
    placement.pre_peak_store_hops =
        pre_peak_stores_.Place(route, candidate.store_bytes, store.first_boundary);
    RecordChain(StateChange::Kind::kPrePeakLink, placement.pre_peak_store_hops,
                pre_peak_stores_.StartNs(store.first_boundary));
    if (!placement.pre_peak_store_hops.empty()) {
      store.pre_peak_end_ns = placement.pre_peak_store_hops.back().slot.end_ns;
    }
  }

  // Detach: at the first boundary after the Store completes; pulled to `latest` (at most
  // `step`) if need be, the compute stream waiting for the Store (the stall is counted).
  // `step_use`: kExact when the Detach depends on `latest` (pulled to it, or judged there on
  // the compute-only axis).
  std::optional<Attempt> PlaceDetach(const Candidate& candidate, Step step, Step latest,
                                     StoreTiming& store, Placement& placement,
                                     StepUse& step_use) const {
    Step detach = candidate.cover_first;
    if (candidate.needs_store) {
      detach = std::max(detach, FirstBoundaryAtOrAfter(start_ns_, store.end_ns, detach));
    }
    if (store.pre_peak_end_ns != kNoTime) {
      if (std::optional<Attempt> rejected = DetachOnComputeAxis(store, latest, detach, step_use)) {
        return rejected;
      }
    }
    if (detach > latest) {
      step_use = StepUse::kExact;
      if (store.last_boundary > latest) {
        // The link is busy until after step `latest` begins. A Store this placement issues
        // itself (or, re-placed, issued before) is issued at `latest` and compute waits for it
        // (the stall is counted); one another placement issued cannot move.
        if (placement.store_hops.empty() || latest < store.first_boundary) {
          return Reject(DecisionReason::kStoreTooLate,
                        "its Store cannot start before step " + std::to_string(step) +
                            " begins (link busy or producer too late)");
        }
        for (HopPlacement& hop : placement.store_hops)
          hop.boundary = std::min(hop.boundary, latest);
        store.last_boundary = latest;
      }
      placement.stall_ns += store.end_ns - start_ns_[latest];
      detach = latest;
    }
    placement.detach_boundary = detach;
    placement.detach_start_ns = std::max(start_ns_[detach], store.end_ns);
    return std::nullopt;
  }

  // On compute time alone the Detach goes no earlier either (pre_peak_stores.h): on a
  // retimed axis, a Store that ends in time only there ends in the last plan's wait. Moves
  // `detach` there, or rejects a gap whose Detach would wait longer there than here.
  std::optional<Attempt> DetachOnComputeAxis(const StoreTiming& store, Step latest, Step& detach,
                                             StepUse& step_use) const {
    const Step compute_detach =
        pre_peak_stores_.FirstBoundaryAtOrAfter(store.pre_peak_end_ns, detach);
    if (compute_detach <= latest) {
      detach = compute_detach;  // at or after `detach`: the search starts there
      return std::nullopt;
    }
    step_use = StepUse::kExact;  // the waits compared below are at `latest`
    const int64_t compute_wait_ns = store.pre_peak_end_ns - pre_peak_stores_.StartNs(latest);
    const int64_t axis_wait_ns = std::max<int64_t>(0, store.end_ns - start_ns_[latest]);
    if (compute_wait_ns <= axis_wait_ns || !context_.reject_stores_late_on_compute_axis) {
      return std::nullopt;
    }
    return Reject(DecisionReason::kStoreTooLate,
                  "its Store, issued by the no-offload peak, cannot end before step " +
                      std::to_string(latest) + " begins on the compute-only axis (" +
                      std::to_string(store.pre_peak_end_ns) + " ns against " +
                      std::to_string(pre_peak_stores_.StartNs(latest)) +
                      " ns), and the wait would be longer there than here");
  }

  // Prefetch: as late as still hides, issued after step `after`; else the stalling hops and
  // the overrun of the consumer's start as stall. Returns the boundary it frees up to.
  // `step_use` is raised when it stalls (its hops search from `after`'s boundary on);
  // `same_until_ns`, lowered to the greatest such boundary start giving the same hops.
  Step PlacePrefetch(const Candidate& candidate, Step after, int64_t source_ready,
                     Placement& placement, StepUse& step_use, int64_t& same_until_ns) const {
    const Step consumer = candidate.before_step;
    const int64_t deadline = start_ns_[consumer];
    const Route& route = *context_.cost.routes.to_device[candidate.tier];
    const int64_t device_lower = std::max(start_ns_[after + 1], source_ready);
    std::optional<std::vector<HopPlacement>> hops =
        HiddenHops(route, candidate.bytes, device_lower, source_ready, deadline);
    if (!hops) {
      step_use = std::max(step_use, StepUse::kLowerBound);
      hops =
          StallingHops(route, candidate.bytes, device_lower, source_ready, consumer, same_until_ns);
      placement.stall_ns += std::max<int64_t>(0, hops->back().slot.end_ns - deadline);
    } else {
      same_until_ns = std::min(same_until_ns, hops->back().slot.start_ns);
    }
    const Step fetch = std::min(hops->back().boundary, consumer);
    for (HopPlacement& hop : *hops) hop.boundary = std::min(hop.boundary, fetch);
    placement.prefetch_hops = *std::move(hops);
    return fetch;
  }

  // The prefetch picker: hops chained backwards from `deadline_ns`, each in the latest free
  // slot ending before the next hop starts, the device hop from `device_lower` on; none when
  // some hop has no such slot (the transfer cannot hide).
  std::optional<std::vector<HopPlacement>> HiddenHops(const Route& route, int64_t bytes,
                                                      int64_t device_lower, int64_t source_ready,
                                                      int64_t deadline_ns) const {
    std::vector<HopPlacement> hops(route.size());
    int64_t end_limit = deadline_ns;
    for (size_t h = route.size(); h-- > 0;) {
      const int64_t duration = ChannelTransferTimeNs(profile_.links[route[h]], bytes);
      const int64_t lower = h + 1 == route.size() ? device_lower : source_ready;
      const auto slot = LatestSlot(route[h], lower, end_limit, duration);
      if (!slot) return std::nullopt;
      hops[h] = Hop(route[h], *slot);
      end_limit = slot->start_ns;
    }
    return hops;
  }

  // Off-device copies: home, stored and staging, each over the steps it may exist; a tier
  // without room for them rejects the placement. A re-placement that issues `current`'s Store
  // earlier reserves only the steps its copies gain (the rest is `current`'s already).
  std::optional<Attempt> ReserveTierRoom(const Candidate& candidate, Placement& placement,
                                         const Placement* current) const {
    const int64_t bytes = candidate.bytes;
    const Step last_step = step_count_ - 1;
    auto reserve = [&](TierId tier, Step first, Step last) {
      first = std::min(first, last_step);
      last = std::min(last, last_step);
      if (first <= last) placement.tier_reservations.push_back({tier, first, last, bytes});
    };
    if (candidate.homed && !home_counted_[candidate.value]) reserve(candidate.tier, 0, last_step);
    for (size_t h = 0; h < placement.store_hops.size(); ++h) {
      const HopPlacement& hop = placement.store_hops[h];
      const bool final_hop = h + 1 == placement.store_hops.size();
      if (final_hop && candidate.homed) break;  // written back into the home copy
      const Step last = !final_hop ? Boundary(placement.store_hops[h + 1].slot.end_ns) : last_step;
      if (current == nullptr || current->store_hops.empty()) {
        reserve(hop.dst_tier, hop.boundary, last);
      } else {
        reserve(hop.dst_tier, hop.boundary, std::min(last, current->store_hops[h].boundary - 1));
      }
    }
    for (size_t h = 0; h + 1 < placement.prefetch_hops.size(); ++h) {
      reserve(placement.prefetch_hops[h].dst_tier, placement.prefetch_hops[h].boundary,
              candidate.before_step);
      placement.tier_reservations.back().prefetch_staging = true;
    }
    // A handful of reservations: summed per tier by a scan, no map allocated per placement.
    auto bytes_on = [&](TierId tier) {
      int64_t sum = 0;
      for (const TierReservation& r : placement.tier_reservations)
        sum += r.tier == tier ? r.bytes : 0;
      return sum;
    };
    for (const TierReservation& r : placement.tier_reservations) {
      const int64_t capacity = profile_.tiers[r.tier].capacity_bytes;
      if (capacity <= 0) continue;
      if (!TierHasRoom(r.tier, r.first, r.last, bytes_on(r.tier), capacity)) {
        return Reject(DecisionReason::kTierFull, "tier '" + profile_.tiers[r.tier].name +
                                                     "' has no room for " + std::to_string(bytes) +
                                                     " bytes at steps " + std::to_string(r.first) +
                                                     ".." + std::to_string(r.last));
      }
    }
    return std::nullopt;
  }

  static int64_t TotalStall(const Placement& placement) {
    int64_t stall_ns = placement.stall_ns;
    for (const Placement& partner : placement.partners) stall_ns += partner.stall_ns;
    return stall_ns;
  }

  // Holds (sign +1) or gives back (-1) a placement's channel slots.
  void HoldLinks(const Placement& placement, int sign) {
    for (const auto* hops : {&placement.store_hops, &placement.prefetch_hops}) {
      for (const HopPlacement& hop : *hops) {
        if (sign > 0) {
          links_.Reserve(hop.link, hop.slot);
        } else {
          links_.Release(hop.link, hop.slot);
        }
      }
    }
    if (sign > 0) {
      pre_peak_stores_.Reserve(placement.pre_peak_store_hops);
    } else {
      pre_peak_stores_.Release(placement.pre_peak_store_hops);
    }
  }

  // Places a candidate and the candidates bundled with it that are not taken yet (the other
  // half of a wrap-around gap: see candidates.h), each against the links the others hold. The
  // partners free what they can: the leading half's Prefetch is issued as late as it hides, the
  // trailing half's Detach goes right after the last use (or its write-back Store).
  Attempt PlaceBundle(int32_t candidate_index, Step step) {
    Attempt attempt = Place(candidate_index, step);
    if (!attempt.ok || candidates_[candidate_index].bundle.empty()) return attempt;
    const Candidate& candidate = candidates_[candidate_index];
    const uint8_t home_was_counted = home_counted_[candidate.value];
    const StoreState store_before = stores_[candidate.value];
    if (candidate.homed) home_counted_[candidate.value] = 1;
    NoteStore(attempt.placement);
    HoldLinks(attempt.placement, +1);
    std::optional<Attempt> failure;
    for (int32_t partner : candidate.bundle) {
      if (reads_ != nullptr) reads_->AddId(StateChange::Kind::kCandidate, partner);
      if (selection_.reason[partner] == DecisionReason::kOffloaded && !alive_[partner]) continue;
      const Candidate& other = candidates_[partner];
      const Step partner_step =
          other.after_step < 0 ? Step{-1} : std::max(other.cover_first, other.cover_last);
      Attempt placed = Place(partner, partner_step);
      if (!placed.ok) {
        failure = Reject(placed.reason, "with its wrap-around half: " + placed.detail);
        break;
      }
      NoteStore(placed.placement);
      HoldLinks(placed.placement, +1);
      attempt.placement.partners.push_back(std::move(placed.placement));
    }
    // Give the slots back: Commit takes them again if this bundle wins.
    HoldLinks(attempt.placement, -1);
    for (const Placement& partner : attempt.placement.partners) HoldLinks(partner, -1);
    home_counted_[candidate.value] = home_was_counted;
    stores_[candidate.value] = store_before;
    if (failure) return *std::move(failure);
    return attempt;
  }

  // Whether a gap's Detach and Prefetch wait for a Store made earlier in this iteration.
  static bool ReadsThisIterationsStore(const Candidate& candidate) {
    return candidate.needs_store && !candidate.write_back_last_iteration;
  }

  // Records a placement's Store, so later gaps of the value (and its partners) reuse it.
  void NoteStore(const Placement& placement) {
    if (placement.store_hops.empty()) return;
    StoreState& state = stores_[candidates_[placement.candidate].value];
    state.stored = true;
    state.end_ns = placement.store_hops.back().slot.end_ns;
    state.last_boundary = placement.store_hops.back().boundary;
    state.pre_peak_end_ns = placement.pre_peak_store_hops.empty()
                                ? kNoTime
                                : placement.pre_peak_store_hops.back().slot.end_ns;
  }

  void CommitBundle(Placement& placement) {
    std::vector<Placement> partners = std::move(placement.partners);
    placement.partners.clear();
    Commit(placement);
    for (const Placement& partner : partners) Commit(partner);
    selection_.decision_ends.push_back(selection_.placements.size());
  }

  // Applies (sign +1) or takes back (-1) a placement's Prefetch side: its channel slots, the
  // device steps it frees and its staging copies. Store and home copies stay as they are.
  void ApplyPrefetchSide(const Placement& placement, int sign) {
    HoldPrefetchSide(placement, sign);
    ChangedLinks(placement.prefetch_hops, sign);
    for (const TierReservation& r : placement.tier_reservations) {
      if (r.prefetch_staging) ChangedTier(r.tier, r.first, r.last, sign * r.bytes);
    }
    const int64_t bytes = candidates_[placement.candidate].bytes;
    AddFreed(placement.freed_first, placement.freed_last, -sign * bytes);
  }

  // The part of ApplyPrefetchSide that Place reads (channel slots and staging copies; never
  // the device bytes), so that BestRepair can try a re-placement without the device trees.
  void HoldPrefetchSide(const Placement& placement, int sign) {
    for (const HopPlacement& hop : placement.prefetch_hops) {
      if (sign > 0) {
        links_.Reserve(hop.link, hop.slot);
      } else {
        links_.Release(hop.link, hop.slot);
      }
    }
    for (const TierReservation& r : placement.tier_reservations) {
      if (r.prefetch_staging) tiers_[r.tier].Add(r.first, r.last, sign * r.bytes);
    }
  }

  struct RepairOption {
    StabbingIndex::Entry entry;
    Placement placement;     // the new placement, freeing `step`
    int64_t extra_stall_ns;  // its predicted stall minus the old one's
  };

  // The cheapest re-placement of a taken gap that covers `step` without freeing it (its
  // Prefetch squeezed early by link traffic, or its Detach late), so that it does. Looks at
  // up to kEvaluatedPerRound of them, best-ranked first; the state is left as it was.
  std::optional<RepairOption> BestRepair(Step step) {
    std::optional<RepairOption> best;
    std::vector<StabbingIndex::Entry> seen;
    while (static_cast<int>(seen.size()) < kEvaluatedPerRound) {
      const StabbingIndex::Entry entry = committed_.PopBest(step, repairable_);
      if (entry.rank < 0) break;
      const Placement& current = selection_.placements[placement_of_[entry.rank]];
      if (current.freed_first <= step && step <= current.freed_last) continue;  // done here
      seen.push_back(entry);
      HoldPrefetchSide(current, -1);
      Attempt attempt = Place(entry.rank, step, &current);
      HoldPrefetchSide(current, +1);
      if (!attempt.ok || attempt.placement.freed_first > step ||
          attempt.placement.freed_last < step) {
        continue;
      }
      const int64_t extra = attempt.placement.stall_ns - current.stall_ns;
      if (!best || extra < best->extra_stall_ns) {
        best = RepairOption{entry, std::move(attempt.placement), extra};
      }
    }
    for (const StabbingIndex::Entry& entry : seen) {
      if (!best || entry.rank != best->entry.rank) committed_.PushBack(entry);
    }
    return best;
  }

  void ApplyRepair(RepairOption& repair) {
    Placement& current = selection_.placements[placement_of_[repair.entry.rank]];
    ApplyPrefetchSide(current, -1);
    Placement& replaced = repair.placement;
    ApplyPrefetchSide(replaced, +1);
    // The Store keeps its slots; a re-placement may have issued it earlier (PlaceDetach), its
    // copies then held from there (the steps gained, reserved by Place).
    for (const TierReservation& r : replaced.tier_reservations) {
      if (r.prefetch_staging) continue;
      tiers_[r.tier].Add(r.first, r.last, r.bytes);
      ChangedTier(r.tier, r.first, r.last, r.bytes);
    }
    if (replaced.store_hops.empty()) replaced.store_hops = current.store_hops;
    replaced.pre_peak_store_hops = current.pre_peak_store_hops;
    NoteStore(replaced);  // the Store's issue step may have moved: its value's gaps read it
    evaluated_.Change(
        StateChange::Id(StateChange::Kind::kValue, candidates_[replaced.candidate].value));
    for (const TierReservation& r : current.tier_reservations) {
      if (!r.prefetch_staging) replaced.tier_reservations.push_back(r);
    }
    selection_.predicted_stall_ns += repair.extra_stall_ns;
    current = std::move(replaced);
  }

  // The home copies host nodes read (a plan lists them whether or not they move: assemble.cc)
  // hold their tier all along, and the crossings' and host outputs' copies their spans
  // (host_crossings.h), so the staging copies placed here must fit beside them. Uncounted, a
  // batch-512 decode of Llama 3.1 8B on h100-sxm overfilled ddr by 14 MB of activations.
  void CountHostCopies() {
    const std::vector<uint8_t>& read_from_home = context_.units.read_from_home;
    if (read_from_home.empty() || step_count_ == 0) return;
    const TierId host_tier = profile_.host_compute.memory_tier;
    for (size_t id = 0; id < read_from_home.size(); ++id) {
      if (!read_from_home[id] || graph_.values[id].bytes <= 0) continue;
      tiers_[host_tier].Add(0, step_count_ - 1, graph_.values[id].bytes);
      home_counted_[id] = 1;
    }
    for (const HostCopySpan& span :
         HostCopySpans(graph_, context_.lifetimes, context_.units, context_.crossings)) {
      tiers_[host_tier].Add(span.first_step, span.last_step, span.bytes);
    }
  }

  // The crossings (host_crossings.h) run on channel 0 of their links, FIFO with the planner's
  // transfers there, as soon as their value is ready: a Store after its device producer, a
  // Prefetch after its host producer. With PlanContext::reserve_crossings their time is
  // reserved before anything is placed, so no transfer is planned across it: a weight's
  // Prefetch issued earlier and still running holds the crossing back, and the device step
  // reading it waits (at batch-1 decode, every step after it). Llama-3-70B int4 decode on
  // rtx-4090 with every 8th of the first 36 MLPs on the device stalled 16.2 ms on crossings
  // queued behind 4.7 ms weight Prefetches; reserved, 0.35 ms. Where transfers outlast the
  // time between two crossings (bf16 attention weights, 5.4 ms, between MLPs on the host every
  // 3.3 ms), no transfer fits between them and the plan stalls longer (70B bf16 decode on
  // rtx-4090-xeon-2s: 295 -> 319 ms), so the host search asks for it (host_placement.h).
  void ReserveCrossings() {
    const HostCrossings& crossings = context_.crossings;
    if (crossings.empty() || !context_.reserve_crossings) return;
    for (size_t id = 0; id < graph_.values.size(); ++id) {
      const Value& value = graph_.values[id];
      if (value.bytes <= 0) continue;
      if (crossings.store_boundary[id] >= 0) {
        ReserveCrossing(crossings.store_link, ReadyNs(value), value.bytes);
      }
      if (context_.lifetimes.lifetimes[id].crosses_in) {
        ReserveCrossing(crossings.prefetch_link, ReadyNs(value), value.bytes);
      }
    }
  }

  // When `value` is written on the stall-free axis: the end of its producer's step (the start
  // of the iteration for a graph input).
  int64_t ReadyNs(const Value& value) const {
    if (value.producer == kNoNode) return 0;
    return start_ns_[context_.lifetimes.step_of_node[value.producer] + 1];
  }

  void ReserveCrossing(int32_t link, int64_t ready_ns, int64_t bytes) {
    links_.ReserveEarliest(link, 0, ready_ns, ChannelTransferTimeNs(profile_.links[link], bytes));
  }

  // Device bytes change over [first, last]: the profile and the trees that track it.
  void AddFreed(Step first, Step last, int64_t delta) {
    device_.Add(first, last, delta);
    if (has_target_) excess_.Add(first, last, delta);
    if (search_ != nullptr) search_->Add(first, last, delta);
  }

  // What a commit changes that a placement reads: its links, pre-peak Store links and tiers
  // over what it holds, its value's Store and home copy, and whether it is taken.
  void ChangedByCommit(const Placement& placement) {
    ChangedLinks(placement.store_hops, +1);
    ChangedLinks(placement.prefetch_hops, +1);
    for (const LinkSlot& hop : placement.pre_peak_store_hops) {
      evaluated_.Change(StateChange::Link(StateChange::Kind::kPrePeakLink, hop.link, hop.slot, +1));
    }
    for (const TierReservation& r : placement.tier_reservations) {
      ChangedTier(r.tier, r.first, r.last, r.bytes);
    }
    evaluated_.Change(
        StateChange::Id(StateChange::Kind::kValue, candidates_[placement.candidate].value));
    evaluated_.Change(StateChange::Id(StateChange::Kind::kCandidate, placement.candidate));
  }

  void Commit(const Placement& placement) {
    const Candidate& candidate = candidates_[placement.candidate];
    for (const HopPlacement& hop : placement.store_hops) links_.Reserve(hop.link, hop.slot);
    for (const HopPlacement& hop : placement.prefetch_hops) links_.Reserve(hop.link, hop.slot);
    pre_peak_stores_.Reserve(placement.pre_peak_store_hops);
    AddFreed(placement.freed_first, placement.freed_last, -candidate.bytes);
    for (const TierReservation& r : placement.tier_reservations) {
      tiers_[r.tier].Add(r.first, r.last, r.bytes);
    }
    if (candidate.homed) home_counted_[candidate.value] = 1;
    NoteStore(placement);
    alive_[placement.candidate] = 0;
    if (has_target_) {
      placement_of_[placement.candidate] = static_cast<int32_t>(selection_.placements.size());
      repairable_[placement.candidate] = 1;
      committed_.Add(placement.candidate, candidate.cover_first, candidate.cover_last);
    }
    ChangedByCommit(placement);
    selection_.reason[placement.candidate] = DecisionReason::kOffloaded;
    selection_.detail[placement.candidate].clear();
    selection_.predicted_stall_ns += placement.stall_ns;
    selection_.placements.push_back(placement);
  }

  const PlanContext& context_;
  const RefineRequest* request_;  // a pointer: a resumed refine answers another request
  const Graph& graph_;
  const HardwareProfile& profile_;
  const std::vector<int64_t>& start_ns_;
  const std::vector<Candidate>& candidates_;
  const Step step_count_;
  RangeMaxTree device_;
  RangeMaxTree* search_ = nullptr;  // set while making free cuts
  bool has_target_ = false;
  RangeMaxTree excess_;             // with a target: device bytes minus each step's target
  int64_t hoist_margin_bytes_ = 0;  // HoistPrefetches keeps each step this far below its target
  std::vector<RangeMaxTree> tiers_;
  LinkSchedule links_;
  PrePeakStores pre_peak_stores_;
  std::vector<StoreState> stores_;
  std::vector<uint8_t> home_counted_;
  std::vector<uint8_t> alive_;
  StabbingIndex committed_;            // taken gaps, for re-placement
  std::vector<int32_t> placement_of_;  // candidate -> index into selection_.placements
  std::vector<uint8_t> repairable_;
  Selection selection_;
  RefineCheckpoint* checkpoint_ = nullptr;   // where RecordAtTarget records, if anywhere
  PlacementCache<Attempt> evaluated_;        // the placements evaluated at the current step
  mutable PlacementReads* reads_ = nullptr;  // set while EvaluateBundle places
};

}  // namespace

// A copy of the refiner and its round, taken where the target is first met.
struct RefineCheckpoint::State {
  State(const Refiner& at_target, const Refiner::Round& its_round)
      : refiner(at_target), round(its_round) {}

  // A copy without the placements the refiner keeps for later rounds (placement_cache.h).
  std::shared_ptr<State> CopiedWithoutCache() { return refiner.Snapshot(round, false); }

  Refiner refiner;
  Refiner::Round round;
};

namespace {

Selection Refiner::Resume(const RefineRequest& request, RefineCheckpoint::State& checkpoint) {
  checkpoint.refiner.request_ = &request;
  return checkpoint.refiner.Continue(checkpoint.round);
}

}  // namespace

RefineCheckpoint RefineCheckpoint::CopiedWithoutCache() const {
  RefineCheckpoint copy;
  if (state != nullptr) copy.state = state->CopiedWithoutCache();
  copy.uniform_target_bytes = uniform_target_bytes;
  copy.without_cache = true;
  return copy;
}

Selection Refine(const PlanContext& context, const RefineRequest& request,
                 RefineCheckpoint* checkpoint) {
  return Refiner(context, request).Run(checkpoint);
}

Selection ResumeRefine(const RefineRequest& request, RefineCheckpoint checkpoint) {
  return Refiner::Resume(request, *checkpoint.state);
}

Selection ResumeRefineLowered(const RefineRequest& request, const RefineCheckpoint& checkpoint,
                              RefineCheckpoint* record) {
  // The preconditions refine.h states; another request would resume into another selection.
  if (checkpoint.state == nullptr || !checkpoint.uniform_target_bytes ||
      request.step_targets == nullptr || request.step_targets->empty() ||
      request.free_cuts_after_target ||
      std::adjacent_find(request.step_targets->begin(), request.step_targets->end(),
                         std::not_equal_to<>()) != request.step_targets->end() ||
      request.step_targets->front() > *checkpoint.uniform_target_bytes) {
    throw Error(ErrorKind::kInternal,
                "ResumeRefineLowered: not a lower uniform target of the checkpoint's");
  }
  const std::vector<int64_t>& targets = *request.step_targets;
  RefineCheckpoint::State state = *checkpoint.state;
  return state.refiner.ContinueLowered(request, *checkpoint.uniform_target_bytes, targets.front(),
                                       record, state.round);
}

}  // namespace hyperplan::planner
