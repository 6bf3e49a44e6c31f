// VerifyPlan: checks docs/design.md's invariants 1-6 and 8 on a plan, replaying it with Simulate.
//
// 1. Every device node finds each input resident on the device when it starts (a
//    ResidentInterval covers its step and, when a Prefetch opened it, that Prefetch ended
//    first); outputs are resident from their producer; every interval opens and closes by a
//    matching step, a Detach only drops a value whose other copy is complete, so nothing is read
//    after its Detach unless re-fetched. Per unit (docs/design.md "Compute units"): a host node
//    needs a profile with a host unit; it reads each input from a copy on the host compute tier
//    H whose writer (a transfer into H or a host step) happens before it, not freed before it
//    ends, and writes each output into a copy on H it opens (plan/host_step_checks.h); it
//    neither opens nor frees device residency, so a device copy of its output is a Prefetch's.
//    A host step may update a value in place when its home copy is on H: no Store writes that
//    copy, transfers reading it are ordered with the update, device reads after the update
//    read a copy a Prefetch after it opened, and in a loop no device copy of it is open at the
//    iteration's start or end.
// 2. Simulated bytes on every tier stay within its capacity (capacity <= 0: unbounded); the
//    arena fits the device (and the budget when the plan claims to fit); the summary's peak
//    is the maximum of the simulated device timeline.
// 3. No two resident intervals overlap in the arena while both are live; every block lies in
//    [0, arena size).
// 4. The order is a topological permutation; compute steps follow it; waits_for points back;
//    no transfer reads a tier before a copy exists there (a Prefetch of a stored value never
//    starts before that Store completes); no Store starts before its producer ends, nor reads
//    the device copy of a value owned outside the run while its in-place writer runs (before
//    the writer only straight into the home copy: the last iteration's update written back).
// 5. makespan >= each unit's compute sum (the device's compute stream, the host lane);
//    makespan >= bytes moved on each link / its bandwidth.
// 6. With offloading off: no host steps, no cache ops, the model's order, makespan = compute,
//    peak = baseline.
// 8. A periodic plan (Plan::periodic) is checked on the loop graph of its aliases (loop.h):
//    every persistent value is on the device at the iteration's end exactly when it was at its
//    start, at the same arena offset, with the same off-device copies; a home copy updated in
//    place on the device is read or relied on only after a Store has written the update back.
//    That includes the previous iteration's update: a value that ends the iteration on the
//    device with no Store after its write starts the next with a stale home copy, until a Store
//    before the write (a write-back deferred into the next iteration) makes it current.
// The timeline every check reads is the verifier's own replay of the plan; of `evaluation`
// only the claims are read: whether the plan fits (2: the arena within the device and the
// budget, the tier buffers within their tiers) and the summary's peak (2). Whether a recorded
// evaluation is the replay of its plan is the plan file check's to report (planio/plan_check.h).
// Each rule is one named check (verify.cc): the shapes first (CheckOrderIsPermutation,
// CheckTopologicalOrder, CheckStepFields, ...), then on the replay
// CheckTransfersReadCompleteCopies (4), CheckHostStepsReadHostCopies (1), CheckResidencyEnds,
// CheckCacheOpsAccounted, CheckInputsResident (1), CheckTierCapacity, CheckReportedPeak (2),
// CheckArenaDisjoint, CheckArenaAlignment, CheckTierBuffers (3), CheckMakespanBounds (5),
// CheckNoOffloadIsBaseline (6), CheckLoopClosed (8). CheckExplicitWaits below is the
// verifier's check that a runtime needs no timing luck.
// The first failure is returned, naming the invariant, the step and the rule.
// Cost: one simulation plus O(steps + residencies log residencies + uses).
#pragma once

#include <cstdint>
#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

struct VerifyResult {
  bool ok = true;
  int invariant = 0;    // 1-6 when !ok (0: a structural error, e.g. a bad index)
  int32_t step = -1;    // index into Plan::steps at fault, -1 when none applies
  std::string message;  // "invariant N: step S (kind ...): ..."
};

VerifyResult VerifyPlan(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                        const PlanEvaluation& evaluation);

// CheckExplicitWaits: every ordering a runtime relies on is stated by the plan's waits.
// VerifyPlan replays the plan with predicted times; a runtime does not run at predicted times.
// So a plan is only safe to follow if each dependency is guaranteed by `waits_for` and stream
// order (each stream runs its steps in sequence order), not merely by timing. This check
// requires, for every step, that these happen before it (HappensBefore, plan/compute_bounds.h):
// - a device compute step: the Prefetch that opened the residency of each input it reads;
// - a host compute step: the Store or host step that wrote each input's copy on the host tier
//   (host-lane order counts); and, when it frees a copy there, every step reading that copy
//   (the host steps and transfers that read it before it);
// - a Prefetch to the device: the last compute-stream step sequenced before it (its arena
//   block may have been freed by that step or one before it);
// - a transfer: the transfer or host step that wrote the copy it reads (a Store before the
//   Prefetch that reads it back, an earlier hop before the next, a host step before the
//   Prefetch of its output); a Store off the device: the value's producer;
// - a Detach: every Store that reads the device copy it drops.
// Empty when every dependency is stated; else the first missing one, as "step S (...): ...".
// Expects a plan VerifyPlan accepted. Cost: O((steps + waits) * streams) time and
// steps * streams int32 of memory.
std::string CheckExplicitWaits(const Graph& graph, const HardwareProfile& profile,
                               const Plan& plan);

}  // namespace hyperplan
