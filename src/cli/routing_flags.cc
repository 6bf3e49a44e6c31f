// --routing-samples / --routing-seed (see routing_flags.h).
#include "routing_flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hyperplan/error.h"
#include "hyperplan/routing_samples.h"
#include "run_summary.h"

namespace hyperplan::cli {

void AddRoutingFlags(CLI::App& command, RoutingFlags& flags) {
  command
      .add_option("--routing-samples", flags.samples,
                  "MoE models: replay and verify the plan under N sampled routings (each MoE node "
                  "reads the experts one drawn routing touches) and report the mean and p99 "
                  "iteration time; 0: none")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  command.add_option("--routing-seed", flags.seed, "seed of the sampled routings")
      ->capture_default_str();
  command.add_flag("--no-route-fetch", flags.no_route_fetch,
                   "MoE models: move stacked expert tensors whole, never only the experts the "
                   "router picks (for a runtime without fetch-after-route)");
}

namespace {

// "  experts: 174 stacked tensors fetched after route (58 MoE nodes), 12 experts resident\n",
// the gather form's "(348 expert Gathers of 58 routers)", or "" when the plan has no routed
// Prefetch to the device.
std::string DescribeRoutedFetches(const Graph& graph, const HardwareProfile& profile,
                                  const Plan& plan) {
  std::set<NodeId> moe_nodes, gathers, routers;
  int64_t fetched = 0;
  for (const PlanStep& step : plan.steps) {
    if (step.routed_by == kNoNode || step.dst_tier != profile.device_tier) continue;
    const std::optional<MoeRouting> routing = MoeRoutingOf(graph, step.routed_by);
    const bool gather = graph.nodes[step.routed_by].op_type == "Gather";
    (gather ? gathers : moe_nodes).insert(step.routed_by);
    if (gather && routing) routers.insert(routing->draw);
    ++fetched;
  }
  if (fetched == 0) return "";
  std::vector<std::string> readers;
  if (!moe_nodes.empty()) readers.push_back(fmt::format("{} MoE nodes", moe_nodes.size()));
  if (!gathers.empty()) {
    readers.push_back(
        fmt::format("{} expert Gathers of {} routers", gathers.size(), routers.size()));
  }
  size_t resident = 0;
  for (const ResidentInterval& block : plan.residency) resident += block.experts.size();
  return fmt::format(
      "  experts: {} stacked tensors fetched after route ({}), {} experts resident\n", fetched,
      fmt::join(readers, ", "), resident);
}

}  // namespace

std::string SampleRoutings(const RoutingFlags& flags, const std::string& model_path,
                           const Graph& graph, const HardwareProfile& profile,
                           const EvaluatedPlan& planned, plan::v1::RunSummary& summary) {
  const std::string fetches = DescribeRoutedFetches(graph, profile, planned.plan);
  RecordResidentExperts(graph, profile, planned.plan, summary);
  const PlanSummary& numbers = planned.evaluation.summary;
  const NoOffloadReference reference{numbers.baseline_peak_bytes, numbers.baseline_arena_bytes};
  const RoutingSpread spread =
      EvaluateRoutingSpread(graph, profile, planned.plan, reference, {flags.samples, flags.seed});
  if (spread.samples == 0) return fetches;
  if (spread.failed_sample >= 0) {
    throw Error(ErrorKind::kInternal, model_path +
                                          ": the plan fails to verify under sampled routing " +
                                          std::to_string(spread.failed_sample) + " (seed " +
                                          std::to_string(flags.seed) + "): " + spread.failure);
  }
  summary.set_routing_samples(spread.samples);
  summary.set_routing_seed(spread.seed);
  summary.set_routing_mean_ns(spread.mean_ns);
  summary.set_routing_p99_ns(spread.p99_ns);
  summary.set_routing_mean_distinct_experts(spread.mean_distinct_experts);
  return fetches + "  routing: " + DescribeRoutingSpread(spread) + "\n";
}

}  // namespace hyperplan::cli
