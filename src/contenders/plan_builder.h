// PlanBuilder: turns a contender's decisions, made step by step in sequence order, into a Plan
// that Simulate and VerifyPlan accept (plan.h's execution semantics).
//
// A policy appends steps in the order a runtime would issue them: at each boundary k its
// Stores, Detaches and Prefetches, then compute step k. The builder keeps the bookkeeping the
// plan format needs and a policy should not repeat: device residency intervals (opened by a
// producer, a Prefetch or the run start; closed by a compute step, a Detach or the run end),
// off-device copies (home copies, stored copies, staging copies between hops), and the waits
// the format requires: a compute step waits for the Prefetches that brought its inputs, a
// Prefetch's first and device hops for the compute stream to reach its boundary, a Store for
// its producer, a Detach for the Store it relies on. Policies add waits of their own (a
// reactive runtime chains every transfer to the step before it). Draft closes the run; Finish
// also lays out the arena, replays the plan and summarises it (CompletePlan).
// Channels: each transfer takes the channel of its link that frees first, from the steps'
// simulated times so far (a runtime handing a copy to whichever stream is idle), kept by
// Simulate's own StepClock (simulate.h) so the builder and the replay time steps alike.
// Cost: O(1) amortized per step and residency change, O(k log k) layout for k intervals (the
// greedy layouts only below kGreedyLayoutLimit), one simulation.
// Loops (a periodic context): a value updated in place (Value::written_by) has a stale home
// copy from its write until a Store writes the change back (the Store then moves only the
// changed bytes into the home copy); Finish closes the iteration by detaching, after the last
// step, every persistent value that is resident at the end but did not start there, so the
// plan ends as it began (a value that started resident and left is the policy's to avoid:
// steady_state.h reruns it with that value starting off the device).
// Limits: a transfer's hops are issued at one boundary, or two (Stage, then Fetch); decisions
// stay empty (contenders do not explain themselves).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "contenders/context.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "hyperplan/plan/simulate.h"

namespace hyperplan::contenders {

// A plan whose steps, residency and copies are final but not yet laid out or replayed: enough
// for SteadyState to tell whether the policy must run again (steady_state.h), at a fraction of
// a finished plan's cost (layout and replay are most of it on real-scale graphs).
struct PlanDraft {
  Plan plan;
};

// The most bytes resident on the device at once in the draft: its arena, once laid out, is at
// least this. O(residency + steps).
int64_t DraftLivePeakBytes(const PlanDraft& draft);

// Lays out the draft's arena and tier buffers, replays it, and says whether it fits: the plan
// and its evaluation.
EvaluatedPlan CompletePlan(const ContenderContext& context, PlanDraft draft);

class PlanBuilder {
 public:
  explicit PlanBuilder(const ContenderContext& context);

  Step step_count() const { return context_.step_count(); }
  // Index of the last step appended, -1 when none.
  int32_t last_step() const { return static_cast<int32_t>(plan_.steps.size()) - 1; }

  // Compute step `k` (the next one in the order). Opens its outputs' residency.
  int32_t Compute(Step k, std::vector<int32_t> waits = {});
  // Drops the device copy at boundary `boundary`: the open interval ends at boundary - 1.
  int32_t Detach(ValueId value, Step boundary, std::vector<int32_t> waits = {});
  // Makes the device copy of `value` redundant and drops it: a Store first when no current copy
  // exists off the device (a value never stored, or an update not written back). Returns the
  // Detach.
  int32_t Evict(ValueId value, Step boundary, std::vector<int32_t> waits = {});
  // Brings `value` from its off-device copy to the device, every hop issued at `boundary`;
  // the first hop also waits for `waits`. Opens its residency at `boundary`. Returns the hop
  // that reaches the device.
  int32_t Fetch(ValueId value, Step boundary, std::vector<int32_t> waits = {});
  // Brings `value` from its off-device copy as far as the last tier before the device, every
  // such hop issued at `boundary` (a staging hop run ahead: NVMe -> DDR layers before the
  // device needs it). The next Fetch of `value` then moves only the device hop, from that
  // staged copy. Returns the last hop, or -1 when the route is one hop (nothing to stage).
  int32_t Stage(ValueId value, Step boundary, std::vector<int32_t> waits = {});
  // Copies `value` to its store tier, every hop issued at `boundary`; returns the last hop.
  int32_t Store(ValueId value, Step boundary, std::vector<int32_t> waits = {});

