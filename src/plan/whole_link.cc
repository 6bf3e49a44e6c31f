// Routed hops hold their whole link (see whole_link.h).
#include "hyperplan/plan/whole_link.h"

#include <algorithm>

namespace hyperplan {
namespace {

bool IsTransfer(const PlanStep& step) {
  return step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore;
}

int32_t ChannelsOf(const HardwareProfile& profile, int32_t link) {
  if (link < 0 || static_cast<size_t>(link) >= profile.links.size()) return 1;
  return std::max<int32_t>(1, profile.links[link].channels);
}

}  // namespace

bool HoldsWholeLink(const HardwareProfile& profile, const PlanStep& step) {
  return step.routed_by != kNoNode && IsTransfer(step) && ChannelsOf(profile, step.link) > 1;
}

std::vector<std::vector<int32_t>> WholeLinkWaits(const HardwareProfile& profile, const Plan& plan) {
  std::vector<std::vector<int32_t>> waits(plan.steps.size());
  // By link and channel: the last step on it, and the holding step its next one must wait for.
  std::vector<std::vector<int32_t>> last(profile.links.size());
  std::vector<std::vector<int32_t>> held_by(profile.links.size());
  for (size_t l = 0; l < profile.links.size(); ++l) {
    last[l].assign(ChannelsOf(profile, static_cast<int32_t>(l)), -1);
    held_by[l].assign(last[l].size(), -1);
  }
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const PlanStep& step = plan.steps[s];
    if (!IsTransfer(step) || step.link < 0 ||
        static_cast<size_t>(step.link) >= profile.links.size() || step.channel < 0 ||
        static_cast<size_t>(step.channel) >= last[step.link].size()) {
      continue;
    }
    std::vector<int32_t>& on_link = last[step.link];
    std::vector<int32_t>& holder = held_by[step.link];
    const auto step_id = static_cast<int32_t>(s);
    if (HoldsWholeLink(profile, step)) {
      for (size_t c = 0; c < on_link.size(); ++c) {
        if (static_cast<int32_t>(c) != step.channel && on_link[c] >= 0) {
          waits[s].push_back(on_link[c]);
        }
        holder[c] = static_cast<int32_t>(c) == step.channel ? -1 : step_id;
      }
    } else if (holder[step.channel] >= 0) {
      waits[s].push_back(holder[step.channel]);
      holder[step.channel] = -1;
    }
    on_link[step.channel] = step_id;
  }
  return waits;
}

}  // namespace hyperplan
