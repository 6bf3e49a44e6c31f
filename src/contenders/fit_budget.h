// FitToBudget: runs a policy that targets live bytes until its arena fits a budget.
//
// Policies decide against live bytes per step (what a runtime's allocator sees as in use), but
// the budget applies to the arena after layout, which fragmentation makes larger. As the
// planner does (the same loop, planner/target_lowering.h), the target drops by the arena's
// excess over the budget and the policy runs again, a few rounds, each lowered by the excess of
// the try before; the first plan that fits is returned, else the one with the smallest arena
// (which says it does not fit).
// Cost: at most kFitRounds policy runs.
#pragma once

#include <cstdint>
#include <functional>

#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::contenders {

inline constexpr int kFitRounds = 5;

EvaluatedPlan FitToBudget(int64_t budget_bytes,
                          const std::function<EvaluatedPlan(int64_t target_bytes)>& build);

}  // namespace hyperplan::contenders
