// The comparison's goals, evaluated from its rows: each met, missed or not applicable, with
// the numbers behind the verdict.
//   G1: hyperplan at least 2x faster than reactive offloading at equal budget (the smallest
//       speedup over the budgets where both fit; reactive failing where hyperplan fits counts
//       as met).
//   G2: within 10% of the makespan lower bound where the links can hide the traffic (budgets
//       whose bound is compute alone and where hyperplan fits; the worst ratio).
//   G3: on the supernode and GH200 profiles, an arena at least 26% below no offloading at
//       under 1% overhead (hyperplan's no-budget mode).
// Cost: O(rows). Limits: the lower bound is a bound, not the optimum, so a G2 miss may be the
// bound's slack as much as the plan's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hyperplan::bench {

struct BudgetRow {
  std::string budget_label;
  bool hyperplan_fits = false;
  bool reactive_fits = false;
  int64_t hyperplan_makespan_ns = 0;
  int64_t reactive_makespan_ns = 0;
  int64_t bound_makespan_ns = 0;
  bool bound_is_compute = false;  // the links could hide the forced traffic
};

struct GoalInputs {
  std::string workload;
  std::string profile;
  bool g3_profile = false;  // supernode or GH200
  std::vector<BudgetRow> budgets;
  // Hyperplan's no-budget mode against no offloading.
  bool overhead_mode_ok = false;
  bool overhead_mode_fits = false;
  int64_t reference_arena_bytes = 0;
  bool reference_fits = true;  // no offloading fits the device
  int64_t overhead_mode_arena_bytes = 0;
  double overhead_mode_percent = 0;
};

struct GoalVerdicts {
  std::string g1, g2, g3;  // "met: ...", "missed: ...", "n/a: ..."
};

GoalVerdicts EvaluateGoals(const GoalInputs& inputs);

}  // namespace hyperplan::bench
