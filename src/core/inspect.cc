// The inspect report (see inspect.h).
#include "hyperplan/inspect.h"

#include <algorithm>
#include <map>

#include "hyperplan/cost.h"

namespace hyperplan {

InspectReport BuildInspectReport(const Graph& graph, const HardwareProfile& profile,
                                 int top_count) {
  InspectReport report;
  report.node_count = static_cast<int64_t>(graph.nodes.size());
  report.value_count = static_cast<int64_t>(graph.values.size());

  std::map<std::string, int64_t> op_counts;
  for (const Node& node : graph.nodes) {
    ++op_counts[node.domain.empty() ? node.op_type : node.domain + "::" + node.op_type];
  }
  report.op_type_counts.assign(op_counts.begin(), op_counts.end());
  std::stable_sort(report.op_type_counts.begin(), report.op_type_counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });

  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    ClassTotal& total = report.class_totals[static_cast<size_t>(value.value_class)];
    ++total.count;
    total.bytes += value.bytes;
    report.total_bytes += value.bytes;
    if (!value.size_known) report.unknown_size_values.push_back(static_cast<ValueId>(id));
  }

  const LifetimeAnalysis analysis = AnalyzeLifetimes(graph, ModelOrder(graph));
  report.peak_bytes = analysis.timeline.peak_bytes;
  report.peak_step = analysis.timeline.peak_step;
  if (!graph.nodes.empty()) {
    report.peak_node = analysis.order[report.peak_step];
    for (ValueId id : LiveValuesAt(graph, analysis, report.peak_step)) {
      if (static_cast<int>(report.largest_live_at_peak.size()) >= top_count) break;
      const Lifetime& lifetime = analysis.lifetimes[id];
      report.largest_live_at_peak.push_back(
          {id, lifetime.baseline_first_step, lifetime.baseline_last_step});
    }
  }

  for (const NodeCost& cost : EstimateCosts(graph, profile)) {
    report.total_flops += cost.flops;
    report.total_compute_ns += cost.time_ns;
  }
  if (profile.device_tier != kNoTier) {
    report.device_capacity_bytes = profile.tiers[profile.device_tier].capacity_bytes;
  }
  return report;
}

}  // namespace hyperplan
