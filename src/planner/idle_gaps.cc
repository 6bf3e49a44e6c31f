// A value's idle gaps (see idle_gaps.h).
#include "hyperplan/planner/idle_gaps.h"

namespace hyperplan {

std::vector<Step> RequiredSteps(const Value& value, const Lifetime& lifetime) {
  std::vector<Step> required;
  if (value.producer != kNoNode) required.push_back(lifetime.def_step);
  for (Step use : lifetime.use_steps) {
    if (required.empty() || required.back() != use) required.push_back(use);
  }
  return required;
}

std::vector<IdleGap> IdleGaps(const std::vector<Step>& required, Step step_count) {
  if (required.empty()) return {{GapKind::kWholeRun, -1, step_count}};
  std::vector<IdleGap> gaps;
  gaps.reserve(required.size() + 1);
  gaps.push_back({GapKind::kLeading, -1, required.front()});
  for (size_t i = 0; i + 1 < required.size(); ++i) {
    gaps.push_back({GapKind::kInner, required[i], required[i + 1]});
  }
  gaps.push_back({GapKind::kTrailing, required.back(), step_count});
  return gaps;
}

}  // namespace hyperplan
