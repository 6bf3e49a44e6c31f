// The problem bundle (see problem.h).
#include "hyperplan/planner/problem.h"

#include <string>
#include <utility>

#include "hyperplan/cost.h"
#include "hyperplan/error.h"
#include "hyperplan/host_cost.h"
#include "planner/cost_analysis.h"

namespace hyperplan {
namespace {

void CheckDeviceTier(const HardwareProfile& profile) {
  if (profile.device_tier < 0 || static_cast<size_t>(profile.device_tier) >= profile.tiers.size()) {
    throw Error(ErrorKind::kProfile, "profile '" + profile.name + "': no device tier");
  }
}

}  // namespace

void CheckPlanInputs(const HardwareProfile& profile, const PlanOptions& options) {
  CheckDeviceTier(profile);
  if (options.budget_bytes && *options.budget_bytes < 0) {
    throw Error(ErrorKind::kUsage, "budget must not be negative");
  }
  if (options.max_overhead_ppm < 0) {
    throw Error(ErrorKind::kUsage, "max overhead must not be negative");
  }
}

Problem BuildProblem(const Graph& model, const HardwareProfile& profile,
                     std::vector<int64_t> node_time_ns, const LoopSpec& loop) {
  CheckDeviceTier(profile);
  Problem problem;
  problem.periodic = loop.periodic;
  if (loop.periodic) {
    problem.aliases = loop.aliases;
    problem.loop_graph = std::make_shared<const Graph>(LoopGraph(model, loop.aliases));
    problem.persistent = PersistentValues(*problem.loop_graph, loop.aliases);
  }
  const Graph& graph = loop.periodic ? *problem.loop_graph : model;
  problem.graph = &graph;
  problem.model = &model;
  problem.profile = &profile;
  problem.order = ModelOrder(graph);
  // Estimated node times: an in-place update on the loop graph costs what it changes.
  if (node_time_ns.empty()) {
    for (const NodeCost& cost : EstimateLoopCosts(model, graph, profile)) {
      node_time_ns.push_back(cost.time_ns);
    }
  }
  problem.node_time_ns = std::move(node_time_ns);
  problem.lifetimes = AnalyzeLifetimes(graph, problem.order);
  problem.routes = FindDeviceRoutes(profile);
  problem.homes = DecideHomes(graph, profile, problem.routes, problem.persistent);
  return problem;
}

Problem BuildProblem(const Graph& model, const HardwareProfile& profile,
                     const PlanOptions& options) {
  CheckPlanInputs(profile, options);
  const LoopSpec loop{!options.single_run,
                      options.single_run ? std::vector<ValueAlias>{} : options.aliases};
  // Given node times are checked here; estimated ones come from the graph planned (above).
  std::vector<int64_t> node_time_ns;
  if (!options.node_time_ns.empty()) {
    node_time_ns = planner::NodeTimes(model, profile, options.node_time_ns);
  }
  return BuildProblem(model, profile, std::move(node_time_ns), loop);
}

Problem PlaceUnits(const Problem& base, std::vector<ComputeUnit> node_unit) {
  const Graph& graph = *base.graph;
  const HardwareProfile& profile = *base.profile;
  Problem problem = base;
  problem.units.node_unit = std::move(node_unit);
  problem.units.read_from_home.assign(graph.values.size(), 0);
  problem.units.device_time_ns = base.node_time_ns;
  const TierId host_tier = profile.host_compute.memory_tier;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (problem.units.node_unit[n] != ComputeUnit::kHost) continue;
    const Node& node = graph.nodes[n];
    problem.node_time_ns[n] = EstimateHostLoopNodeCost(base.model != nullptr ? *base.model : graph,
                                                       graph, static_cast<NodeId>(n), profile)
                                  .time_ns;
    for (ValueId input : node.inputs) {
      if (input == kNoValue) continue;
      const Value& value = graph.values[input];
      const bool host_updated = value.written_by != kNoNode &&
                                problem.units.node_unit[value.written_by] == ComputeUnit::kHost;
      if (problem.homes.home_tier[input] == host_tier &&
          (value.written_by == kNoNode || host_updated)) {
        problem.units.read_from_home[input] = 1;
      }
    }
  }
  problem.lifetimes = AnalyzeLifetimes(graph, problem.order, problem.units);
  return problem;
}

}  // namespace hyperplan
