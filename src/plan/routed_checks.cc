// Fetch-after-route checks (see routed_checks.h).
#include "plan/routed_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "hyperplan/names.h"
#include "hyperplan/routed_fetch.h"

namespace hyperplan {
namespace {

class RoutedChecker {
 public:
  RoutedChecker(const Graph& graph, const HardwareProfile& profile, const Plan& plan)
      : graph_(graph), profile_(profile), plan_(plan) {
    step_of_node_.assign(graph.nodes.size(), -1);
    compute_index_.assign(plan.order.size(), -1);
    for (size_t k = 0; k < plan.order.size(); ++k) step_of_node_[plan.order[k]] = k;
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      if (plan.steps[i].kind == StepKind::kCompute) {
        compute_index_[plan.steps[i].boundary] = static_cast<int32_t>(i);
      }
    }
    for (size_t r = 0; r < plan.residency.size(); ++r) {
      const ResidentInterval& interval = plan.residency[r];
      if (!interval.experts.empty()) partial_of_[interval.value].push_back(r);
      if (interval.opened_by >= 0) opened_[interval.opened_by] = r;
    }
  }

  std::optional<HostStepFailure> Run() {
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      if (plan_.steps[i].routed_by != kNoNode && !CheckRoutedStep(static_cast<int32_t>(i))) {
        return failure_;
      }
    }
    for (const auto& [value, list] : partial_of_) {
      for (size_t r : list) {
        if (!CheckPartial(r)) return failure_;
      }
    }
    return std::nullopt;
  }

 private:
  bool Fail(int invariant, int32_t step, std::string message) {
    failure_ = HostStepFailure{invariant, step, std::move(message)};
    return false;
  }

  // The experts the value's partial residencies hold, ascending.
  std::vector<int32_t> ResidentExperts(ValueId value) const {
    std::vector<int32_t> experts;
    const auto it = partial_of_.find(value);
    if (it == partial_of_.end()) return experts;
    for (size_t r : it->second) {
      const std::vector<int32_t>& held = plan_.residency[r].experts;
      experts.insert(experts.end(), held.begin(), held.end());
    }
    std::sort(experts.begin(), experts.end());
    return experts;
  }

  bool CheckRoutedStep(int32_t index) {
    const PlanStep& step = plan_.steps[index];
    const std::optional<RoutedOperand> operand =
        RoutedOperandOf(graph_, step.routed_by, step.value);
    if (step.kind != StepKind::kPrefetch || !operand) {
      return Fail(1, index,
                  fmt::format("is routed by node {}, but is not a Prefetch of a stacked expert "
                              "operand read only by that MoE node",
                              step.routed_by));
    }
    if (!WaitsForRouter(index, *operand)) return false;
    const std::optional<int64_t> written_bytes =
        step.dst_tier == profile_.device_tier ? DeviceBlockBytes(index) : StagingCopyBytes(index);
    if (!written_bytes) return false;
    const int64_t resident = static_cast<int64_t>(ResidentExperts(step.value).size());
    const int64_t worst_bytes = ReservedRoutedBytes(*operand, resident);
    if (step.reserved_bytes != worst_bytes || *written_bytes != worst_bytes) {
      return Fail(2, index,
                  fmt::format("reserves {} bytes in a {}-byte block; the worst routing of {} "
                              "tokens (top {} of {} experts, {} resident) needs {}",
                              step.reserved_bytes, *written_bytes, operand->routing.tokens,
                              operand->routing.experts_per_token, operand->routing.experts,
                              resident, worst_bytes));
    }
    if (step.bytes < 0 || step.bytes > step.reserved_bytes) {
      return Fail(
          2, index,
          fmt::format("moves {} bytes, outside [0, {}] reserved", step.bytes, step.reserved_bytes));
    }
    return true;
  }

