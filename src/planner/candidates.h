// Candidates: every idle gap of every value whose device residency could be cut, ranked.
//
// A value must be on the device at its producer's step and at each consumer's step (its
// "required steps"); with nothing offloaded it is resident over its baseline interval
// (lifetimes.h). Each stretch of the baseline between two required steps, before the first
// (values owned outside the run) or after the last (weights, graph inputs and outputs, which
// the baseline keeps to the end) is a gap; a gap with at least one step inside is a
// candidate. Policies by class:
// - each value's tier comes from the shared home policy (hyperplan/homes.h): weights,
//   and kv cache and optimizer state that enter as graph inputs, are "homed" (a copy exists
//   off the device from the start: no Store, only Prefetch and Detach), spilled to the next
//   tier when their preferred one is full; weights are pinned when the profile has no home;
// - everything else (activations, graph inputs and outputs, kv cache and optimizer state
//   produced by the run) is "stored": one Store after production, shared by all its gaps;
// - a homed value's leading gap ends with a Prefetch and nothing else; a trailing gap needs
//   no Prefetch; an activation's gap is Store (once), Detach, Prefetch.
// Rank: bytes x gap time against
// transfer time, higher first; ties by value id, then gap start ("ties broken by id").
// A wrap-around half (below) ranks by its whole wrap-around gap, the time the value could be
// away (the iteration less its reads), and ties among those (a stack of identical layers) go
// by where the value is first read, as a fraction of the steps, bit-reversed (0, 1/2,
// 1/4, 3/4, 1/8, ...: van der Corput order), so any prefix of the ranking is spread evenly over
// the iteration. Ranked by its own half, the trailing halves of the first layers came first
// and the streamed layers were adjacent, with no resident compute between them to hide their
// fetches: Llama-3-70B batch-1 decode on the supernode streamed the MLP weights of layers 3-21
// and ran at 139.8 ms, each layer stalling on its fetch; spread, 79.2 ms (the bound: 65.1 ms).
// Limit: only exact ties spread; layers whose node times differ by a nanosecond rank apart.
// Values with no candidate get one Decision saying why (pinned, unknown size, no gap, no route).
// Loops (a non-empty `persistent`): a value that persists across iterations (a weight, an
// aliased input) must end the iteration where it began, so its leading gap (Prefetch before
// the first use) and trailing gap (Detach after the last) are one decision, the wrap-around
// gap: each names the other in `bundle`, and either is created with an empty cover when the
// value is used at the first or last step. Its inner gaps are decisions of their own: a value
// kept on the device across the iteration boundary may still leave between two uses (the
// training step's weights: kept from their update to the next forward pass, away over the
// activations' peak); its blocks at both ends are then one arena block (layout.h).
// A value written in place (Value::written_by) has a stale home copy after the write: a gap
// after it needs a Store of the changed bytes (`store_bytes`) before the Detach. So does a gap
// before the write of a persistent value, when the last iteration's update stayed on the device:
// that Store is the one after this iteration's write (one per value), which the next
// iteration's Detach relies on (`write_back_last_iteration`: nothing here waits for it).
// Kept across the boundary (LateWriteBacks::kAtStart): a homed persistent value whose in-place
// write is its last use, with a write-back that takes longer than the rest of the iteration
// after the write (the training step's embedding: updated by the last node, 1.05 GB written
// back in 42 ms over PCIe 4), has no wrap-around gap: off the device at the boundary, its
// Store would run past the iteration's end. It stays on the device across the boundary, and
// each gap of it (the leading one too, from step 1) relies on a Store issued in this iteration,
// from its start, of the update the last iteration left on the device (`write_back_at_start`,
// one hop straight into the home copy, before the write).
// Updated by a host node (Lifetime::host_updated: a CPU optimizer step's weights): its device
// copies are read-only (the update writes the home copy, after the last device read), so no
// gap needs a Store, and its leading and trailing gaps are `must_take` (refine.h takes them
// before anything else): each iteration fetches it from its home copy after the last update
// and ends with it off the device. Its inner gaps are ordinary decisions: a weight read in the
// forward and the backward passes may leave the device between them.
// Cost: O(values + uses) plus a sort of the candidates.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/homes.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/plan/plan.h"
#include "hyperplan/planner/stabbing_index.h"
#include "planner/cost_analysis.h"

