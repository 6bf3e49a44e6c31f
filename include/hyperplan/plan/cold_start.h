// Cold start: what a periodic plan needs in place before its first iteration, and how long
// bringing the device's share takes.
//
// The persistent values (loop.h PersistentValues) resident on the device when the iteration
// starts, and their home copies on other tiers, are placed once before iteration 1; every
// later iteration starts from the state the previous one left, which invariant 8 makes equal.
// The device's share arrives from each value's home tier (the tier its home copy is on, else
// its home under the shared policy, homes.h, else the tier with the fastest route) along its route;
// links run in parallel at full bandwidth, so the time is the busiest link's bytes over its
// bandwidth, plus latency. Cost: O(residency + tier copies + links). Limits: the off-device home
// copies are assumed loaded from the model's files, not timed.
#pragma once

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/homes.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

// `loop_graph` is LoopGraph(model, plan.aliases); empty for a one-shot plan. `homes` are the
// homes the plan was made with (DecideHomes on `loop_graph`).
ColdStart ComputeColdStart(const Graph& loop_graph, const HardwareProfile& profile,
                           const ValueHomes& homes, const Plan& plan);

}  // namespace hyperplan
