// Measured node times mapped onto a graph (see node_times.h).
#include "hyperplan/node_times.h"

#include <unordered_set>

#include "hyperplan/cost.h"

namespace hyperplan {

NodeTimeMatch MatchNodeTimes(const Graph& graph, const HardwareProfile& profile,
                             const std::map<std::string, int64_t>& measured_ns) {
  NodeTimeMatch match;
  const std::vector<NodeCost> estimates = EstimateCosts(graph, profile);
  match.node_time_ns.reserve(graph.nodes.size());
  std::unordered_set<std::string> used;
  for (size_t node = 0; node < graph.nodes.size(); ++node) {
    const auto measured = measured_ns.find(graph.nodes[node].name);
    if (measured == measured_ns.end()) {
      match.node_time_ns.push_back(estimates[node].time_ns);
      ++match.unmatched_nodes;
      continue;
    }
    match.node_time_ns.push_back(measured->second);
    used.insert(measured->first);
    ++match.matched_nodes;
  }
  for (const auto& [name, time_ns] : measured_ns) {
    if (!used.count(name)) match.unknown_names.push_back(name);
  }
  return match;
}

}  // namespace hyperplan
