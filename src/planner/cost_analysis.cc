// Cost analysis (see cost_analysis.h).
#include "planner/cost_analysis.h"

#include <algorithm>
#include <deque>
#include <string>

#include "hyperplan/cost.h"
#include "hyperplan/error.h"
#include "hyperplan/planner/simulate.h"

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

std::optional<Route> FindRoute(const HardwareProfile& profile, TierId from, TierId to) {
  if (from == to) return Route{};
  const size_t tier_count = profile.tiers.size();
  if (from < 0 || to < 0 || static_cast<size_t>(from) >= tier_count ||
      static_cast<size_t>(to) >= tier_count) {
    return std::nullopt;
  }
  // Breadth-first over tiers; links scanned in index order so ties resolve the same way.
  std::vector<int32_t> via_link(tier_count, -1);
  std::vector<bool> seen(tier_count, false);
  std::deque<TierId> queue{from};
  seen[from] = true;
  while (!queue.empty()) {
    const TierId tier = queue.front();
    queue.pop_front();
    for (size_t i = 0; i < profile.links.size(); ++i) {
      const Link& link = profile.links[i];
      if (link.from != tier || link.to < 0 || static_cast<size_t>(link.to) >= tier_count ||
          seen[link.to] || link.bandwidth_bytes_per_s <= 0 || link.channels <= 0) {
        continue;
      }
      seen[link.to] = true;
      via_link[link.to] = static_cast<int32_t>(i);
      queue.push_back(link.to);
    }
  }
  if (!seen[to]) return std::nullopt;
  Route route;
  for (TierId tier = to; tier != from; tier = profile.links[via_link[tier]].from) {
    route.push_back(via_link[tier]);
  }
  std::reverse(route.begin(), route.end());
  return route;
}

int64_t RouteTimeNs(const HardwareProfile& profile, const Route& route, int64_t bytes) {
  int64_t total_ns = 0;
  for (int32_t link : route) total_ns += ChannelTransferTimeNs(profile.links[link], bytes);
  return total_ns;
}

CostAnalysis AnalyzeCosts(const Graph& graph, const HardwareProfile& profile,
                          const std::vector<NodeId>& order,
                          const std::vector<int64_t>& node_time_override) {
  CostAnalysis cost;
  cost.node_time_ns = NodeTimes(graph, profile, node_time_override);
  cost.step_start_ns.assign(order.size() + 1, 0);
  for (size_t step = 0; step < order.size(); ++step) {
    cost.step_start_ns[step + 1] = cost.step_start_ns[step] + cost.node_time_ns[order[step]];
  }
  const size_t tier_count = profile.tiers.size();
  cost.to_device.resize(tier_count);
  cost.from_device.resize(tier_count);
  for (size_t tier = 0; tier < tier_count; ++tier) {
    const auto id = static_cast<TierId>(tier);
    if (id == profile.device_tier) continue;
    cost.to_device[tier] = FindRoute(profile, id, profile.device_tier);
    cost.from_device[tier] = FindRoute(profile, profile.device_tier, id);
  }
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
