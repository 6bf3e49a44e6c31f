// Shared baseline context (see context.h).
#include "contenders/context.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "hyperplan/cost.h"
#include "hyperplan/error.h"
#include "hyperplan/layout/plan_layout.h"

namespace hyperplan::contenders {

int64_t ContenderContext::device_capacity_bytes() const {
  return profile->tiers[profile->device_tier].capacity_bytes;
}

int64_t ContenderContext::EffectiveBudget(std::optional<int64_t> budget_bytes) const {
  const int64_t capacity = device_capacity_bytes();
  const int64_t bound = capacity > 0 ? capacity : std::numeric_limits<int64_t>::max() / 4;
  return budget_bytes ? std::min(*budget_bytes, bound) : bound;
}

ContenderContext BuildContenderContext(const Graph& model, const HardwareProfile& profile,
                                       std::vector<int64_t> node_time_ns, const LoopSpec& loop) {
  if (profile.device_tier < 0 || static_cast<size_t>(profile.device_tier) >= profile.tiers.size()) {
    throw Error(ErrorKind::kProfile, "profile '" + profile.name + "': no device tier");
  }
  const size_t node_count = model.nodes.size();  // the loop graph keeps the node ids
  // Empty node times are estimated by BuildProblem on the graph planned (the loop graph).
  if (!node_time_ns.empty() && node_time_ns.size() != node_count) {
    throw Error(ErrorKind::kUsage, "node times: " + std::to_string(node_time_ns.size()) +
                                       " entries for " + std::to_string(node_count) + " nodes");
  }
  for (int64_t time_ns : node_time_ns) {
    if (time_ns < 0) throw Error(ErrorKind::kUsage, "node times: a negative time");
  }
  return BuildContenderContext(BuildProblem(model, profile, std::move(node_time_ns), loop));
}

ContenderContext BuildContenderContext(const Problem& problem) {
  ContenderContext context;
  static_cast<Problem&>(context) = problem;
  context.baseline_peak_bytes = context.lifetimes.timeline.peak_bytes;
  // The arena every summary compares against.
  context.baseline_arena_bytes =
      NoOffloadArenaBytes(*context.graph, *context.profile, context.order, context.lifetimes);
  return context;
}

PlanOptions DeviceSideOptions(const ContenderContext& context, int64_t budget_bytes) {
  PlanOptions options;
  options.budget_bytes = budget_bytes;
  options.node_time_ns = context.node_time_ns;
  options.single_run = !context.periodic;
  options.aliases = context.aliases;
  return options;
}

}  // namespace hyperplan::contenders
