// Crossing transfers of a unit placement (see host_crossings.h).
#include "planner/host_crossings.h"

#include <algorithm>
#include <string>

#include "hyperplan/error.h"

namespace hyperplan::planner {
namespace {

bool AnyOnHost(const UnitPlacement& units) {
  return std::find(units.node_unit.begin(), units.node_unit.end(), ComputeUnit::kHost) !=
         units.node_unit.end();
}

// Every host read of every value: a device value read on the host crosses by a Store before
// its first host reader; every value read on the host has a last host reader.
void MarkHostReads(const Graph& graph, const LifetimeAnalysis& lifetimes,
                   const UnitPlacement& units, HostCrossings& crossings) {
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (!units.OnHost(static_cast<NodeId>(n))) continue;
    const Step step = lifetimes.step_of_node[n];
    for (ValueId input : graph.nodes[n].inputs) {
      if (input == kNoValue || graph.values[input].bytes <= 0) continue;
      Step& last = crossings.last_host_read[input];
      last = std::max(last, step);
      const Value& value = graph.values[input];
      const bool host_written = value.producer != kNoNode && units.OnHost(value.producer);
      if (host_written || units.read_from_home[input]) continue;
      Step& boundary = crossings.store_boundary[input];
      boundary = boundary < 0 ? step : std::min(boundary, step);
    }
  }
}

}  // namespace

int32_t DirectLink(const HardwareProfile& profile, TierId from, TierId to) {
  for (size_t l = 0; l < profile.links.size(); ++l) {
    if (profile.links[l].from == from && profile.links[l].to == to) return static_cast<int32_t>(l);
  }
  return -1;
}

std::vector<HostCopySpan> HostCopySpans(const Graph& graph, const LifetimeAnalysis& lifetimes,
                                        const UnitPlacement& units,
                                        const HostCrossings& crossings) {
  std::vector<HostCopySpan> spans;
  if (crossings.empty()) return spans;
  const Step last_step = static_cast<Step>(lifetimes.order.size()) - 1;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    const Step last_read = crossings.last_host_read[id];
    if (value.bytes <= 0) continue;
    if (crossings.store_boundary[id] >= 0) {
      spans.push_back({crossings.store_boundary[id], last_read, value.bytes});
    } else if (value.producer != kNoNode && units.OnHost(value.producer)) {
      const Lifetime& lifetime = lifetimes.lifetimes[id];
      Step last = std::max(last_read, lifetime.crosses_in ? lifetime.def_step : -1);
      if (value.is_graph_output || last < 0) last = last_step;
      spans.push_back({lifetimes.step_of_node[value.producer], last, value.bytes});
    }
  }
  return spans;
}

bool HostLinkedBothWays(const HardwareProfile& profile) {
  const TierId host_tier = profile.host_compute.memory_tier;
  return DirectLink(profile, profile.device_tier, host_tier) >= 0 &&
         DirectLink(profile, host_tier, profile.device_tier) >= 0;
}

HostCrossings FindHostCrossings(const Graph& graph, const HardwareProfile& profile,
                                const LifetimeAnalysis& lifetimes, const UnitPlacement& units) {
  HostCrossings crossings;
  if (!AnyOnHost(units)) return crossings;
  crossings.host_tier = profile.host_compute.memory_tier;
  crossings.store_link = DirectLink(profile, profile.device_tier, crossings.host_tier);
  crossings.prefetch_link = DirectLink(profile, crossings.host_tier, profile.device_tier);
  if (!HostLinkedBothWays(profile)) {
    throw Error(ErrorKind::kInternal, "profile '" + profile.name +
                                          "': a node placed on the host, but the device and the "
                                          "host tier are not linked both ways");
  }
  crossings.store_boundary.assign(graph.values.size(), -1);
  crossings.last_host_read.assign(graph.values.size(), -1);
  MarkHostReads(graph, lifetimes, units, crossings);
  return crossings;
}

}  // namespace hyperplan::planner
