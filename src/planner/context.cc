// PlanContext construction (see context.h).
#include "planner/context.h"

#include <utility>

namespace hyperplan::planner {
namespace {

void FindCandidatesAgain(PlanContext& context) {
  context.candidates =
      FindCandidates(*context.graph, *context.profile, context.lifetimes, context.cost,
                     context.homes, context.persistent, context.rules);
}

}  // namespace

PlanContext BuildContext(const Graph& graph, const HardwareProfile& profile,
                         std::vector<NodeId> order, const std::vector<int64_t>& node_time_ns,
                         std::vector<uint8_t> persistent) {
  PlanContext context;
  context.graph = &graph;
  context.profile = &profile;
  context.lifetimes = AnalyzeLifetimes(graph, order);
  context.cost = AnalyzeCosts(graph, profile, order, node_time_ns);
  context.reordered = order != ModelOrder(graph);
  context.order = std::move(order);
  context.persistent = std::move(persistent);
  context.homes = DecideHomes(graph, profile, context.cost.routes, context.persistent);
  context.candidates = FindCandidates(graph, profile, context.lifetimes, context.cost,
                                      context.homes, context.persistent);
  return context;
}

PlanContext BuildContext(const Problem& problem) {
  PlanContext context{
      .graph = problem.graph,
      .profile = problem.profile,
      .order = problem.order,
      .order_name = {},  // the model's order
      .lifetimes = problem.lifetimes,
      .units = problem.units,
      .crossings =
          FindHostCrossings(*problem.graph, *problem.profile, problem.lifetimes, problem.units),
      .reserve_crossings = problem.reserve_crossings,
      .detach_waits_for_host = problem.detach_waits_for_host,
      .cost = {problem.node_time_ns, StallFreeStepStarts(problem.order, problem.node_time_ns),
               problem.routes},
      .homes = problem.homes,
      .candidates = {},  // found below
      .persistent = problem.persistent,
      .layout = {},  // set by the caller
      .rules = {},
  };
  FindCandidatesAgain(context);
  return context;
}

PlanContext RetimedContext(const PlanContext& base, std::vector<int64_t> step_start_ns) {
  PlanContext context = base;
  context.hoist_prefetches = false;  // asked for per round (context.h)
  context.cost.step_start_ns = std::move(step_start_ns);
  FindCandidatesAgain(context);
  return context;
}

PlanContext WithInnerGapsBundled(const PlanContext& base) {
  PlanContext context = base;
  context.rules.inner_gaps = InnerGaps::kWithWrap;
  FindCandidatesAgain(context);
  return context;
}

PlanContext WithLateWriteBacksAtStart(const PlanContext& base) {
  PlanContext context = base;
  context.rules.late_write_backs = LateWriteBacks::kAtStart;
  FindCandidatesAgain(context);
  return context;
}

PlanContext WithWrapHalvesRankedAlone(const PlanContext& base) {
  PlanContext context = base;
  context.rules.wrap_rank = WrapRank::kOwnHalf;
  FindCandidatesAgain(context);
  return context;
}

std::vector<uint8_t> LateWriteBackValues(const PlanContext& context) {
  if (context.rules.inner_gaps != InnerGaps::kOwn) return {};
  return LateWriteBackValues(*context.graph, *context.profile, context.lifetimes, context.cost,
                             context.homes, context.persistent);
}

bool HasOwnInnerGaps(const PlanContext& context) {
  if (context.rules.inner_gaps != InnerGaps::kOwn || context.persistent.empty()) return false;
  for (const Candidate& candidate : context.candidates.candidates) {
    if (context.persistent[candidate.value] && candidate.bundle.empty()) return true;
  }
  return false;
}

}  // namespace hyperplan::planner
