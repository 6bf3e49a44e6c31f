// Goal verdicts (see goals.h).
#include "goals.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace hyperplan::bench {
namespace {

std::string G1(const GoalInputs& in) {
  double worst = std::numeric_limits<double>::infinity();
  std::string where;
  int reactive_failed = 0;
  int compared = 0;
  for (const BudgetRow& row : in.budgets) {
    if (!row.hyperplan_fits) continue;
    if (!row.reactive_fits) {
      ++reactive_failed;
      continue;
    }
    ++compared;
    const double speedup = static_cast<double>(row.reactive_makespan_ns) /
                           static_cast<double>(std::max<int64_t>(1, row.hyperplan_makespan_ns));
    if (speedup < worst) {
      worst = speedup;
      where = row.budget_label;
    }
  }
  if (compared == 0 && reactive_failed == 0) {
    for (const BudgetRow& row : in.budgets) {
      if (row.reactive_fits) {
        return "missed: hyperplan fits no budget, reactive fits at " + row.budget_label;
      }
    }
    return "n/a: neither fits any budget";
  }
  if (compared == 0) {
    return fmt::format("met: reactive does not fit ({} budgets where hyperplan does)",
                       reactive_failed);
  }
  return fmt::format("{}: {:.2f}x at {}{}", worst >= 2.0 ? "met" : "missed", worst, where,
                     reactive_failed > 0
                         ? fmt::format(" (+{} budgets reactive cannot fit)", reactive_failed)
                         : std::string());
}

std::string G2(const GoalInputs& in) {
  double worst = 0;
  std::string where;
  for (const BudgetRow& row : in.budgets) {
    if (!row.hyperplan_fits || !row.bound_is_compute) continue;
    const double ratio = static_cast<double>(row.hyperplan_makespan_ns) /
                         static_cast<double>(std::max<int64_t>(1, row.bound_makespan_ns));
    if (ratio > worst) {
      worst = ratio;
      where = row.budget_label;
    }
  }
  if (where.empty()) return "n/a: no budget where the links can hide the traffic";
  return fmt::format("{}: {:.3f}x the bound at {}", worst <= 1.10 ? "met" : "missed", worst, where);
}

std::string G3(const GoalInputs& in) {
  if (!in.g3_profile) return "n/a (not a G3 profile)";
  if (!in.overhead_mode_ok || in.reference_arena_bytes <= 0) return "missed: no plan";
  if (!in.overhead_mode_fits) return "missed: no plan fits the device";
  const double cut = 100.0 * (1.0 - static_cast<double>(in.overhead_mode_arena_bytes) /
                                        static_cast<double>(in.reference_arena_bytes));
  const bool met = cut >= 26.0 && in.overhead_mode_percent < 1.0;
  return fmt::format("{}: arena -{:.1f}% at {:+.2f}% overhead{}", met ? "met" : "missed", cut,
                     in.overhead_mode_percent,
                     in.reference_fits ? "" : " (without offloading it does not fit the device)");
}

}  // namespace

GoalVerdicts EvaluateGoals(const GoalInputs& inputs) {
  return {G1(inputs), G2(inputs), G3(inputs)};
}

}  // namespace hyperplan::bench
