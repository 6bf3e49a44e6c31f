// CrossingDetachBoundaries: where each crossing Detach (assemble.cc: the Detach of a device
// value a host step reads last, after the crossing Store that copied it to the host tier) is
// issued, when it waits for that Store alone (Problem::detach_waits_for_host off).
//
// The Detach runs on the device's stream and waits for its Store, so issued right after the
// host read it holds the device until the Store ends. With the optimizer on the host
// (ZeRO-Offload's placement, in the eager-update order) every weight gradient crosses right
// after the device makes it, and the host's Adam steps between the gradient and its Detach
// take no device time: on the Llama-3-8B training step on rtx-4090-xeon-2s the device stalled
// 4.7 ms behind every 117 MB gradient's Store (0.64 s of the backward pass in all; 4.92 s an
// iteration, 4.60 s with the Detaches moved). Issued later, the device computes on
// while the Store runs, and the value's block stays on the device those steps longer.
//
// So each such Detach moves forward, one step at a time, until the device has computed past
// its Store's end, or until holding the value one more step would raise the plan's live peak
// (the memory the refine settled on is not exceeded; a step's live bytes count the Detaches
// moved before it), or to the last step. Its Store's end is reckoned on the device's clock
// (the compute-only time of the device's steps; the host's run beside it): from its writer's
// end, behind the crossing Stores sequenced before it on its link (a layer's 8 KB norm
// gradient queued 4.3 ms behind its 117 MB MLP gradient; 4.67 -> 4.60 s on the training step
// once counted), for its planned length. The plan is verified and laid out after (the layout
// sees the longer blocks). Cost: O(n + d log d) for d such Detaches, then the steps each moves
// over. Limits: the planner's own Stores on the link are not in the queue; where the run falls
// behind the device's clock (stalls for Prefetches), the Stores have more time than counted.
#pragma once

#include <vector>

#include "hyperplan/plan/plan.h"
#include "planner/context.h"

namespace hyperplan::planner {

// A crossing Detach of a plan and the crossing Store its value's host read waits for, as
// indices into the plan's steps.
struct CrossingDetach {
  ValueId value = kNoValue;
  int32_t detach = -1;
  int32_t store = -1;
};

// By ValueId: the boundary each of `detaches` in `plan` (its steps and residency assembled,
// each Detach right after its value's last host read) moves to, -1 where it stays (and for
// every other value). Empty when none moves.
std::vector<Step> CrossingDetachBoundaries(const PlanContext& context, const Plan& plan,
                                           std::vector<CrossingDetach> detaches);

}  // namespace hyperplan::planner
