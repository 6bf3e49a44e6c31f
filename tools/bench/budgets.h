// The budgets a workload is compared at: the device capacity when the no-offload arena does
// not fit it, and 90%, 74% and 50% of the no-offload live peak when within the capacity (74%
// is the HyperOffload paper's "26% lower peak").
// Cost: constant. Limits: a fixed menu, not a sweep.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hyperplan::bench {

struct Budget {
  std::string label;  // "device 80 GB", "74% = 12.0 GB"
  int64_t bytes = 0;
};

std::vector<Budget> StandardBudgets(int64_t reference_peak_bytes, int64_t reference_arena_bytes,
                                    int64_t capacity_bytes);

}  // namespace hyperplan::bench
