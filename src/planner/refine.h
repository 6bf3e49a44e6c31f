// Refine: choose which candidates leave the device and place their transfers in time.
//
// Peak-driven greedy. The device bytes per step live in a RangeMaxTree; each round takes the
// current peak step p (the first, on ties) and pops candidates covering p in rank order. Each
// is placed by time against the stall-free timeline and what already occupies the links:
// - Store (stored values, once per value): every hop at the earliest free channel slot after
//   the producer ends (time 0 for a graph input).
//   A gap before a persistent value's in-place write relies on the Store after that write
//   (candidates.h): it is placed the same way, but it serves the next iteration, so nothing
//   of this gap waits for it. A value kept across the boundary (write_back_at_start) has its
//   Store placed from the iteration's start instead, before the write, and waited for.
// - Detach: at the first step boundary, not before the gap, at or after the Store completes.
//   If that is after p, the Detach is pulled to p and the compute stream waits for the Store
//   (a predicted stall), unless the Store could not even start before step p (rejected).
//   A Store first issued by the no-offload peak is also placed on the compute-only axis
//   (pre_peak_stores.h): the Detach goes no earlier than that Store allows there, and a gap
//   whose Detach would then wait longer there than on the axis it is planned on is rejected
//   at p (on a retimed axis, the time it fits in is the last plan's wait), unless the context
//   turns the rule off (PlanContext::reject_stores_late_on_compute_axis: the planner's last
//   round, where the rule left every retimed round stuck).
// - Prefetch: hops chained backwards, each in the latest free slot ending before the next hop
//   starts (the last one ending by the consumer's start), so it starts as late as still hides
//   its transfer given the link's occupancy; the last hop must start at or after the boundary
//   after p, or the gap would not free p. When no such chain exists the hops go in the earliest
//   slots after that boundary and the consumer stalls by the overrun.
// - Off-device tiers must have room (conservatively, per step) for home, stored and staging
//   copies; a tier without room rejects the candidate.
// A placement evaluated in one round is kept for later rounds, at every step it would be
// placed alike, until a change (a commit, a re-placement) alters what it read
// (placement_cache.h): a round places only the candidates whose placement may have changed.
// Among the first kEvaluatedPerRound valid placements (stopping early at a stall-free one)
// the least predicted stall wins, ties by rank (or, with Choice::kMostBytes, the largest
// value); the others go back to the index. With a target, re-placing a gap already taken that
// covers p but leaves the value resident there (its Prefetch squeezed early by link traffic,
// or its Detach late) competes too, at the stall it adds; a gap whose own Store queues on the
// link past p's start issues it at p and its Detach waits for it there (the training step on
// rtx-4090-xeon-2s: the forward pass produces activations faster than PCIe drains them, and
// a plan fits only by stalling it; refused, the refine stuck at the peak and the planner's own
// plan did not fit). The winner subtracts its bytes over the steps it frees [Detach boundary,
// Prefetch boundary). The loop stops when the peak is at or below the target, when nothing
// can free the peak step, or (no target) when the cheapest stall would exceed the remaining
// allowance. With free_cuts_after_target it then goes on with stall-free placements only, at
// every step in turn, highest first.
// Must take: before the first round, every must_take candidate (candidates.h) is placed as a
// bundle freeing what it can, and committed; assembly keeps these placements in every prefix.
// Hoisted (PlanContext::hoist_prefetches, with a target): once the loop ends, each one-hop
// Prefetch (a homed value's; a stored value's, no earlier than its Store ends: the training
// step on rtx-4090-xeon-2s, whose backward pass brought activations back as late as they hid
// on an axis the run fell behind, with a third of the device free, 5.49 -> 4.98 s) moves,
// earliest consumer first, to the earliest boundary from
// which every step up to its old one keeps 1/64 of its target free with the value back on
// the device, and to its link's earliest free slot from there (never later than it was).
// Staged ahead (always, once the loop ends): each multi-hop Prefetch that does not hide (its
// device hop ends after its consumer's start), of a value whose home copy is current, has
// its staging hops (NVMe -> DDR) issued, in the order the device reads the values, at the
// earliest boundary from which the staging tier keeps room for the copy (1/64 of the tier
// kept free) until the consumer, never before the previous value's nor later than it was.
// Placed against a link the axis cannot hide, a staging hop's slot lies past its consumer's
// start, so its boundary was the consumer's and the replay ran the values one at a time on
// one channel: the DeepSeek-V3-sized decode's own plan took 563-618 s on h100-sxm (NVMe busy
// 26% of it), 148 s staged ahead (the bound: 147 s). Found by a helper's analysis.
// Cost: O((c + r * k) log n) for c candidates, r rounds and k evaluations per round, plus link
// searches (bounded, see link_schedule.h): a second one per hop for a Store judged on the
// compute-only axis, and O(n) for that axis. A gap turned down at one step is evaluated again
// in later rounds. Of the k evaluations a round makes, those kept from earlier rounds cost a
// check of the changes since (placement_cache.h): on the DeepSeek-V3-sized QMoE decode on
// h100-sxm, 81% of 11.6 M evaluations.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hyperplan/plan/plan.h"
#include "planner/context.h"
#include "planner/link_schedule.h"

