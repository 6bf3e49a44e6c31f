// Evaluation: what replaying a plan gives, computed by one function from the plan's decisions.
//
// A plan is decisions (order, steps on streams, residency, tier copies, offsets); its
// evaluation is derived from them: the simulated timeline (simulate.h), whether the arena and
// the tier buffers fit the budget and the capacities, and the summary (summary.h) against the
// no-offload reference (the model's order with nothing offloaded, which the plan cannot know).
// EvaluatePlan computes the three together, so every reader of a plan's numbers reads one
// replay. FinishPlan is the one tail every plan goes through, the planner's (planner/
// assemble.cc) and every contender's (contenders/plan_builder.cc): lay out the arena and the
// tier buffers, then evaluate.
// Cost: one Simulate (O(steps + waits + residencies log residencies)) plus O(steps +
// decisions log decisions) for the summary; FinishPlan adds the layout (layout/plan_layout.h).
// Limits: the evaluation is never stored in the plan: FinishPlan returns the two side by side
// (EvaluatedPlan). The cold start is computed by the caller, which holds the values' homes
// (plan/cold_start.h), and set in the evaluation.
#pragma once

#include <cstdint>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/layout/layout.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

// The model's order with nothing offloaded: what a summary compares a plan against.
struct NoOffloadReference {
  int64_t peak_bytes = 0;   // live bytes
  int64_t arena_bytes = 0;  // its arena
};

struct PlanEvaluation {
  SimulationResult timeline;
  // The arena within the plan's budget (if any) and the device capacity, and every tier
  // buffer within its tier's capacity.
  bool fits = true;
  PlanSummary summary;
  // Periodic plans only: what must be in place before the first iteration. Derived from the
  // plan and the values' homes, which EvaluatePlan does not hold: the caller sets it.
  ColdStart cold_start;
};

// A plan and its evaluation, side by side: what the planner and every contender return and the
// portfolio, the CLI, the report, the bench and the plan file carry. Readers of the numbers
// take `evaluation`; `plan` holds only decisions.
struct EvaluatedPlan {
  Plan plan;
  PlanEvaluation evaluation;
};

// `plan` laid out (layout/plan_layout.h).
PlanEvaluation EvaluatePlan(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                            const NoOffloadReference& reference);

// Lays `plan` out with `layout` and evaluates it: the plan and its evaluation, side by side
// (the cold start left empty for the caller).
EvaluatedPlan FinishPlan(const Graph& graph, const HardwareProfile& profile,
                         const LayoutOptions& layout, const NoOffloadReference& reference,
                         Plan plan);

}  // namespace hyperplan
