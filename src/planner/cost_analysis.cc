// Cost analysis (see cost_analysis.h).
#include "planner/cost_analysis.h"

#include <algorithm>
#include <string>

#include "hyperplan/cost.h"
#include "hyperplan/error.h"

namespace hyperplan::planner {

std::vector<int64_t> NodeTimes(const Graph& graph, const HardwareProfile& profile,
                               const std::vector<int64_t>& node_time_override) {
  if (!node_time_override.empty()) {
    if (node_time_override.size() != graph.nodes.size()) {
      throw Error(ErrorKind::kUsage, "node times: " + std::to_string(node_time_override.size()) +
                                         " entries for " + std::to_string(graph.nodes.size()) +
                                         " nodes");
    }
    for (size_t i = 0; i < node_time_override.size(); ++i) {
      if (node_time_override[i] < 0) {
        throw Error(ErrorKind::kUsage,
                    "node times: node '" + graph.nodes[i].name + "' has a negative time");
      }
    }
    return node_time_override;
  }
  std::vector<int64_t> times;
  times.reserve(graph.nodes.size());
  for (const NodeCost& cost : EstimateCosts(graph, profile)) times.push_back(cost.time_ns);
  return times;
}

std::vector<int64_t> StallFreeStepStarts(const std::vector<NodeId>& order,
                                         const std::vector<int64_t>& node_time_ns) {
  std::vector<int64_t> start_ns(order.size() + 1, 0);
  for (size_t step = 0; step < order.size(); ++step) {
    start_ns[step + 1] = start_ns[step] + node_time_ns[order[step]];
  }
  return start_ns;
}

CostAnalysis AnalyzeCosts(const Graph& graph, const HardwareProfile& profile,
                          const std::vector<NodeId>& order,
                          const std::vector<int64_t>& node_time_override) {
  CostAnalysis cost;
  cost.node_time_ns = NodeTimes(graph, profile, node_time_override);
  cost.step_start_ns = StallFreeStepStarts(order, cost.node_time_ns);
  cost.routes = FindDeviceRoutes(profile);
  return cost;
}

Step BoundaryAtOrBefore(const std::vector<int64_t>& step_start_ns, int64_t time_ns) {
  // upper_bound finds the first start > time; the boundary before it is the answer.
  const auto it = std::upper_bound(step_start_ns.begin(), step_start_ns.end(), time_ns);
  if (it == step_start_ns.begin()) return 0;
  return static_cast<Step>(it - step_start_ns.begin() - 1);
}

Step FirstBoundaryAtOrAfter(const std::vector<int64_t>& step_start_ns, int64_t time_ns, Step from) {
  const auto begin = step_start_ns.begin() + std::clamp<Step>(from, 0, step_start_ns.size());
  const auto it = std::lower_bound(begin, step_start_ns.end(), time_ns);
  return static_cast<Step>(it - step_start_ns.begin());
}

}  // namespace hyperplan::planner
