// A placement contender's plan (see placed_plan.h).
#include "contenders/placed_plan.h"

#include <utility>

namespace hyperplan::contenders {

std::vector<ComputeUnit> HostUnitsFor(const Graph& graph, const std::vector<NodeId>& host_nodes) {
  std::vector<ComputeUnit> units(graph.nodes.size(), ComputeUnit::kDevice);
  for (NodeId node : host_nodes) units[node] = ComputeUnit::kHost;
  return units;
}

PlanResult PlanPlacement(const ContenderContext& context, std::vector<ComputeUnit> units,
                         int64_t budget_bytes, const std::string& produced_by) {
  PlanResult result =
      PlanOffload(PlaceUnits(context, std::move(units)), DeviceSideOptions(context, budget_bytes));
  result.plan.produced_by = produced_by;
  return result;
}

}  // namespace hyperplan::contenders
