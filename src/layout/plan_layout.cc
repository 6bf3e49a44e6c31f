// The device arena and the tier buffers of a plan (see plan_layout.h).
#include "hyperplan/layout/plan_layout.h"

#include <algorithm>

#include "layout/tier_layout.h"

namespace hyperplan {

namespace {

int64_t DeviceAlignmentBytes(const HardwareProfile& profile) {
  const bool has_device =
      profile.device_tier >= 0 && static_cast<size_t>(profile.device_tier) < profile.tiers.size();
  return has_device ? std::max<int64_t>(1, profile.tiers[profile.device_tier].alignment_bytes) : 1;
}

}  // namespace

void LayOutPlan(const HardwareProfile& profile, const LayoutOptions& options, Plan& plan) {
  const auto step_count = static_cast<Step>(plan.order.size());
  plan.layout = LayoutArena(plan.residency, step_count, DeviceAlignmentBytes(profile), options,
                            plan.periodic);
  plan.tier_buffers = planner::LayoutTierBuffers(profile, options, plan);
}

bool TierBuffersFit(const HardwareProfile& profile, const Plan& plan) {
  for (const TierBuffer& buffer : plan.tier_buffers) {
    if (buffer.tier < 0 || static_cast<size_t>(buffer.tier) >= profile.tiers.size()) return false;
    const int64_t capacity = profile.tiers[buffer.tier].capacity_bytes;
    if (capacity > 0 && buffer.size_bytes > capacity) return false;
  }
  return true;
}

std::vector<int64_t> LiveBytesPerStep(const std::vector<ResidentInterval>& residency,
                                      Step step_count) {
  std::vector<int64_t> live(static_cast<size_t>(step_count) + 1, 0);
  for (const ResidentInterval& interval : residency) {
    if (interval.bytes <= 0 || interval.first_step > interval.last_step) continue;
    live[interval.first_step] += interval.bytes;
    live[interval.last_step + 1] -= interval.bytes;
  }
  for (size_t k = 1; k < live.size(); ++k) live[k] += live[k - 1];
  live.pop_back();
  return live;
}

int64_t NoOffloadArenaBytes(const Graph& graph, const HardwareProfile& profile,
                            const std::vector<NodeId>& order, const LifetimeAnalysis& lifetimes,
                            const LayoutOptions& options) {
  const auto step_count = static_cast<Step>(order.size());
  if (step_count == 0) return 0;
  std::vector<ResidentInterval> residency;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (!value.size_known || value.bytes <= 0) continue;
    ResidentInterval interval;
    interval.value = static_cast<ValueId>(id);
    interval.first_step = lifetimes.lifetimes[id].baseline_first_step;
    interval.last_step = lifetimes.lifetimes[id].baseline_last_step;
    interval.bytes = value.bytes;
    residency.push_back(interval);
  }
  for (Step k = 0; k < step_count; ++k) {
    const Node& node = graph.nodes[order[k]];
    if (node.subgraph_peak_bytes <= 0) continue;
    ResidentInterval scratch;
    scratch.scratch_node = order[k];
    scratch.first_step = k;
    scratch.last_step = k;
    scratch.bytes = node.subgraph_peak_bytes;
    residency.push_back(scratch);
  }
  return LayoutArena(residency, step_count, DeviceAlignmentBytes(profile), options).arena_bytes;
}

}  // namespace hyperplan
