// Device memory before and after (see device_memory.h).
#include "report/device_memory.h"

#include <algorithm>
#include <tuple>

#include "hyperplan/loop.h"

namespace hyperplan::report {
namespace {

void SortShares(PeakComposition& peak) {
  std::sort(peak.shares.begin(), peak.shares.end(), [](const PeakShare& a, const PeakShare& b) {
    return std::tie(b.bytes, a.value, a.scratch_node) < std::tie(a.bytes, b.value, b.scratch_node);
  });
  peak.shares_bytes = 0;
  for (const PeakShare& share : peak.shares) peak.shares_bytes += share.bytes;
}

int64_t NodeTimeNs(const Plan& plan, NodeId node) {
  if (node < 0 || static_cast<size_t>(node) >= plan.node_time_ns.size()) return 0;
  return plan.node_time_ns[node];
}

}  // namespace

namespace {

BaselineMemory DescribeBaselineOn(const Graph& graph, const Plan& plan) {
  const LifetimeAnalysis analysis = AnalyzeLifetimes(graph, ModelOrder(graph));
  BaselineMemory baseline;
  const auto& live = analysis.timeline.live_bytes_per_step;
  std::vector<int64_t> step_start_ns(analysis.order.size(), 0);
  int64_t now_ns = 0;
  for (size_t k = 0; k < analysis.order.size(); ++k) {
    step_start_ns[k] = now_ns;
    baseline.curve.push_back({now_ns, k < live.size() ? live[k] : 0});
    now_ns += NodeTimeNs(plan, analysis.order[k]);
  }
  baseline.makespan_ns = now_ns;
  baseline.curve.push_back({now_ns, 0});

  PeakComposition& peak = baseline.peak;
  peak.bytes = analysis.timeline.peak_bytes;
  if (analysis.order.empty()) return baseline;
  peak.step = analysis.timeline.peak_step;
  peak.node = analysis.order[peak.step];
  peak.time_ns = step_start_ns[peak.step];
  int64_t values_bytes = 0;
  for (ValueId value : LiveValuesAt(graph, analysis, peak.step)) {
    peak.shares.push_back({value, kNoNode, graph.values[value].bytes});
    values_bytes += graph.values[value].bytes;
  }
  // The rest of the step's live bytes is the running node's body scratch (control flow).
  const int64_t scratch_bytes = graph.nodes[peak.node].subgraph_peak_bytes;
  if (scratch_bytes > 0 && values_bytes + scratch_bytes <= peak.bytes) {
    peak.shares.push_back({kNoValue, peak.node, scratch_bytes});
  }
  SortShares(peak);
  return baseline;
}

}  // namespace

BaselineMemory DescribeBaseline(const Graph& graph, const Plan& plan) {
  // The planner measures its no-offload reference on the graph one iteration sees.
  if (plan.periodic) return DescribeBaselineOn(LoopGraph(graph, plan.aliases), plan);
  return DescribeBaselineOn(graph, plan);
}

PeakComposition DescribePlanPeak(const HardwareProfile& profile, const Plan& plan,
                                 const PlanEvaluation& evaluation) {
  PeakComposition peak;
  const auto device = static_cast<size_t>(profile.device_tier);
  if (device >= evaluation.timeline.bytes_per_tier.size()) return peak;
  const std::vector<TierUsagePoint>& curve = evaluation.timeline.bytes_per_tier[device];
  if (curve.empty()) return peak;
  const auto first_max = std::max_element(
      curve.begin(), curve.end(),
      [](const TierUsagePoint& a, const TierUsagePoint& b) { return a.bytes < b.bytes; });
  peak.time_ns = first_max->time_ns;
  peak.bytes = first_max->bytes;

  const auto& timing = evaluation.timeline.steps;
  auto open_ns = [&](int32_t step) {
    return step < 0 || static_cast<size_t>(step) >= timing.size() ? 0 : timing[step].start_ns;
  };
  auto close_ns = [&](int32_t step) {
    return step < 0 || static_cast<size_t>(step) >= timing.size() ? evaluation.timeline.makespan_ns
                                                                  : timing[step].end_ns;
  };
  for (const ResidentInterval& interval : plan.residency) {
    if (interval.bytes <= 0) continue;
    const int64_t alloc_ns = open_ns(interval.opened_by);
    const int64_t free_ns = close_ns(interval.closed_by);
    const bool zero_length_here = free_ns <= alloc_ns && alloc_ns == peak.time_ns;
    if (alloc_ns <= peak.time_ns && (peak.time_ns < free_ns || zero_length_here)) {
      peak.shares.push_back({interval.value, interval.scratch_node, interval.bytes});
    }
  }
  SortShares(peak);

  // The compute step at the peak: the last one started at or before it.
  for (size_t i = 0; i < plan.steps.size() && i < timing.size(); ++i) {
    if (plan.steps[i].kind != StepKind::kCompute) continue;
    if (timing[i].start_ns > peak.time_ns) break;
    peak.step = plan.steps[i].boundary;
    peak.node = plan.steps[i].node;
  }
  return peak;
}

}  // namespace hyperplan::report
