// Budget menu (see budgets.h).
#include "budgets.h"

#include <fmt/format.h>

#include "format.h"

namespace hyperplan::bench {

std::vector<Budget> StandardBudgets(int64_t reference_peak_bytes, int64_t reference_arena_bytes,
                                    int64_t capacity_bytes) {
  std::vector<Budget> budgets;
  if (capacity_bytes > 0 && reference_arena_bytes > capacity_bytes) {
    budgets.push_back({fmt::format("device {}", Gigabytes(capacity_bytes)), capacity_bytes});
  }
  for (int percent : {90, 74, 50}) {
    const int64_t bytes = reference_peak_bytes * percent / 100;
    if (capacity_bytes > 0 && bytes > capacity_bytes) continue;
    budgets.push_back({fmt::format("{}% = {}", percent, Gigabytes(bytes)), bytes});
  }
  return budgets;
}

}  // namespace hyperplan::bench
