// Why no plan fits: the message and figures PlanOffload returns with an infeasible plan.
//
// The root cause first. When a tier off the device holds more home copies than its capacity
// (homes.h keeps what no tier has room for in its preferred tier), those bytes can only be on
// the device, and no budget below them fits: the message names the tier, its capacity, what
// the copies are (by class) and the remedy. When the arena fits but a tier's buffer (its
// copies laid out, plan_layout.h) is over the tier's capacity, it names that tier. Otherwise it
// names the step of the best round that could not go lower: its node's own working set and the
// bytes that could not leave then, or, when live bytes fit but the layout does not, the arena
// after layout.
// Cost: O(values + residency intervals + tier buffers + the blocking node's inputs and
// outputs).
#pragma once

#include <cstdint>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/homes.h"
#include "hyperplan/planner/planner.h"
#include "planner/modes.h"

namespace hyperplan::planner {

// `graph` and `homes` are what `outcome` was planned on (the loop graph of a periodic plan).
Infeasibility ExplainInfeasible(const Graph& graph, const HardwareProfile& profile,
                                const ValueHomes& homes, const Outcome& outcome,
                                int64_t budget_bytes);

}  // namespace hyperplan::planner