namespace hyperplan::planner {

inline constexpr int kEvaluatedPerRound = 16;

struct HopPlacement {
  int32_t link = -1;
  Slot slot;
  TierId src_tier = kNoTier;
  TierId dst_tier = kNoTier;
  Step boundary = 0;  // issued before this compute step
};

// Bytes a placement adds on an off-device tier over steps [first, last].
struct TierReservation {
  TierId tier = kNoTier;
  Step first = 0;
  Step last = 0;
  int64_t bytes = 0;
  bool prefetch_staging = false;  // between two Prefetch hops (given back on re-placement)
};

struct Placement {
  int32_t candidate = -1;
  std::vector<HopPlacement> store_hops;     // set on the decision that creates the value's Store
  Step detach_boundary = -1;                // -1: no Detach (a homed value's leading gap)
  std::vector<HopPlacement> prefetch_hops;  // empty for a trailing gap
  Step freed_first = 0;                     // inclusive
  Step freed_last = -1;
  int64_t detach_start_ns = 0;  // planned: max(boundary start, Store end)
  int64_t stall_ns = 0;         // predicted: Detach wait plus Prefetch overrun
  // The Store again on the compute-only axis (pre_peak_stores.h): set on the decision that
  // creates a Store first issued by the no-offload peak.
  std::vector<LinkSlot> pre_peak_store_hops;
  std::vector<TierReservation> tier_reservations;
  // While evaluating a bundle (candidates.h): the bundled candidates' placements, committed
  // with this one. Empty once committed.
  std::vector<Placement> partners;
};

// How a round picks among the placements that free the peak step.
enum class Choice : uint8_t {
  kLeastStall,  // least predicted stall, ties by rank (the default)
  kMostBytes,   // most bytes, ties by stall then rank (a fallback when the default gets stuck)
};

struct RefineRequest {
  Choice choice = Choice::kLeastStall;
  std::optional<int64_t> target_live_bytes;  // stop once the peak is at or below it
  // Per-step targets instead (one per step; overrides target_live_bytes): stop once every
  // step is at or below its own, cutting where the excess over the target is largest.
  const std::vector<int64_t>* step_targets = nullptr;
  int64_t stall_allowance_ns = std::numeric_limits<int64_t>::max();
  const std::vector<uint8_t>* allowed = nullptr;  // per candidate; null: all (oracle hook)
  // Once the target is met, keep cutting the peak with stall-free placements only: room for
  // the arena's fragmentation at no predicted cost.
  bool free_cuts_after_target = false;
  // Keep each evaluated placement across rounds until a change alters what it read
  // (placement_cache.h); false places every popped candidate afresh (the same selection: the
  // oracle the tests hold the cache to).
  bool reuse_placements = true;
};

struct Selection {
  std::vector<Placement> placements;  // commit order
  // Placement counts after each decision (a bundle is one decision): the prefixes that keep
  // every bundle whole, ascending.
  std::vector<size_t> decision_ends;
  // The first placements, the must_take candidates' (candidates.h): every plan keeps them.
  size_t must_take_count = 0;
  std::vector<DecisionReason> reason;  // per candidate
  std::vector<std::string> detail;     // per candidate, set for rejections
  int64_t live_peak_bytes = 0;         // after the placements
  Step peak_step = 0;
  Step stuck_step = -1;  // with a target not reached: the step nothing more could free
  bool reached_target = false;
  int64_t predicted_stall_ns = 0;
};

// The greedy's state where a refine first meets its target, before its free cuts and the
// passes after its loop (hoisting, staging ahead). Up to there a refine makes the same moves
// whether or not it asks for free cuts after the target (nothing before reads
// free_cuts_after_target), so a refine that differs from the recorded one in that alone
// resumes from here instead of cutting to the target again: the budget rounds' second round
// (modes.h) is the first with free cuts, with the first round's targets. A state recorded at
// one target for every step also serves a refine at any lower such target (ResumeRefineLowered,
// the budget rounds' uniform retries). Copying the state costs O(n + p) for n steps and p
// placements, against a refine's placing.
struct RefineCheckpoint {
  struct State;                  // refine.cc
  std::shared_ptr<State> state;  // null: nothing recorded
  // Set when the recording refine had one target for every step: that target.
  std::optional<int64_t> uniform_target_bytes;
  // Asked of the recording refine: record the state without the placements it evaluated and
  // keeps for later rounds (placement_cache.h), which a resumed refine then places afresh; the
  // same selection (the cache's oracle), a smaller state for one that resumes for a few rounds.
  bool without_cache = false;

  // A copy of the state (O(n + p)) that a resume may change while this one stays as it is,
  // without the placements kept for later rounds (as `without_cache` records).
  RefineCheckpoint CopiedWithoutCache() const;
};

// With `checkpoint` (empty), a refine that meets its target records its state there.
Selection Refine(const PlanContext& context, const RefineRequest& request,
                 RefineCheckpoint* checkpoint = nullptr);

// The refine of `request` (free_cuts_after_target set) resumed from `checkpoint`, recorded by
// a refine of the same context and request but for free_cuts_after_target; the same selection
// as Refine(context, request).
Selection ResumeRefine(const RefineRequest& request, RefineCheckpoint checkpoint);

// The refine of `request`, one target for every step and no free cuts, resumed from a copy of
// `checkpoint`, recorded by a refine of the same context and request but for a uniform target
// at least as high; records its own state where it meets its target in `record` (may be null).
// The same selection as Refine(context, request, record): with one target T for every step, the
// excess over it is the device bytes less T, so each round frees the same step whatever T is,
// and T decides only where the rounds stop (the first whose live peak is at most T) and the
// hoisting margin after them (T / 64), which is set anew here. A lower target's refine is the
// higher one's rounds and then more, from where the higher one met its target. The budget
// rounds' uniform retries (modes.h) lower the target a byte below the last live peak each time:
// each placed ~89 k placements again from the start for two more on the DeepSeek-V3-sized decode.
Selection ResumeRefineLowered(const RefineRequest& request, const RefineCheckpoint& checkpoint,
                              RefineCheckpoint* record);

}  // namespace hyperplan::planner
