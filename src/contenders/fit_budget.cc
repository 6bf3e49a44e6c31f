// Budget fitting by target lowering (see fit_budget.h).
#include "contenders/fit_budget.h"

#include <utility>

#include "planner/target_lowering.h"

namespace hyperplan::contenders {
namespace {

planner::TargetTry Measured(const EvaluatedPlan& planned, int64_t budget_bytes) {
  const Plan& plan = planned.plan;
  return {plan.layout.live_peak_bytes, plan.layout.arena_bytes,
          plan.layout.arena_bytes <= budget_bytes};
}

}  // namespace

EvaluatedPlan FitToBudget(int64_t budget_bytes,
                          const std::function<EvaluatedPlan(int64_t target_bytes)>& build) {
  EvaluatedPlan best = build(budget_bytes);
  // A try that fits has a smaller arena than every earlier one (none fit), so it is kept.
  planner::LowerTargetUntilFit(budget_bytes, Measured(best, budget_bytes), kFitRounds - 1,
                               /*min_target_bytes=*/0, [&](int64_t target_bytes) {
                                 EvaluatedPlan tried = build(target_bytes);
                                 const planner::TargetTry measured = Measured(tried, budget_bytes);
                                 if (tried.plan.layout.arena_bytes < best.plan.layout.arena_bytes) {
                                   best = std::move(tried);
                                 }
                                 return measured;
                               });
  return best;
}

}  // namespace hyperplan::contenders
