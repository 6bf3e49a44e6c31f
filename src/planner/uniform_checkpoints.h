// The refine states the budget rounds' uniform retries resume from (modes.cc UniformRetries).
//
// A refine with one target T for every step is the same rounds whatever T is, stopped at the
// first whose live peak is at most T (refine.h ResumeRefineLowered): a state recorded where a
// refine met T serves every target at or below T, and the nearest one, the lowest recorded
// target at or above the new one, leaves the fewest rounds to place. The retries lower the
// target until one fits and then probe between the highest that fit and the lowest that missed
// (target_lowering.h TargetBracket), so a state recorded at or below the highest fit, or above
// the lowest miss, serves no later try and is dropped (each holds a refiner's copy: O(n + p)).
// Cost: O(k) per call for the k states held (at most the tries, nine).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "planner/refine.h"
#include "planner/target_lowering.h"

namespace hyperplan::planner {

class UniformCheckpoints {
 public:
  // Records the state a refine at `target_bytes` met its target in; a second one at the same
  // target replaces nothing (it is the same state).
  void Add(int64_t target_bytes, RefineCheckpoint checkpoint) {
    if (Holds(target_bytes)) return;
    held_.emplace_back(target_bytes, std::move(checkpoint));
  }

  // The state recorded at the lowest target at or above `target_bytes`; null when none is.
  const RefineCheckpoint* From(int64_t target_bytes) const {
    const std::pair<int64_t, RefineCheckpoint>* nearest = nullptr;
    for (const auto& held : held_) {
      if (held.first >= target_bytes && (nearest == nullptr || held.first < nearest->first)) {
        nearest = &held;
      }
    }
    return nearest == nullptr ? nullptr : &nearest->second;
  }

  // Drops the states no try inside `bracket` resumes from: those at or below its fit, and those
  // above its miss (the miss's own serves the tries below it).
  void KeepWithin(const TargetBracket& bracket) {
    std::erase_if(held_, [&](const auto& held) {
      return held.first <= bracket.fit_bytes ||
             (bracket.miss_bytes != kNoMiss && held.first > bracket.miss_bytes);
    });
  }

  size_t size() const { return held_.size(); }

 private:
  bool Holds(int64_t target_bytes) const {
    return std::any_of(held_.begin(), held_.end(),
                       [&](const auto& held) { return held.first == target_bytes; });
  }

  std::vector<std::pair<int64_t, RefineCheckpoint>> held_;
};

}  // namespace hyperplan::planner
