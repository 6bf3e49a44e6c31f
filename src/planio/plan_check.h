// CheckLoadedPlan: re-checks a plan read from a file (made elsewhere, or edited by hand).
//
// Three passes, the first failure reported:
// 1. docs/design.md's invariants 1-6 (the planner's VerifyPlan) on the plan with its timeline
//    replaced by a replay of its steps, so that a broken rule is reported as that rule ("a
//    consumer starts before its Prefetch completes") rather than as "stored times differ";
// 2. CheckExplicitWaits: every dependency is a wait, not a lucky timing;
// 3. the file's predictions (each step's start and end, makespan, stall, peaks, bytes per
//    link) against that replay.
// Cost: one replay plus VerifyPlan plus the wait check.
#pragma once

#include <cstdint>
#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::planio {

struct LoadedPlanCheck {
  bool ok = true;
  std::string message;      // the failure, "invariant N: step S (...): ..." or "step S (...): ..."
  SimulationResult replay;  // the replay the checks ran against
};

LoadedPlanCheck CheckLoadedPlan(const Graph& graph, const HardwareProfile& profile,
                                const Plan& from_file);

}  // namespace hyperplan::planio
