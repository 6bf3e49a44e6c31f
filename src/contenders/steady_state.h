// SteadyState: a contender's plan as one iteration of a loop, like the planner's.
//
// A policy decides which owned values start the run on the device. In a loop the iteration
// starts from what the previous one left, so a persistent value (loop.h) that starts resident
// must still be resident, in the same arena block, when the iteration ends. PlanBuilder closes
// the other direction (resident at the end without having started there: Detached after the
// last step). Here: the policy runs; every persistent value that started resident but left the
// device during the iteration starts off the device in the next run (fetched before first use,
// as a runtime must); repeat until none does. Each run only shrinks the starting set, so this
// ends; after kSteadyStateRounds the run that starts with no persistent value resident (always
// periodic) is returned. A one-shot context runs the policy once.
// Cost: at most kSteadyStateRounds + 1 policy runs, usually two, and one layout and replay.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "contenders/context.h"
#include "contenders/plan_builder.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::contenders {

inline constexpr int kSteadyStateRounds = 4;

// `build(start_off)`: the policy's plan, drafted (plan_builder.h), when every value v with
// start_off[v] set (by ValueId) starts the iteration off the device. Only the draft returned
// is laid out and replayed: the rounds that run again cost no layout.
EvaluatedPlan SteadyState(
    const ContenderContext& context,
    const std::function<PlanDraft(const std::vector<uint8_t>& start_off)>& build);
// The same, left a draft: for searches that can rule a plan out by its live peak alone.
PlanDraft SteadyStateDraft(
    const ContenderContext& context,
    const std::function<PlanDraft(const std::vector<uint8_t>& start_off)>& build);

// Persistent values resident at the plan's start whose residency ends before the last step.
std::vector<ValueId> StartsNotKept(const ContenderContext& context, const Plan& plan);

}  // namespace hyperplan::contenders
