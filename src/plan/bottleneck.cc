// The busiest resource of a plan's iteration (see bottleneck.h).
#include "hyperplan/plan/bottleneck.h"

#include <fmt/format.h>

#include <algorithm>

#include "hyperplan/units.h"

namespace hyperplan {

Bottleneck FindBottleneck(const HardwareProfile& profile, const Plan& plan) {
  Bottleneck bottleneck;
  bottleneck.compute_busy_ns = plan.timeline.compute_ns;
  std::vector<int64_t> channel_ns(profile.links.size(), 0);
  for (size_t i = 0; i < plan.steps.size() && i < plan.timeline.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    if (step.kind != StepKind::kPrefetch && step.kind != StepKind::kStore) continue;
    if (step.link < 0 || static_cast<size_t>(step.link) >= channel_ns.size()) continue;
    channel_ns[step.link] += plan.timeline.steps[i].end_ns - plan.timeline.steps[i].start_ns;
  }
  bottleneck.link_busy_ns.resize(profile.links.size());
  bottleneck.busy_ns = bottleneck.compute_busy_ns;
  for (size_t l = 0; l < profile.links.size(); ++l) {
    const int64_t busy_ns = channel_ns[l] / std::max<int32_t>(1, profile.links[l].channels);
    bottleneck.link_busy_ns[l] = busy_ns;
    if (busy_ns > bottleneck.busy_ns) {
      bottleneck.busy_ns = busy_ns;
      bottleneck.link = static_cast<int32_t>(l);
    }
  }
  return bottleneck;
}

std::string BottleneckName(const HardwareProfile& profile, const Bottleneck& bottleneck) {
  if (bottleneck.link < 0) return "compute";
  const Link& link = profile.links[bottleneck.link];
  return profile.tiers[link.from].name + "->" + profile.tiers[link.to].name;
}

std::string DescribeBottleneck(const HardwareProfile& profile, const Plan& plan,
                               const Bottleneck& bottleneck) {
  const int64_t makespan_ns = plan.timeline.makespan_ns;
  // Whole percent, rounded half up, in integers.
  const int64_t percent =
      makespan_ns > 0
          ? static_cast<int64_t>((static_cast<__int128>(bottleneck.busy_ns) * 200 + makespan_ns) /
                                 (2 * makespan_ns))
          : 0;
  return fmt::format("{}, busy {} of the {} {} ({}%)", BottleneckName(profile, bottleneck),
                     FormatDuration(bottleneck.busy_ns), FormatDuration(makespan_ns),
                     plan.periodic ? "iteration" : "run", percent);
}

}  // namespace hyperplan
