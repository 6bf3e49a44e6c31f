// Decision ranking: which of a plan's decisions the report lists first.
//
// Offloaded gaps rank by bytes x freed steps (the device memory they give back, as the CLI
// summary ranks them), ties by value id then gap. Candidates left on the device rank by bytes,
// ties by value id then gap. Rejections are also counted per reason.
// Cost: O(d log d) for d decisions.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "hyperplan/planner/plan.h"

namespace hyperplan::report {

// Indices into Plan::decisions, at most `limit`.
std::vector<int32_t> BiggestOffloads(const Plan& plan, size_t limit);
std::vector<int32_t> BiggestRejections(const Plan& plan, size_t limit);

// Decisions per reason, indexed by DecisionReason.
std::array<int64_t, kDecisionReasonCount> CountByReason(const Plan& plan);

}  // namespace hyperplan::report
