// The `plan` command's CI gate: did the plan meet the budget and the overhead target?
//
// Exit 0 when it did, 6 (kInfeasible) when no plan fits the budget (or the device), 7
// (kGateFailed) when the slowdown over the no-offload makespan exceeds the overhead target.
// The overhead is a gate only when the user set it (--max-overhead): without it, the default
// 1% still guides the planner in no-budget mode but never fails the run, so a CI job fails
// only on a target it wrote down. Overhead is compared exactly in integers: missed iff
// (makespan - baseline) * 1e6 > ppm * baseline. `simulate` applies the same gate to a replay;
// `fit` passes a value on it. AddBudgetFlags adds the two flags the gate reads to plan and fit.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "hyperplan/error.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::cli {

// "1", "1%", "0.5%" (percent) -> parts per million; throws std::invalid_argument.
int64_t ParseOverheadPpm(const std::string& text);
// For --max-overhead's CLI11 validator: "" when ParseOverheadPpm accepts `text`, else why not.
std::string ValidateOverheadText(const std::string& text);

// Adds --budget SIZE and --max-overhead PCT (validated) for plan and fit, whose help says what
// each means to that command.
void AddBudgetFlags(CLI::App& command, std::string& budget, std::string& max_overhead,
                    const std::string& budget_help, const std::string& max_overhead_help);

// ceil((makespan - baseline) * 1e6 / baseline); 0 when baseline is 0 or the plan is faster.
int64_t OverheadPpm(int64_t makespan_ns, int64_t baseline_makespan_ns);

struct GateOutcome {
  bool passed = true;
  ErrorKind kind = ErrorKind::kInfeasible;  // when !passed
  std::string result = "ok";                // "ok", "over_budget", "over_overhead"
  std::string message;                      // when !passed: "<model>: ..."
  int64_t overhead_ppm = 0;
};

GateOutcome EvaluateGate(const std::string& model_path, const PlanResult& result,
                         int64_t max_overhead_ppm, bool overhead_is_target);

// The overhead part of the gate alone, for a makespan against its no-offload baseline;
// `subject` starts the message ("<model>: the plan", "<plan> on 'profile': the replay").
GateOutcome EvaluateOverhead(const std::string& subject, int64_t makespan_ns,
                             int64_t baseline_makespan_ns, int64_t max_overhead_ppm,
                             bool overhead_is_target);

}  // namespace hyperplan::cli
