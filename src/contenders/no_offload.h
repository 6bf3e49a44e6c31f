// No offloading: the model's order, every value resident from its producer (or the run's
// start) to its last use (or the run's end for weights, inputs and outputs), no cache ops.
// The peak every offloading scheme is measured against and the makespan it should keep;
// equal to PlanOffload with offloading off (docs/design.md invariant 6), built independently.
// Cost: O(nodes + values + uses) plus layout and one simulation.
#pragma once

#include "contenders/context.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::contenders {

EvaluatedPlan NoOffloadPlan(const ContenderContext& context);

}  // namespace hyperplan::contenders
