// RoutedView (see routed_view.h).
#include "executor/routed_view.h"

#include <algorithm>
#include <optional>

#include "hyperplan/routed_fetch.h"

namespace hyperplan::executor {
namespace {

// The block of the routing input `router_value` a hop at `step` reads: the device residency
// live at its boundary (a partial one never), else the latest copy opened before it.
int32_t RouterBlockAt(const Plan& plan, const PlanView& view, ValueId router_value, int32_t step) {
  const auto found = view.blocks_of.find(router_value);
  if (found == view.blocks_of.end()) return -1;
  const Step boundary = plan.steps[step].boundary;
  int32_t copy = -1;
  for (int32_t b : found->second) {
    const BlockInfo& info = view.block_info[b];
    if (info.device) {
      const ResidentInterval& interval = plan.residency[b];
      if (interval.experts.empty() && interval.first_step <= boundary &&
          boundary <= interval.last_step) {
        return b;
      }
      continue;
    }
    const bool live = info.opened_by < step && (info.closed_by < 0 || info.closed_by >= step);
    if (live && (copy < 0 || info.opened_by > view.block_info[copy].opened_by)) copy = b;
  }
  return copy;
}

std::optional<RoutedHop> HopOf(const Graph& loop, const Plan& plan, const PlanView& view,
                               int32_t step) {
  const PlanStep& planned = plan.steps[step];
  std::optional<RoutedOperand> operand = RoutedOperandOf(loop, planned.routed_by, planned.value);
  if (!operand) return std::nullopt;  // VerifyPlan rejects it; the executor finds no block
  RoutedHop hop;
  hop.step = step;
  hop.node = planned.routed_by;
  hop.value = planned.value;
  hop.slice_bytes = operand->slice_bytes;
  hop.resident.assign(operand->routing.experts, 0);
  hop.routing = std::move(operand->routing);
  hop.router_value = RoutingInputOf(loop, hop.node);  // router_probs, or a Gather's indices
  hop.router_block = RouterBlockAt(plan, view, hop.router_value, step);
  for (size_t r = 0; r < plan.residency.size(); ++r) {
    const ResidentInterval& interval = plan.residency[r];
    if (interval.value != hop.value || interval.experts.empty()) continue;
    hop.resident_blocks.push_back(static_cast<int32_t>(r));
    for (int32_t e : interval.experts) {
      if (e >= 0 && e < hop.routing.experts) hop.resident[e] = 1;
    }
  }
  return hop;
}

void AddRouting(const RoutedHop& hop, std::vector<MoeRouting>& routings) {
  const auto same = [&](const MoeRouting& r) { return r.node == hop.node; };
  if (std::none_of(routings.begin(), routings.end(), same)) routings.push_back(hop.routing);
}

}  // namespace

RoutedView BuildRoutedView(const Graph& loop, const Plan& plan, const PlanView& view) {
  RoutedView routed;
  routed.hop_of_step.assign(plan.steps.size(), -1);
  routed.hop_of_block.assign(view.blocks.size(), -1);
  routed.experts_block.assign(view.blocks.size(), -1);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    if (plan.steps[s].routed_by == kNoNode || plan.steps[s].kind != StepKind::kPrefetch) continue;
    std::optional<RoutedHop> hop = HopOf(loop, plan, view, static_cast<int32_t>(s));
    if (!hop) continue;
    const int32_t index = static_cast<int32_t>(routed.hops.size());
    routed.hop_of_step[s] = index;
    const int32_t opened = view.step_blocks[s].destination;
    if (opened >= 0 && view.block_info[opened].opened_by == static_cast<int32_t>(s)) {
      routed.hop_of_block[opened] = index;
    }
    for (int32_t b : hop->resident_blocks) routed.experts_block[b] = index;
    AddRouting(*hop, routed.routings);
    routed.hops.push_back(std::move(*hop));
  }
  std::sort(routed.routings.begin(), routed.routings.end(),
            [](const MoeRouting& a, const MoeRouting& b) { return a.node < b.node; });
  return routed;
}

std::vector<int32_t> FetchedExperts(const RoutedHop& hop, const std::vector<char>& touched) {
  std::vector<int32_t> fetched;
  for (size_t e = 0; e < touched.size() && e < hop.resident.size(); ++e) {
    if (touched[e] && !hop.resident[e]) fetched.push_back(static_cast<int32_t>(e));
  }
  return fetched;
}

int64_t SliceOffsetIn(const RoutedView& routed, const Plan& plan, int32_t block, int32_t e,
                      int64_t slice_bytes, const std::vector<int32_t>& fetched) {
  const std::vector<int32_t>* held = nullptr;
  if (routed.experts_block[block] >= 0) held = &plan.residency[block].experts;
  if (routed.hop_of_block[block] >= 0) held = &fetched;
  if (held == nullptr) return e * slice_bytes;
  const auto at = std::lower_bound(held->begin(), held->end(), e);
  if (at == held->end() || *at != e) return -1;
  return (at - held->begin()) * slice_bytes;
}

}  // namespace hyperplan::executor
