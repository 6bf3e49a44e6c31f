// Names of the plan's enums, as reports and the plan file spell them (see plan.h).
#include "hyperplan/plan/plan.h"

namespace hyperplan {

std::string_view StepKindName(StepKind kind) {
  switch (kind) {
    case StepKind::kCompute:
      return "compute";
    case StepKind::kPrefetch:
      return "prefetch";
    case StepKind::kStore:
      return "store";
    case StepKind::kDetach:
      return "detach";
  }
  return "?";
}

std::string_view DecisionReasonName(DecisionReason reason) {
  switch (reason) {
    case DecisionReason::kOffloaded:
      return "offloaded";
    case DecisionReason::kNotNeeded:
      return "not_needed";
    case DecisionReason::kPinnedByPolicy:
      return "pinned_by_policy";
    case DecisionReason::kUnknownSize:
      return "unknown_size";
    case DecisionReason::kNoIdleGap:
      return "no_idle_gap";
    case DecisionReason::kNoRoute:
      return "no_route";
    case DecisionReason::kTierFull:
      return "tier_full";
    case DecisionReason::kStallOverLimit:
      return "stall_over_limit";
    case DecisionReason::kStoreTooLate:
      return "store_too_late";
  }
  return "?";
}

}  // namespace hyperplan