  // Residency from the run's start (inputs, weights and state owned outside the run). None in
  // a run of no steps: there is no step for the value to be resident in.
  void OpenAtStart(ValueId value);
  // Ends the open interval at `last_step`, freed by the end of compute step `last_step`.
  void CloseAfterCompute(ValueId value, Step last_step);

  bool Resident(ValueId value) const { return open_interval_[value] >= 0; }
  // A copy off the device exists, or will once its Store ends (homed, or stored).
  bool HasOffCopy(ValueId value) const;
  // The step that opened the value's open interval (-1: the run start, or not resident).
  int32_t Opener(ValueId value) const;

  struct FinishOptions {
    std::optional<int64_t> budget_bytes;
    bool offload_enabled = true;
  };
  // Closes what is still open at the run end: the plan's steps and residency, not laid out.
  PlanDraft Draft(const FinishOptions& options);
  // The draft laid out, replayed and summarised.
  EvaluatedPlan Finish(const FinishOptions& options) {
    return CompletePlan(context_, Draft(options));
  }

 private:
  int32_t Append(PlanStep step, std::vector<int32_t> waits);
  int32_t Transfer(StepKind kind, ValueId value, int32_t link, Step boundary,
                   std::vector<int32_t> waits, int64_t bytes);
  // The hops route[first, last) of a Fetch at `boundary`, chained, each staging copy kept until
  // the next hop has read it; `previous` (-1: none) is the hop before route[first].
  int32_t FetchHops(ValueId value, const Route& route, size_t first, size_t last, Step boundary,
                    std::vector<int32_t> waits, int32_t previous);
  // The staging copy hop `written_by` wrote at the far end of `link`: it lives until hop
  // `read_by` has read it.
  void AddStagingCopy(ValueId value, int32_t link, int64_t bytes, int32_t written_by,
                      int32_t read_by);
  // The Store hops along `route` at `boundary`, `bytes` each, chained, each staging copy kept
  // until the next hop has read it; the first hop also waits for `waits`. Returns the last.
  int32_t StoreHops(ValueId value, const Route& route, Step boundary, std::vector<int32_t> waits,
                    int64_t bytes);
  int32_t WriteBack(ValueId value, Step boundary, std::vector<int32_t> waits);
  void CloseLoop();
  void Open(ValueId value, Step first_step, int32_t opened_by);
  void Close(ValueId value, Step last_step, int32_t closed_by);

  const ContenderContext& context_;
  Plan plan_;
  std::vector<int32_t> compute_index_;  // by step
  std::vector<int32_t> open_interval_;  // by value: index into plan_.residency, -1: none
  std::vector<int32_t> store_step_;     // by value: last hop of its Store, -1: none
  std::vector<int32_t> stored_copy_;    // by value: index into plan_.tier_copies, -1: none
  std::vector<int32_t> last_reader_;    // by value: last Prefetch reading its stored copy
  std::vector<uint8_t> home_used_;      // by value: its home copy is relied on
  std::vector<uint8_t> dirty_;          // by value: updated in place, not written back yet
  std::vector<int32_t> staged_hop_;     // by value: last hop of its Stage, -1: not staged
  StepClock clock_;                     // the steps so far, timed as Simulate times them
  int32_t last_stream_ = -1;            // last compute or Detach
  Step next_compute_ = 0;
};

}  // namespace hyperplan::contenders
