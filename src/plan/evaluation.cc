// A plan's evaluation and the one tail every plan goes through (see evaluation.h).
#include "hyperplan/plan/evaluation.h"

#include <utility>

#include "hyperplan/layout/plan_layout.h"
#include "hyperplan/plan/simulate.h"
#include "hyperplan/plan/summary.h"

namespace hyperplan {

PlanEvaluation EvaluatePlan(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                            const NoOffloadReference& reference) {
  PlanEvaluation evaluation;
  evaluation.timeline = Simulate(graph, profile, plan);
  const int64_t capacity_bytes = profile.tiers[profile.device_tier].capacity_bytes;
  const int64_t arena_bytes = plan.layout.arena_bytes;
  evaluation.fits = (!plan.budget_bytes || arena_bytes <= *plan.budget_bytes) &&
                    (capacity_bytes <= 0 || arena_bytes <= capacity_bytes) &&
                    TierBuffersFit(profile, plan);
  evaluation.summary = SummarizePlan(profile, plan, evaluation.timeline, reference.peak_bytes,
                                     reference.arena_bytes);
  return evaluation;
}

EvaluatedPlan FinishPlan(const Graph& graph, const HardwareProfile& profile,
                         const LayoutOptions& layout, const NoOffloadReference& reference,
                         Plan plan) {
  LayOutPlan(profile, layout, plan);
  PlanEvaluation evaluation = EvaluatePlan(graph, profile, plan, reference);
  return EvaluatedPlan{std::move(plan), std::move(evaluation)};
}

}  // namespace hyperplan
