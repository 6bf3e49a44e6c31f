// ComputeBounds: where each step of a plan must fall among the compute steps, in every
// execution its waits allow.
//
// A runtime starts a step when the previous step on its stream (the compute stream: compute
// and Detach steps; or its link channel) and every step in its waits_for have ended, nothing
// else (plan.h). So step b surely starts after step a ends exactly when a chain of stream and
// wait edges leads from a to b. Because the compute stream runs its compute steps in order,
// "compute step c ended before b started" holds for every c up to some bound, and "compute
// step c starts after a ended" for every c from some bound: two integers per step, found in
// one forward and one backward pass over the sequence.
// Used to lay out off-device tier buffers so that two copies share space only when one is
// freed before the other is allocated in every execution (tier_layout.h), and by the verifier.
// Cost: O(steps + waits). Limits: waits must point back (VerifyPlan checks it first); a wait
// that points forward is ignored here.
#pragma once

#include <vector>

#include "hyperplan/plan/plan.h"

namespace hyperplan::planner {

struct ComputeBounds {
  // Per step: the last compute step (position in the order) that has ended before it starts;
  // -1 when none must have.
  std::vector<Step> ended_before;
  // Per step: the first compute step that starts only after it has ended; the order's size
  // when none does.
  std::vector<Step> starts_after;
};

ComputeBounds BoundByCompute(const Plan& plan);

}  // namespace hyperplan::planner
