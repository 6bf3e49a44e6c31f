// PlanContext construction (see context.h).
#include "planner/context.h"

#include <utility>

namespace hyperplan::planner {

PlanContext BuildContext(const Graph& graph, const HardwareProfile& profile,
                         std::vector<NodeId> order, const std::vector<int64_t>& node_time_ns) {
  PlanContext context;
  context.graph = &graph;
  context.profile = &profile;
  context.lifetimes = AnalyzeLifetimes(graph, order);
  context.cost = AnalyzeCosts(graph, profile, order, node_time_ns);
  context.reordered = order != ModelOrder(graph);
  context.order = std::move(order);
  context.candidates = FindCandidates(graph, profile, context.lifetimes, context.cost);
  return context;
}

}  // namespace hyperplan::planner