  // The bytes of the device block a routed Prefetch opens, which only the MoE node reads.
  std::optional<int64_t> DeviceBlockBytes(int32_t index) {
    const auto opened = opened_.find(index);
    if (opened == opened_.end()) {
      Fail(1, index, "a routed Prefetch opens no residency");
      return std::nullopt;
    }
    const ResidentInterval& block = plan_.residency[opened->second];
    const Step moe_step = step_of_node_[plan_.steps[index].routed_by];
    if (block.last_step != moe_step) {
      Fail(1, index,
           fmt::format("its block lives to step {}, but only the MoE node at step {} may read a "
                       "routed fetch",
                       block.last_step, moe_step));
      return std::nullopt;
    }
    return block.bytes;
  }

  // The bytes of the staging copy a routed hop off the device writes, which only the next
  // routed hop of the same value and node reads (it frees the copy).
  std::optional<int64_t> StagingCopyBytes(int32_t index) {
    const PlanStep& step = plan_.steps[index];
    for (const TierCopy& copy : plan_.tier_copies) {
      if (copy.opened_by != index || copy.value != step.value) continue;
      const bool next_routed = copy.closed_by >= 0 &&
                               plan_.steps[copy.closed_by].kind == StepKind::kPrefetch &&
                               plan_.steps[copy.closed_by].routed_by == step.routed_by &&
                               plan_.steps[copy.closed_by].value == step.value;
      if (!next_routed) break;
      return copy.bytes;
    }
    Fail(1, index,
         "a routed hop off the device must write a staging copy that the next routed hop of "
         "the same value frees");
    return std::nullopt;
  }

  bool WaitsForRouter(int32_t index, const RoutedOperand& operand) {
    if (operand.router == kNoNode) return true;
    const int32_t router = compute_index_[step_of_node_[operand.router]];
    const std::vector<int32_t>& waits = plan_.steps[index].waits_for;
    if (std::find(waits.begin(), waits.end(), router) != waits.end()) return true;
    return Fail(4, index,
                fmt::format("does not wait for the router '{}' (step {}), whose output picks "
                            "the experts it moves",
                            graph_.nodes[operand.router].name, router));
  }

  bool CheckPartial(size_t r) {
    const ResidentInterval& block = plan_.residency[r];
    const std::string name = fmt::format("residency {} (resident experts of {})", r,
                                         QuotedValueName(graph_, block.value));
    NodeId moe = kNoNode;
    for (const PlanStep& step : plan_.steps) {
      if (step.routed_by != kNoNode && step.value == block.value) moe = step.routed_by;
    }
    const std::optional<RoutedOperand> operand = RoutedOperandOf(graph_, moe, block.value);
    if (!operand) return Fail(1, -1, name + " belongs to a value no routed Prefetch fetches");
    const std::vector<int32_t>& experts = block.experts;
    const bool ascending =
        std::adjacent_find(experts.begin(), experts.end(),
                           [](int32_t a, int32_t b) { return a >= b; }) == experts.end();
    if (!ascending || experts.front() < 0 || experts.back() >= operand->routing.experts) {
      return Fail(1, -1, name + " lists experts out of order or outside [0, E)");
    }
    const int64_t expected_bytes = static_cast<int64_t>(experts.size()) * operand->slice_bytes;
    if (block.bytes != expected_bytes || block.opened_by >= 0 || block.closed_by >= 0 ||
        block.first_step != 0 || block.last_step != static_cast<Step>(plan_.order.size()) - 1) {
      return Fail(1, -1,
                  fmt::format("{} must hold its {} experts' {} bytes for the whole iteration", name,
                              experts.size(), expected_bytes));
    }
    return true;
  }

  const Graph& graph_;
  const HardwareProfile& profile_;
  const Plan& plan_;
  std::vector<Step> step_of_node_;
  std::vector<int32_t> compute_index_;
  std::map<ValueId, std::vector<size_t>> partial_of_;
  std::map<int32_t, size_t> opened_;  // step -> the residency it opens
  std::optional<HostStepFailure> failure_;
};

}  // namespace

std::optional<HostStepFailure> CheckRoutedFetches(const Graph& graph,
                                                  const HardwareProfile& profile,
                                                  const Plan& plan) {
  return RoutedChecker(graph, profile, plan).Run();
}

}  // namespace hyperplan