namespace hyperplan::planner {

struct Candidate {
  ValueId value = kNoValue;
  Step after_step = -1;  // last required step before the gap; -1: none
  Step before_step = 0;  // next required step; n: none (no Prefetch)
  Step cover_first = 0;  // the steps this gap could free (inclusive)
  Step cover_last = 0;
  bool homed = false;        // a copy already lives in `tier` from the run's start
  bool needs_store = false;  // a Store must write the device copy to `tier` before the Detach
  int64_t store_bytes = 0;   // bytes that Store moves (all, or what an in-place write changed)
  bool write_back_last_iteration = false;  // its Store, after the write, serves the next one
  bool write_back_at_start = false;        // its Store writes back the last iteration's update
  TierId tier = kNoTier;
  int64_t bytes = 0;
  int64_t gap_ns = 0;       // step_start[before] - step_start[after + 1]
  int64_t store_ns = 0;     // 0 when homed
  int64_t prefetch_ns = 0;  // 0 for a trailing gap
  int32_t rank = 0;         // 0 is the best
  // A wrap-around half's ranking (above): its whole wrap-around gap (0 for other gaps: they
  // rank by gap_ns), and its first step as a 32-bit fraction of the steps, bit-reversed (0
  // for other gaps).
  int64_t wrap_gap_ns = 0;
  uint32_t spread_key = 0;
  // Candidates (indices into CandidateSet::candidates) that must be taken with this one.
  std::vector<int32_t> bundle;
  // Taken in every plan, before the greedy (a host-updated value's leading and trailing gaps).
  bool must_take = false;
};

// Whether the gap begins with the value off the device: a homed value's leading gap, unless
// the value is kept across the boundary (then the gap's Detach frees it).
inline bool StartsOffTheDevice(const Candidate& candidate) {
  return candidate.homed && candidate.after_step < 0 && !candidate.write_back_at_start;
}

struct CandidateSet {
  std::vector<Candidate> candidates;  // sorted by rank
  std::vector<Decision> pinned;       // one per value that has no candidate, by value id
  // The order of a plan's decisions (assemble.cc), set by FindCandidates: DecisionOrder.
  std::vector<int32_t> decision_order;
  // Every candidate by rank over the steps it could free (CoverIndex), set by FindCandidates:
  // each refine of the context starts from a copy instead of building its own.
  StabbingIndex cover_index{0};
};

// `candidates` by rank (their index) over [cover_first, cover_last], on `step_count` steps.
StabbingIndex CoverIndex(const std::vector<Candidate>& candidates, Step step_count);

// The decisions of `set` in a plan's order: by value, then the step the gap follows, then
// candidate index, with pinned decision i as index candidates.size() + i (the order a stable
// sort of the candidates' decisions followed by the pinned ones gives). Kept with the set, so
// the assemblies of one context (thousands on a DeepSeek-V3 decode) do not each sort it.
std::vector<int32_t> DecisionOrder(const CandidateSet& set);

// How a persistent value's inner gaps relate to its wrap-around gap. kOwn: decisions of their
// own (above). kWithWrap: each bundles the wrap-around gap, so a value kept on the device
// across the boundary stays the whole iteration, one plain arena block: the planner's fallback
// when its wrapped blocks leave the arena too fragmented to fit (planner.cc).
enum class InnerGaps : uint8_t { kOwn, kWithWrap };

// Where the write-back of a persistent value's last update goes when it outlasts the rest of
// the iteration. kAfterWrite: right after the write, past the iteration's end if need be.
// kAtStart: the value is kept across the boundary and written back from the next iteration's
// start (above; with InnerGaps::kOwn only). Neither wins everywhere: the planner plans the
// winning order again with kAtStart and keeps the better plan (planner.cc).
enum class LateWriteBacks : uint8_t { kAfterWrite, kAtStart };

// How a wrap-around half ranks. kWholeGap: by the whole wrap-around gap, identical layers
// spread (above). kOwnHalf: by its own half, ties by value id: the trailing halves of the first
// values read rank first. Neither wins everywhere (kOwnHalf: the 405B prefill on h100-sxm,
// 105.8 -> 78.9 s; the training step on a100-pcie4, 3.61 -> 3.39 s): the planner plans the
// winning order again with kOwnHalf where its plan stalls and keeps the better (planner.cc).
enum class WrapRank : uint8_t { kWholeGap, kOwnHalf };

struct CandidateRules {
  InnerGaps inner_gaps = InnerGaps::kOwn;
  WrapRank wrap_rank = WrapRank::kWholeGap;
  LateWriteBacks late_write_backs = LateWriteBacks::kAfterWrite;
};

// `homes` decides each value's tier (homes.h); `persistent` (by ValueId, loop.h
// PersistentValues) is empty for a one-shot plan.
CandidateSet FindCandidates(const Graph& graph, const HardwareProfile& profile,
                            const LifetimeAnalysis& lifetimes, const CostAnalysis& cost,
                            const ValueHomes& homes, const std::vector<uint8_t>& persistent,
                            CandidateRules rules = {});

// Values whose write-back LateWriteBacks::kAtStart moves (by ValueId, 1: moved): homed and
// persistent, written in place by their last use, with a one-hop route into their home
// copy that takes longer than the stall-free rest of the iteration after the write.
std::vector<uint8_t> LateWriteBackValues(const Graph& graph, const HardwareProfile& profile,
                                         const LifetimeAnalysis& lifetimes,
                                         const CostAnalysis& cost, const ValueHomes& homes,
                                         const std::vector<uint8_t>& persistent);

}  // namespace hyperplan::planner
