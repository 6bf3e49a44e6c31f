// The `plan` command's CI gate: did the plan meet the budget and the overhead target?
//
// Exit 0 when it did, 6 (kInfeasible) when no plan fits the budget (or the device), 7
// (kGateFailed) when the slowdown over the no-offload makespan exceeds the overhead target.
// The overhead is a target when --max-overhead is given, or in no-budget mode (where it is
// what the planner aims for); with only --budget, a slower plan that fits passes. Overhead
// is compared exactly in integers: missed iff (makespan - baseline) * 1e6 > ppm * baseline.
#pragma once

#include <cstdint>
#include <string>

#include "hyperplan/error.h"
#include "hyperplan/planner/planner.h"
#include "schemas/plan.pb.h"

namespace hyperplan::cli {

// "1", "1%", "0.5%" (percent) -> parts per million; throws std::invalid_argument.
int64_t ParseOverheadPpm(const std::string& text);

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

// The one-line summary --summary-json prints (schemas/plan.proto RunSummary).
plan::v1::RunSummary BuildRunSummary(const plan::v1::Plan& plan, const GateOutcome& gate,
                                     const std::string& plan_sha256, const std::string& plan_file,
                                     const std::string& onnx_file);

}  // namespace hyperplan::cli
