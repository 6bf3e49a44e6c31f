// The budget loop (see target_lowering.h).
#include "planner/target_lowering.h"

#include <algorithm>

namespace hyperplan::planner {

int64_t LoweredTarget(int64_t target_bytes, const TargetTry& last, int64_t budget_bytes) {
  return std::min(target_bytes, last.live_peak_bytes) -
         std::max<int64_t>(1, last.arena_bytes - budget_bytes);
}

void LowerTargetUntilFit(int64_t budget_bytes, const TargetTry& first, int max_retries,
                         int64_t min_target_bytes,
                         const std::function<TargetTry(int64_t target_bytes)>& retry) {
  int64_t target_bytes = budget_bytes;
  TargetTry last = first;
  for (int tries = 0; tries < max_retries && !last.fits; ++tries) {
    target_bytes = LoweredTarget(target_bytes, last, budget_bytes);
    if (target_bytes < min_target_bytes) break;
    last = retry(target_bytes);
  }
}

void TargetBracket::Record(int64_t target_bytes, bool fits) {
  if (fits) {
    fit_bytes = std::max(fit_bytes, target_bytes);
  } else if (target_bytes > fit_bytes) {
    miss_bytes = std::min(miss_bytes, target_bytes);
  }
}

void RaiseTargetWhileFits(TargetBracket bracket, int max_probes, int64_t min_gap_bytes,
                          const std::function<bool(int64_t target_bytes)>& probe) {
  for (int probes = 0;
       probes < max_probes && bracket.fit_bytes >= 0 && bracket.miss_bytes != kNoMiss &&
       bracket.miss_bytes - bracket.fit_bytes > std::max<int64_t>(1, min_gap_bytes);
       ++probes) {
    const int64_t target_bytes = bracket.fit_bytes + (bracket.miss_bytes - bracket.fit_bytes) / 2;
    bracket.Record(target_bytes, probe(target_bytes));
  }
}

}  // namespace hyperplan::planner
