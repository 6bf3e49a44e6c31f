// Shared baseline context (see context.h).
#include "baselines/context.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "hyperplan/cost.h"
#include "hyperplan/error.h"
#include "hyperplan/planner/layout.h"

namespace hyperplan::baselines {

int64_t BaselineContext::device_capacity_bytes() const {
  return profile->tiers[profile->device_tier].capacity_bytes;
}

int64_t BaselineContext::EffectiveBudget(std::optional<int64_t> budget_bytes) const {
  const int64_t capacity = device_capacity_bytes();
  const int64_t bound = capacity > 0 ? capacity : std::numeric_limits<int64_t>::max() / 4;
  return budget_bytes ? std::min(*budget_bytes, bound) : bound;
}

BaselineContext BuildBaselineContext(const Graph& model, const HardwareProfile& profile,
                                     std::vector<int64_t> node_time_ns, const LoopSpec& loop) {
  if (profile.device_tier < 0 || static_cast<size_t>(profile.device_tier) >= profile.tiers.size()) {
    throw Error(ErrorKind::kProfile, "profile '" + profile.name + "': no device tier");
  }
  BaselineContext context;
  context.periodic = loop.periodic;
  if (loop.periodic) {
    context.aliases = loop.aliases;
    context.loop_graph = std::make_shared<const Graph>(LoopGraph(model, loop.aliases));
    context.persistent = PersistentValues(*context.loop_graph, loop.aliases);
  }
  const Graph& graph = loop.periodic ? *context.loop_graph : model;
  context.graph = &graph;
  context.model = &model;
  context.profile = &profile;
  context.order = ModelOrder(graph);
  if (node_time_ns.empty()) {
    for (const NodeCost& cost : EstimateCosts(model, profile)) {
      node_time_ns.push_back(cost.time_ns);
    }
  } else if (node_time_ns.size() != graph.nodes.size()) {
    throw Error(ErrorKind::kUsage, "node times: " + std::to_string(node_time_ns.size()) +
                                       " entries for " + std::to_string(graph.nodes.size()) +
                                       " nodes");
  }
  for (int64_t time_ns : node_time_ns) {
    if (time_ns < 0) throw Error(ErrorKind::kUsage, "node times: a negative time");
  }
  context.node_time_ns = std::move(node_time_ns);
  context.lifetimes = AnalyzeLifetimes(graph, context.order);
  context.routes = FindDeviceRoutes(profile);
  context.homes = DecideHomes(graph, profile, context.routes, context.persistent);
  context.baseline_peak_bytes = context.lifetimes.timeline.peak_bytes;

  // The no-offload residency, laid out, is the arena every summary compares against.
  std::vector<ResidentInterval> residency;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (!value.size_known || value.bytes <= 0) continue;
    const Lifetime& lifetime = context.lifetimes.lifetimes[id];
    ResidentInterval interval;
    interval.value = static_cast<ValueId>(id);
    interval.first_step = lifetime.baseline_first_step;
    interval.last_step = lifetime.baseline_last_step;
    interval.bytes = value.bytes;
    residency.push_back(interval);
  }
  for (Step k = 0; k < context.step_count(); ++k) {
    const Node& node = graph.nodes[context.order[k]];
    if (node.subgraph_peak_bytes <= 0) continue;
    ResidentInterval scratch;
    scratch.scratch_node = context.order[k];
    scratch.first_step = k;
    scratch.last_step = k;
    scratch.bytes = node.subgraph_peak_bytes;
    residency.push_back(scratch);
  }
  if (context.step_count() > 0) {
    const int64_t alignment_bytes = profile.tiers[profile.device_tier].alignment_bytes;
    context.baseline_arena_bytes =
        LayoutArena(residency, context.step_count(), alignment_bytes).arena_bytes;
  }
  return context;
}

}  // namespace hyperplan::baselines
