// Human-readable inspect report (see inspect_text.h).
#include "inspect_text.h"

#include <fmt/format.h>

#include "hyperplan/units.h"

namespace hyperplan::cli {
namespace {

std::string ShapeText(const Value& value) {
  if (!value.size_known) return "?";
  return fmt::format("[{}]", fmt::join(value.shape, ","));
}

std::string DimsText(const Graph& graph) {
  if (graph.bound_dims.empty()) return "(none)";
  std::string text;
  for (const auto& [name, size] : graph.bound_dims) {
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, size);
  }
  return text;
}

}  // namespace

std::string FormatInspectText(const std::string& model_path, const Graph& graph,
                              const HardwareProfile& profile, const InspectReport& report) {
  std::string out;
  auto line = [&out](const std::string& text) { out += text + "\n"; };
  line(fmt::format("model    {} (graph '{}': {} nodes, {} values)", model_path, graph.name,
                   report.node_count, report.value_count));
  line(fmt::format("profile  {} [{}]", profile.name, profile.source));
  line(fmt::format("dims     {}", DimsText(graph)));
  line("");
  line(fmt::format("  {:<16} {:>9} {:>14}", "class", "values", "bytes"));
  for (int i = 0; i < kValueClassCount; ++i) {
    const ClassTotal& total = report.class_totals[i];
    line(fmt::format("  {:<16} {:>9} {:>14}", ValueClassName(static_cast<ValueClass>(i)),
                     total.count, FormatBytes(total.bytes)));
  }
  line(fmt::format("  {:<16} {:>9} {:>14}", "total", report.value_count,
                   FormatBytes(report.total_bytes)));
  line("");

  if (report.peak_node != kNoNode) {
    const Node& node = graph.nodes[report.peak_node];
    const bool fits = report.peak_bytes <= report.device_capacity_bytes;
    line(fmt::format("no-offload peak  {} at step {} (node '{}', {})",
                     FormatBytes(report.peak_bytes), report.peak_step, node.name, node.op_type));
    line(fmt::format("device capacity  {} ({}): {}", FormatBytes(report.device_capacity_bytes),
                     profile.tiers[profile.device_tier].name,
                     fits ? "fits without offloading"
                          : fmt::format("over by {}", FormatBytes(report.peak_bytes -
                                                                  report.device_capacity_bytes))));
    line("");
    line(fmt::format("largest values live at the peak (top {}):",
                     report.largest_live_at_peak.size()));
    line(fmt::format("  {:>12}  {:<15} {:<9} {:<22} {:>13}  {}", "bytes", "class", "dtype", "shape",
                     "steps", "name"));
    for (const LiveValueSummary& live : report.largest_live_at_peak) {
      const Value& value = graph.values[live.value];
      line(fmt::format("  {:>12}  {:<15} {:<9} {:<22} {:>13}  {}", FormatBytes(value.bytes),
                       ValueClassName(value.value_class), DTypeName(value.dtype), ShapeText(value),
                       fmt::format("{}-{}", live.first_step, live.last_step), value.name));
    }
    line("");
  }

  line(fmt::format("compute  {:.3e} FLOP, {} estimated (roofline, {} launch overhead per node)",
                   static_cast<double>(report.total_flops), FormatDuration(report.total_compute_ns),
                   FormatDuration(profile.compute.kernel_launch_overhead_ns)));
  std::string ops;
  const size_t shown = std::min<size_t>(report.op_type_counts.size(), 12);
  for (size_t i = 0; i < shown; ++i) {
    ops += fmt::format("{}{} {}", i ? ", " : "", report.op_type_counts[i].first,
                       report.op_type_counts[i].second);
  }
  if (shown < report.op_type_counts.size()) {
    ops += fmt::format(", ... ({} op types)", report.op_type_counts.size());
  }
  line(fmt::format("ops      {}", ops));
  if (!report.unknown_size_values.empty()) {
    line(fmt::format("UNKNOWN SIZE: {} values are not counted (see warnings)",
                     report.unknown_size_values.size()));
  }
  return out;
}

}  // namespace hyperplan::cli
