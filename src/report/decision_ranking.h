// Decision ranking: which of a plan's decisions the report lists first.
//
// Offloaded gaps rank by the simulated stall they cause (report/stall_attribution.h: the
// compute stalls whose binding wait is one of the decision's transfers), so a prefetch that
// holds compute back comes before any "drop after last use" that costs nothing; then by bytes
// x freed steps (the device memory they give back, as the CLI summary ranks them); ties by
// value id then gap. Candidates left on the device rank by bytes,
// ties by value id then gap. Rejections are also counted per reason.
// Cost: O(d log d) for d decisions.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "hyperplan/plan/plan.h"

namespace hyperplan::report {

// Indices into Plan::decisions, at most `limit`.
// `stall_ns_per_decision` by Plan::decisions index (StallAttribution); shorter: no stall.
std::vector<int32_t> BiggestOffloads(const Plan& plan,
                                     const std::vector<int64_t>& stall_ns_per_decision,
                                     size_t limit);
std::vector<int32_t> BiggestRejections(const Plan& plan, size_t limit);

// Decisions per reason, indexed by DecisionReason.
std::array<int64_t, kDecisionReasonCount> CountByReason(const Plan& plan);

}  // namespace hyperplan::report
