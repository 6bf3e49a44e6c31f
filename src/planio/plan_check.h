// CheckLoadedPlan: re-checks a plan read from a file (made elsewhere, or edited by hand).
//
// Three passes, the first failure reported:
// 1. docs/design.md's invariants 1-6 and 8 (the planner's VerifyPlan, which replays the plan
//    itself and reads only the recorded evaluation's claims: its fit and its summary's peak),
//    so that a broken rule is reported as that rule ("a consumer starts before its Prefetch
//    completes") rather than as "recorded times differ";
// 2. CheckExplicitWaits: every dependency is a wait, not a lucky timing;
// 3. the recorded evaluation (each step's start and end, makespan, stall, peaks, bytes per
//    link) against a replay of the plan: a file whose recorded evaluation is not its plan's
//    replay is reported.
// Cost: one replay plus VerifyPlan plus the wait check.
#pragma once

#include <cstdint>
#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::planio {

struct LoadedPlanCheck {
  bool ok = true;
  std::string message;      // the failure, "invariant N: step S (...): ..." or "step S (...): ..."
  SimulationResult replay;  // the replay the checks ran against
};

// `from_file`: the plan read from the file; `recorded`: the evaluation the file states
// (PlanFromProto reads both).
LoadedPlanCheck CheckLoadedPlan(const Graph& graph, const HardwareProfile& profile,
                                const Plan& from_file, const PlanEvaluation& recorded);

}  // namespace hyperplan::planio
