// Steady-state runs of a contender (see steady_state.h).
#include "contenders/steady_state.h"

#include <utility>

namespace hyperplan::contenders {

std::vector<ValueId> StartsNotKept(const ContenderContext& context, const Plan& plan) {
  std::vector<ValueId> left;
  for (const ResidentInterval& interval : plan.residency) {
    if (interval.value == kNoValue || interval.opened_by >= 0 || interval.closed_by < 0) continue;
    if (context.persistent[interval.value]) left.push_back(interval.value);
  }
  return left;
}

PlanDraft SteadyStateDraft(
    const ContenderContext& context,
    const std::function<PlanDraft(const std::vector<uint8_t>& start_off)>& build) {
  std::vector<uint8_t> start_off(context.graph->values.size(), 0);
  if (!context.periodic) return build(start_off);
  for (int round = 0; round < kSteadyStateRounds; ++round) {
    PlanDraft draft = build(start_off);
    const std::vector<ValueId> left = StartsNotKept(context, draft.plan);
    if (left.empty()) return draft;
    for (ValueId value : left) start_off[value] = 1;
  }
  for (size_t id = 0; id < start_off.size(); ++id) start_off[id] |= context.persistent[id];
  return build(start_off);
}

EvaluatedPlan SteadyState(
    const ContenderContext& context,
    const std::function<PlanDraft(const std::vector<uint8_t>& start_off)>& build) {
  return CompletePlan(context, SteadyStateDraft(context, build));
}

}  // namespace hyperplan::contenders
