// The device arena and the tier buffers of a plan (see plan_layout.h).
#include "hyperplan/planner/plan_layout.h"

#include <algorithm>

#include "planner/tier_layout.h"

namespace hyperplan {

void LayOutPlan(const HardwareProfile& profile, const LayoutOptions& options, Plan& plan) {
  const auto step_count = static_cast<Step>(plan.order.size());
  const bool has_device =
      profile.device_tier >= 0 && static_cast<size_t>(profile.device_tier) < profile.tiers.size();
  const int64_t alignment_bytes =
      has_device ? std::max<int64_t>(1, profile.tiers[profile.device_tier].alignment_bytes) : 1;
  plan.layout = LayoutArena(plan.residency, step_count, alignment_bytes, options);
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

}  // namespace hyperplan
