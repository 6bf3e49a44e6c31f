// A plan over sampled routings (see routing_spread.h).
#include "hyperplan/plan/routing_spread.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "hyperplan/host_cost.h"
#include "hyperplan/plan/simulate.h"
#include "hyperplan/plan/verify.h"
#include "hyperplan/routed_fetch.h"
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

// A routed Prefetch (fetch-after-route): its step, its MoE node and which experts of its
// operand stay resident (by expert, 1: held by a partial residency).
struct RoutedStep {
  int32_t step = -1;
  NodeId node = kNoNode;
  int64_t slice_bytes = 0;
  std::vector<char> resident;
};

std::vector<RoutedStep> RoutedStepsOf(const Graph& graph, const Plan& plan) {
  std::vector<RoutedStep> routed;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    if (step.routed_by == kNoNode) continue;
    const std::optional<RoutedOperand> operand = RoutedOperandOf(graph, step.routed_by, step.value);
    if (!operand) continue;  // VerifyPlan rejects it
    RoutedStep entry{static_cast<int32_t>(i), step.routed_by, operand->slice_bytes,
                     std::vector<char>(operand->routing.experts, 0)};
    for (const ResidentInterval& block : plan.residency) {
      if (block.value != step.value) continue;
      for (int32_t e : block.experts) {
        if (e >= 0 && e < operand->routing.experts) entry.resident[e] = 1;
      }
    }
    routed.push_back(std::move(entry));
  }
  return routed;
}

// Each routed Prefetch's bytes under the sampled routing: the touched experts not resident.
void ResizeRoutedFetches(const std::vector<RoutedStep>& routed,
                         const std::map<NodeId, std::vector<char>>& touched_by_node, Plan& sample) {
  for (const RoutedStep& entry : routed) {
    const auto touched = touched_by_node.find(entry.node);
    if (touched == touched_by_node.end()) continue;
    int64_t fetched = 0;
    for (size_t e = 0; e < entry.resident.size(); ++e) {
      fetched += touched->second[e] && !entry.resident[e] ? 1 : 0;
    }
    sample.steps[entry.step].bytes = fetched * entry.slice_bytes;
  }
}

// The plan's node times (and routed fetches' bytes) under routing number `index`; adds the
// draws' distinct experts.
void RetimeForRouting(const Graph& graph, const HardwareProfile& profile,
                      const std::vector<MoeStep>& steps, const std::vector<RoutedStep>& routed,
                      const RoutingSpreadOptions& options, int64_t index, Plan& sample,
                      int64_t& distinct_total) {
  std::map<NodeId, std::vector<char>> touched_by_node;
  for (const MoeStep& step : steps) {
    std::vector<char> touched = SampleTouchedExperts(step.routing, options.seed, index);
    const int64_t distinct = std::count(touched.begin(), touched.end(), 1);
    touched_by_node.emplace(step.routing.node, std::move(touched));
    distinct_total += distinct;
    const int64_t sampled_ns =
        MoeNodeCostOn(step.unit, graph, step.routing.node, profile, static_cast<double>(distinct))
            .time_ns;
    sample.node_time_ns[step.routing.node] =
        std::max<int64_t>(0, step.planned_ns + sampled_ns - step.expected_roofline_ns);
  }
  ResizeRoutedFetches(routed, touched_by_node, sample);
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
  const std::vector<RoutedStep> routed = RoutedStepsOf(graph, plan);
  Plan sample = plan;
  std::vector<int64_t> times_ns;
  int64_t distinct_total = 0;
  for (int32_t index = 0; index < options.samples; ++index) {
    RetimeForRouting(graph, profile, steps, routed, options, index, sample, distinct_total);
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
