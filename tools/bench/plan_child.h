// `hyperplan-bench plan-once`: a planning-only child process for the scale tables. It loads a
// profile, imports a model, and runs PlanOffload at the requested budgets, printing one JSON
// line per plan with the import and planning times measured inside it; the parent measures
// its wall time and peak RSS (process_stats.h). Keeping it a child keeps every RSS figure the
// planner's own.
// Cost: one import plus one plan per budget. Limits: no plan file is written.
#pragma once

#include <string>
#include <vector>

namespace hyperplan::bench {

struct PlanOnceOptions {
  std::string model_path;
  std::string profile_path;
  std::vector<std::string> dims;     // name=value
  std::vector<int> budget_percents;  // of the no-offload live peak
  bool standard_budgets = false;     // budgets.h's menu
};

// Prints the JSON lines; returns 0, or 1 after printing the error.
int RunPlanOnce(const PlanOnceOptions& options);

}  // namespace hyperplan::bench
