// The stream numbering, and names of the plan's enums as reports and the plan file spell them
// (see plan.h): one table per enum, indexed by the enumerator (the way graph.cc names
// ValueClass), and operator<< printing the name.
#include "hyperplan/plan/plan.h"

#include <algorithm>
#include <array>
#include <ostream>

namespace hyperplan {
namespace {

constexpr std::array<std::string_view, kStepKindCount> kStepKindNames = {"compute", "prefetch",
                                                                         "store", "detach"};

constexpr std::array<std::string_view, kDecisionReasonCount> kDecisionReasonNames = {
    "offloaded", "not_needed", "pinned_by_policy", "unknown_size",  "no_idle_gap",
    "no_route",  "tier_full",  "stall_over_limit", "store_too_late"};

// The name at the enumerator's index, "?" for a value outside the enum (a corrupt byte).
template <size_t N>
std::string_view NameAt(const std::array<std::string_view, N>& names, size_t index) {
  return index < N ? names[index] : "?";
}

}  // namespace

StreamNumbering::StreamNumbering(const HardwareProfile& profile)
    : first_(profile.links.size()), channels_(profile.links.size()) {
  for (size_t l = 0; l < profile.links.size(); ++l) {
    first_[l] = count_;
    channels_[l] = std::max<int32_t>(1, profile.links[l].channels);
    count_ += channels_[l];
  }
  if (profile.host_compute.present()) host_lane_ = count_++;
}

int32_t StreamNumbering::Of(const PlanStep& step) const {
  if (step.kind == StepKind::kCompute && step.unit == ComputeUnit::kHost && host_lane_ >= 0) {
    return host_lane_;
  }
  if (step.kind == StepKind::kCompute || step.kind == StepKind::kDetach) return kComputeStream;
  return Of(step.link, step.channel);
}

std::string_view StepKindName(StepKind kind) {
  return NameAt(kStepKindNames, static_cast<size_t>(kind));
}

std::string_view DecisionReasonName(DecisionReason reason) {
  return NameAt(kDecisionReasonNames, static_cast<size_t>(reason));
}

std::ostream& operator<<(std::ostream& out, StepKind kind) { return out << StepKindName(kind); }

std::ostream& operator<<(std::ostream& out, DecisionReason reason) {
  return out << DecisionReasonName(reason);
}

void AddBodyScratch(const Graph& graph, const std::vector<NodeId>& order,
                    const std::vector<int32_t>& compute_index,
                    std::vector<ResidentInterval>& residency) {
  for (size_t k = 0; k < order.size(); ++k) {
    const int64_t scratch_bytes = graph.nodes[order[k]].subgraph_peak_bytes;
    if (scratch_bytes <= 0) continue;
    ResidentInterval scratch;
    scratch.scratch_node = order[k];
    scratch.first_step = static_cast<Step>(k);
    scratch.last_step = static_cast<Step>(k);
    scratch.bytes = scratch_bytes;
    scratch.opened_by = compute_index[k];
    scratch.closed_by = compute_index[k];
    residency.push_back(scratch);
  }
}

}  // namespace hyperplan
