// Plan summary: the numbers a user reads first, and their text form for the CLI.
//
// SummarizePlan derives the totals from a plan's steps, layout and simulated timeline (peak
// and makespan with and without offloading, bytes per link, cache ops per kind, stall).
// FormatPlanSummary prints them, where each layer's weights spend the iteration
// (layer_summary.h), what bounds the iteration (bottleneck.h), the top decisions (largest freed
// bytes x time first) and a count of rejections per reason. Cost: O(steps + decisions log
// decisions).
#pragma once

#include <cstdint>
#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

// `timeline` is the plan's replay (Simulate); `baseline_peak_bytes` and `baseline_arena_bytes`
// describe the model order with nothing offloaded; the rest comes from the plan. EvaluatePlan
// (evaluation.h) is the one caller.
PlanSummary SummarizePlan(const HardwareProfile& profile, const Plan& plan,
                          const SimulationResult& timeline, int64_t baseline_peak_bytes,
                          int64_t baseline_arena_bytes);

// The plan's summary for people: its decisions (`plan`) and its numbers (`evaluation`).
std::string FormatPlanSummary(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                              const PlanEvaluation& evaluation, int top_decisions = 10);

}  // namespace hyperplan
