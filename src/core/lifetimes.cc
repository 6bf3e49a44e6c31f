// Lifetime analysis and the no-offload memory timeline (see lifetimes.h).
//
// The timeline is built with a difference array: each value adds its bytes where its baseline
// residency starts and removes them one step after it ends, so the whole sweep is linear.
#include "hyperplan/lifetimes.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "hyperplan/error.h"

namespace hyperplan {

std::vector<NodeId> ModelOrder(const Graph& graph) {
  std::vector<NodeId> order(graph.nodes.size());
  std::iota(order.begin(), order.end(), 0);
  return order;
}

namespace {

// Step of each node in `order`; throws (kInternal) unless `order` is a permutation.
std::vector<Step> StepOfNode(const Graph& graph, const std::vector<NodeId>& order) {
  const auto node_count = static_cast<Step>(graph.nodes.size());
  std::vector<Step> step_of_node(graph.nodes.size(), -1);
  if (order.size() != graph.nodes.size()) {
    throw Error(ErrorKind::kInternal, "execution order has " + std::to_string(order.size()) +
                                          " steps for " + std::to_string(node_count) + " nodes");
  }
  for (Step step = 0; step < node_count; ++step) {
    const NodeId node = order[step];
    if (node < 0 || node >= node_count || step_of_node[node] != -1) {
      throw Error(ErrorKind::kInternal,
                  "execution order is not a permutation at step " + std::to_string(step));
    }
    step_of_node[node] = step;
  }
  return step_of_node;
}

// Whether `consumer` reads `value` on the host (lifetimes.h): a host node reading what a host
// node wrote or a home copy on the host tier.
bool ReadOnHost(const UnitPlacement& placement, ValueId value, NodeId producer, NodeId consumer) {
  if (!placement.OnHost(consumer)) return false;
  return (producer != kNoNode && placement.OnHost(producer)) || placement.read_from_home[value];
}

// A host-written value's device view: read on the device from its first device read, or
// never on the device.
void PlaceHostWritten(Lifetime& lifetime) {
  if (lifetime.use_steps.empty()) {
    lifetime.on_device = false;
    return;
  }
  lifetime.crosses_in = true;
  lifetime.def_step = lifetime.use_steps.front();
}

// A value's definition, uses and no-offload residency; throws (kInternal) when a consumer
// runs before the producer.
Lifetime LifetimeOf(const Graph& graph, ValueId id, const std::vector<Step>& step_of_node,
                    Step last_step, const UnitPlacement& placement) {
  const Value& value = graph.values[id];
  Lifetime lifetime;
  lifetime.def_step = value.producer == kNoNode ? 0 : step_of_node[value.producer];
  lifetime.use_steps.reserve(value.consumers.size());
  bool read_on_host = false;
  for (NodeId consumer : value.consumers) {
    const Step use = step_of_node[consumer];
    if (use < lifetime.def_step) {
      throw Error(ErrorKind::kInternal, "execution order is not topological: node '" +
                                            graph.nodes[consumer].name + "' reads '" + value.name +
                                            "' before it is produced");
    }
    if (ReadOnHost(placement, id, value.producer, consumer)) {
      read_on_host = true;
      continue;
    }
    lifetime.use_steps.push_back(use);
  }
  std::sort(lifetime.use_steps.begin(), lifetime.use_steps.end());
  if (value.producer != kNoNode && placement.OnHost(value.producer)) PlaceHostWritten(lifetime);
  if (value.producer == kNoNode && read_on_host && lifetime.use_steps.empty() &&
      !value.is_graph_output) {
    lifetime.on_device = false;  // only host nodes read it, from its home copy
  }
  // A persistent value a host node updates in place, read on the device: each iteration's
  // device copies come from the home copy, which holds the last update, and are read-only, so
  // its device view is a weight's (owned outside the run) that the planner must stream: a
  // Prefetch before its first device read and a Detach after its last (candidates.h), cut
  // between reads like any weight (docs/design.md "Compute units").
  lifetime.host_updated = value.producer == kNoNode && value.written_by != kNoNode &&
                          placement.OnHost(value.written_by) && lifetime.on_device &&
                          !lifetime.use_steps.empty();
  lifetime.last_use_step =
      lifetime.use_steps.empty() ? lifetime.def_step : lifetime.use_steps.back();
  const bool owned_outside_run = value.producer == kNoNode;
  lifetime.baseline_first_step = lifetime.def_step;
  lifetime.baseline_last_step =
      owned_outside_run || value.is_graph_output ? last_step : lifetime.last_use_step;
  return lifetime;
}

// Live bytes per step of the no-offload residency, bodies' peaks included, and its peak.
MemoryTimeline BaselineTimeline(const Graph& graph, const std::vector<NodeId>& order,
                                const std::vector<Lifetime>& lifetimes) {
  const auto node_count = static_cast<Step>(graph.nodes.size());
  // Difference array over steps: +bytes at def, -bytes one past the last use.
  std::vector<int64_t> delta_bytes(static_cast<size_t>(node_count) + 1, 0);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const int64_t bytes = graph.values[id].bytes;
    if (bytes == 0 || node_count == 0 || !lifetimes[id].on_device) continue;
    delta_bytes[lifetimes[id].baseline_first_step] += bytes;
    delta_bytes[lifetimes[id].baseline_last_step + 1] -= bytes;
  }
  MemoryTimeline timeline;
  timeline.live_bytes_per_step.resize(node_count);
  int64_t live_bytes = 0;
  for (Step step = 0; step < node_count; ++step) {
    live_bytes += delta_bytes[step];
    const int64_t step_bytes = live_bytes + graph.nodes[order[step]].subgraph_peak_bytes;
    timeline.live_bytes_per_step[step] = step_bytes;
    if (step_bytes > timeline.peak_bytes) {
      timeline.peak_bytes = step_bytes;
      timeline.peak_step = step;
    }
  }
  return timeline;
}

}  // namespace

LifetimeAnalysis AnalyzeLifetimes(const Graph& graph, const std::vector<NodeId>& order) {
  return AnalyzeLifetimes(graph, order, UnitPlacement{});
}

LifetimeAnalysis AnalyzeLifetimes(const Graph& graph, const std::vector<NodeId>& order,
                                  const UnitPlacement& placement) {
  LifetimeAnalysis analysis;
  analysis.order = order;
  analysis.step_of_node = StepOfNode(graph, order);
  const Step last_step = std::max<Step>(0, static_cast<Step>(graph.nodes.size()) - 1);
  analysis.lifetimes.reserve(graph.values.size());
  for (size_t id = 0; id < graph.values.size(); ++id) {
    analysis.lifetimes.push_back(
        LifetimeOf(graph, static_cast<ValueId>(id), analysis.step_of_node, last_step, placement));
  }
  analysis.timeline = BaselineTimeline(graph, order, analysis.lifetimes);
  return analysis;
}

std::vector<ValueId> LiveValuesAt(const Graph& graph, const LifetimeAnalysis& analysis, Step step) {
  std::vector<ValueId> live;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Lifetime& lifetime = analysis.lifetimes[id];
    if (lifetime.on_device && lifetime.baseline_first_step <= step &&
        step <= lifetime.baseline_last_step) {
      live.push_back(static_cast<ValueId>(id));
    }
  }
  std::stable_sort(live.begin(), live.end(), [&](ValueId a, ValueId b) {
    return graph.values[a].bytes > graph.values[b].bytes;
  });
  return live;
}

}  // namespace hyperplan
