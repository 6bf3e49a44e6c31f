// Residency rules every contender shares: which values the run starts with on the device, and
// when a value produced by the run is dead.
//
// Owned values (weights, graph inputs, state fed in) exist before step 0; a policy says which
// of them start on the device. A produced value that is no graph output dies after its last
// use (or after its producer when nothing reads it), exactly as in the lifetimes baseline; a
// runtime frees it then whatever its policy, so every contender frees it the same way.
// Cost: O(values) to open, O(outputs and inputs of step k) per release.
#pragma once

#include <functional>

#include "contenders/context.h"
#include "contenders/plan_builder.h"

namespace hyperplan::contenders {

// Opens, at the run's start, every sized owned value for which `starts_resident` holds.
void OpenOwnedAtStart(const ContenderContext& context, PlanBuilder& builder,
                      const std::function<bool(ValueId)>& starts_resident);

// Fetches, at boundary `k`, every sized input of step `k` that is not on the device (a
// persistent value the iteration started without): a runtime must bring it before the node.
void FetchMissingInputs(const ContenderContext& context, PlanBuilder& builder, Step k);

// Whether `value` is produced by the run, is no graph output and dies after step `k`.
bool DiesAfter(const ContenderContext& context, ValueId value, Step k);

// Closes, after compute step `k`, every resident value that dies there (`k`'s own inputs and
// outputs are the only candidates).
void ReleaseAfterLastUse(const ContenderContext& context, PlanBuilder& builder, Step k);

// Compute step `k` as the streaming contenders run it: its missing inputs fetched
// (FetchMissingInputs), the node run, what dies there released (ReleaseAfterLastUse).
void RunComputeStep(const ContenderContext& context, PlanBuilder& builder, Step k);

}  // namespace hyperplan::contenders
