// A plan over sampled routings (see routing_spread.h).
#include "hyperplan/plan/routing_spread.h"

#include <fmt/format.h>

#include <algorithm>

#include "hyperplan/host_cost.h"
#include "hyperplan/plan/simulate.h"
#include "hyperplan/plan/verify.h"
#include "hyperplan/routing.h"
#include "hyperplan/routing_samples.h"
#include "hyperplan/units.h"

namespace hyperplan {
namespace {

// One MoE node's step in the plan: its unit, planned time and roofline at the expectation.
struct MoeStep {
  MoeRouting routing;
  ComputeUnit unit = ComputeUnit::kDevice;
  int64_t planned_ns = 0;
  int64_t expected_roofline_ns = 0;
};

std::vector<MoeStep> MoeStepsOf(const Graph& graph, const HardwareProfile& profile,
                                const Plan& plan) {
  std::vector<ComputeUnit> unit_of(graph.nodes.size(), ComputeUnit::kDevice);
  for (const PlanStep& step : plan.steps) {
    if (step.kind == StepKind::kCompute && step.node >= 0) unit_of[step.node] = step.unit;
  }
  std::vector<MoeStep> steps;
  for (MoeRouting& routing : FindMoeRoutings(graph)) {
    const NodeId node = routing.node;
    if (static_cast<size_t>(node) >= plan.node_time_ns.size()) continue;
    const ComputeUnit unit = unit_of[node];
    const int64_t expected_ns = EstimateNodeCostOn(unit, graph, graph.nodes[node], profile).time_ns;
    steps.push_back({std::move(routing), unit, plan.node_time_ns[node], expected_ns});
  }
  return steps;
}

// The plan's node times under routing number `index`; adds the draws' distinct experts.
void RetimeForRouting(const Graph& graph, const HardwareProfile& profile,
                      const std::vector<MoeStep>& steps, const RoutingSpreadOptions& options,
                      int64_t index, Plan& sample, int64_t& distinct_total) {
  for (const MoeStep& step : steps) {
    const int64_t distinct = SampleDistinctExperts(step.routing, options.seed, index);
    distinct_total += distinct;
    const int64_t sampled_ns =
        MoeNodeCostOn(step.unit, graph, step.routing.node, profile, static_cast<double>(distinct))
            .time_ns;
    sample.node_time_ns[step.routing.node] =
        std::max<int64_t>(0, step.planned_ns + sampled_ns - step.expected_roofline_ns);
  }
}

// Nearest rank: the smallest sample with at least 99% of the samples at or below it.
int64_t Percentile99(std::vector<int64_t> times_ns) {
  std::sort(times_ns.begin(), times_ns.end());
  const size_t rank = (times_ns.size() * 99 + 99) / 100;  // ceil(0.99 n), at least 1
  return times_ns[std::max<size_t>(rank, 1) - 1];
}

}  // namespace

RoutingSpread EvaluateRoutingSpread(const Graph& graph, const HardwareProfile& profile,
                                    const Plan& plan, const NoOffloadReference& reference,
                                    const RoutingSpreadOptions& options) {
  RoutingSpread spread;
  const std::vector<MoeStep> steps = MoeStepsOf(graph, profile, plan);
  if (steps.empty() || options.samples <= 0) return spread;
  spread.seed = options.seed;
  spread.moe_nodes = static_cast<int32_t>(steps.size());
  Plan sample = plan;
  std::vector<int64_t> times_ns;
  int64_t distinct_total = 0;
  for (int32_t index = 0; index < options.samples; ++index) {
    RetimeForRouting(graph, profile, steps, options, index, sample, distinct_total);
    const PlanEvaluation evaluation = EvaluatePlan(graph, profile, sample, reference);
    times_ns.push_back(evaluation.timeline.makespan_ns);
    if (spread.failed_sample < 0) {
      const VerifyResult verified = VerifyPlan(graph, profile, sample, evaluation);
      if (!verified.ok) {
        spread.failed_sample = index;
        spread.failure = verified.message;
      }
    }
  }
  spread.samples = options.samples;
  int64_t sum_ns = 0;
  for (int64_t t : times_ns) sum_ns += t;
  spread.mean_ns = sum_ns / spread.samples;
  spread.p99_ns = Percentile99(times_ns);
  spread.max_ns = *std::max_element(times_ns.begin(), times_ns.end());
  spread.mean_distinct_experts = static_cast<double>(distinct_total) /
                                 (static_cast<double>(spread.samples) * spread.moe_nodes);
  return spread;
}

std::string DescribeRoutingSpread(const RoutingSpread& spread) {
  if (spread.samples == 0) return "";
  std::string text = fmt::format(
      "{} sampled routings (seed {}): mean {}, p99 {}, {:.1f} distinct experts per MoE node; ",
      spread.samples, spread.seed, FormatDuration(spread.mean_ns), FormatDuration(spread.p99_ns),
      spread.mean_distinct_experts);
  if (spread.failed_sample < 0) return text + "the plan verifies under each";
  return text + fmt::format("the plan fails to verify under routing {}: {}", spread.failed_sample,
                            spread.failure);
}

}  // namespace hyperplan
