// Budget fitting by target lowering (see fit_budget.h).
#include "contenders/fit_budget.h"

#include <algorithm>

namespace hyperplan::contenders {

Plan FitToBudget(int64_t budget_bytes, const std::function<Plan(int64_t target_bytes)>& build) {
  int64_t target = budget_bytes;
  Plan best = build(target);
  Plan last_tried;
  const Plan* last = &best;
  for (int round = 1; round < kFitRounds && best.layout.arena_bytes > budget_bytes; ++round) {
    // Lower by the excess of the last try; a try that did not help still lowers the target.
    target = std::min(target, last->layout.live_peak_bytes) -
             std::max<int64_t>(1, last->layout.arena_bytes - budget_bytes);
    if (target < 0) break;
    last_tried = build(target);
    last = &last_tried;
    if (last_tried.layout.arena_bytes < best.layout.arena_bytes) {
      best = std::move(last_tried);
      last = &best;
    }
  }
  return best;
}

}  // namespace hyperplan::contenders
