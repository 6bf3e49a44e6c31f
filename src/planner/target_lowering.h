// The budget loop, once: lowers a live-bytes target until the arena fits the budget. The
// planner's uniform retries (modes.cc) and the contenders' FitToBudget both run it.
//
// Policies decide against live bytes per step (what a runtime's allocator sees as in use), but
// the budget applies to the arena after layout, which fragmentation makes larger. Each retry
// takes the smaller of the target and the last try's live peak, less the last try's arena
// excess over the budget (at least one byte, so a try that did not help still lowers the
// target), and tries again. It stops when a try fits, after `max_retries` tries, or when the
// target would fall below `min_target_bytes`. Which try to keep is the caller's choice.
// Cost: at most `max_retries` tries; the loop itself is O(1) per try.
#pragma once

#include <cstdint>
#include <functional>

namespace hyperplan::planner {

// What the loop reads of a try.
struct TargetTry {
  int64_t live_peak_bytes = 0;
  int64_t arena_bytes = 0;
  bool fits = false;
};

// The target after `last`: min(target, live peak) - max(1, arena - budget).
int64_t LoweredTarget(int64_t target_bytes, const TargetTry& last, int64_t budget_bytes);

// Starts from `budget_bytes` as the target and `first` as the last try; `retry` runs the
// policy at a lowered target and says what came of it.
void LowerTargetUntilFit(int64_t budget_bytes, const TargetTry& first, int max_retries,
                         int64_t min_target_bytes,
                         const std::function<TargetTry(int64_t target_bytes)>& retry);

}  // namespace hyperplan::planner
