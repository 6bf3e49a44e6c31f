// Decision ranking (see decision_ranking.h).
#include "report/decision_ranking.h"

#include <algorithm>
#include <tuple>

namespace hyperplan::report {
namespace {

__extension__ using Int128 = __int128;

Int128 FreedByteSteps(const Decision& d) {
  const int64_t steps = d.freed_last_step >= d.freed_first_step && d.freed_first_step >= 0
                            ? int64_t{d.freed_last_step} - d.freed_first_step + 1
                            : 0;
  return static_cast<Int128>(d.bytes) * steps;
}

template <typename Weight>
std::vector<int32_t> Rank(const Plan& plan, bool offloaded, size_t limit, Weight weight,
                          const std::vector<int64_t>& stall_ns_per_decision = {}) {
  auto stall = [&](int32_t index) {
    return static_cast<size_t>(index) < stall_ns_per_decision.size() ? stall_ns_per_decision[index]
                                                                     : int64_t{0};
  };
  std::vector<int32_t> picked;
  for (size_t i = 0; i < plan.decisions.size(); ++i) {
    const bool taken = plan.decisions[i].reason == DecisionReason::kOffloaded;
    if (taken == offloaded) picked.push_back(static_cast<int32_t>(i));
  }
  auto before = [&](int32_t a, int32_t b) {
    const Decision& x = plan.decisions[a];
    const Decision& y = plan.decisions[b];
    if (stall(a) != stall(b)) return stall(a) > stall(b);
    if (weight(x) != weight(y)) return weight(x) > weight(y);
    return std::tie(x.value, x.gap_after_step, a) < std::tie(y.value, y.gap_after_step, b);
  };
  const size_t shown = std::min(limit, picked.size());
  std::partial_sort(picked.begin(), picked.begin() + static_cast<ptrdiff_t>(shown), picked.end(),
                    before);
  picked.resize(shown);
  return picked;
}

}  // namespace

std::vector<int32_t> BiggestOffloads(const Plan& plan,
                                     const std::vector<int64_t>& stall_ns_per_decision,
                                     size_t limit) {
  return Rank(plan, true, limit, FreedByteSteps, stall_ns_per_decision);
}

std::vector<int32_t> BiggestRejections(const Plan& plan, size_t limit) {
  return Rank(plan, false, limit, [](const Decision& d) { return static_cast<Int128>(d.bytes); });
}

std::array<int64_t, kDecisionReasonCount> CountByReason(const Plan& plan) {
  std::array<int64_t, kDecisionReasonCount> counts{};
  for (const Decision& decision : plan.decisions) {
    const auto reason = static_cast<size_t>(decision.reason);
    if (reason < counts.size()) ++counts[reason];
  }
  return counts;
}

}  // namespace hyperplan::report
