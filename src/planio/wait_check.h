// CheckExplicitWaits: every ordering a runtime relies on is stated by the plan's waits.
//
// The verifier (planner/verify.h) replays the plan with predicted times; a runtime does not
// run at predicted times. So a plan is only safe to follow if each dependency is guaranteed by
// `waits_for` and stream order (each stream runs its steps in sequence order), not merely by
// timing. This check requires, for every step, that these happen before it:
// - a compute step: the Prefetch that opened the residency of each input it reads;
// - a Prefetch to the device: the last compute-stream step sequenced before it (its arena
//   block may have been freed by that step or one before it);
// - a transfer: the transfer that wrote the copy it reads (a Store before the Prefetch that
//   reads it back, an earlier hop before the next); a Store off the device: the value's
//   producer;
// - a Detach: every Store that reads the device copy it drops.
// "Happens before" is transitive through waits and stream order, computed with one vector
// clock per step (the latest step of each stream known to have ended).
// Cost: O((steps + waits) * streams) time and steps * streams int32 of memory.
#pragma once

#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::planio {

// Empty when every dependency is stated; else the first missing one, as "step S (...): ...".
// Expects a plan whose indices VerifyPlan already accepted.
std::string CheckExplicitWaits(const Graph& graph, const HardwareProfile& profile,
                               const Plan& plan);

}  // namespace hyperplan::planio
