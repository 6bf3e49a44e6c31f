// The budget loop, once: lowers a live-bytes target until the arena fits the budget. The
// planner's uniform retries (modes.cc) and the contenders' FitToBudget both run it.
//
// Policies decide against live bytes per step (what a runtime's allocator sees as in use), but
// the budget applies to the arena after layout, which fragmentation makes larger. Each retry
// takes the smaller of the target and the last try's live peak, less the last try's arena
// excess over the budget (at least one byte, so a try that did not help still lowers the
// target), and tries again. It stops when a try fits, after `max_retries` tries, or when the
// target would fall below `min_target_bytes`. Which try to keep is the caller's choice.
// The planner then raises the target again (RaiseTargetWhileFits): the first try that fits
// was lowered by a whole overshoot, but fragmentation is not the same at every target, so a
// target between it and the lowest one that missed may fit too and hold more on the device
// (the Llama-3-8B training step on rtx-4090-xeon-2s: round 0 at 22.3 GiB live missed by 2.9
// GiB of arena, the retry at 19.5 GiB fit with 0.7 GiB of the budget unused). It bisects:
// each probe at the midpoint of the bracket [highest that fit, lowest that missed), which the
// probe's result narrows, until `max_probes` probes or the bracket is `min_gap_bytes` wide.
// Fitting is not monotone in the target (layout is a heuristic), so the bisection finds a
// target that fits, not the highest; the caller keeps the best try of all.
// Cost: at most `max_retries` tries, then at most `max_probes`; O(1) per try besides.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>

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

// TargetBracket::miss_bytes when no try above the fit missed.
inline constexpr int64_t kNoMiss = std::numeric_limits<int64_t>::max();

// What the tries so far say of the targets: the highest that fit, the lowest above it that
// missed.
struct TargetBracket {
  int64_t fit_bytes = -1;        // -1: none fit yet
  int64_t miss_bytes = kNoMiss;  // a miss at or under fit_bytes is not recorded

  // Widens what is known with a try at `target_bytes`.
  void Record(int64_t target_bytes, bool fits);
};

// Probes the midpoint of `bracket` while one fit, a miss lies above it, the bracket is wider
// than `min_gap_bytes` and fewer than `max_probes` probes ran; `probe` runs the policy at a
// target and says whether it fit.
void RaiseTargetWhileFits(TargetBracket bracket, int max_probes, int64_t min_gap_bytes,
                          const std::function<bool(int64_t target_bytes)>& probe);

}  // namespace hyperplan::planner
