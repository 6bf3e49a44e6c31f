// Human-readable inspect report (see inspect_text.h).
#include "inspect_text.h"

#include <fmt/format.h>

#include "hyperplan/units.h"

namespace hyperplan::cli {
namespace {

constexpr size_t kOpTypesShown = 12;

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

void Line(std::string& out, const std::string& text) { out += text + "\n"; }

void Header(const std::string& model_path, const Graph& graph, const HardwareProfile& profile,
            const InspectReport& report, std::string& out) {
  Line(out, fmt::format("model    {} (graph '{}': {} nodes, {} values)", model_path, graph.name,
                        report.node_count, report.value_count));
  Line(out, fmt::format("profile  {} [{}]", profile.name, profile.source));
  Line(out, fmt::format("dims     {}", DimsText(graph)));
  Line(out, "");
}

void ClassTable(const InspectReport& report, std::string& out) {
  Line(out, fmt::format("  {:<16} {:>9} {:>14}", "class", "values", "bytes"));
  for (int i = 0; i < kValueClassCount; ++i) {
    const ClassTotal& total = report.class_totals[i];
    Line(out, fmt::format("  {:<16} {:>9} {:>14}", ValueClassName(static_cast<ValueClass>(i)),
                          total.count, FormatBytes(total.bytes)));
  }
  Line(out, fmt::format("  {:<16} {:>9} {:>14}", "total", report.value_count,
                        FormatBytes(report.total_bytes)));
  Line(out, "");
}

void PeakSection(const Graph& graph, const HardwareProfile& profile, const InspectReport& report,
                 std::string& out) {
  if (report.peak_node == kNoNode) return;
  const Node& node = graph.nodes[report.peak_node];
  const bool fits = report.peak_bytes <= report.device_capacity_bytes;
  Line(out, fmt::format("no-offload peak  {} at step {} (node '{}', {})",
                        FormatBytes(report.peak_bytes), report.peak_step, node.name, node.op_type));
  Line(out, fmt::format(
                "device capacity  {} ({}): {}", FormatBytes(report.device_capacity_bytes),
                profile.tiers[profile.device_tier].name,
                fits ? "fits without offloading"
                     : fmt::format("over by {}",
                                   FormatBytes(report.peak_bytes - report.device_capacity_bytes))));
  Line(out, "");
  Line(out, fmt::format("largest values live at the peak (top {}):",
                        report.largest_live_at_peak.size()));
  Line(out, fmt::format("  {:>12}  {:<15} {:<9} {:<22} {:>13}  {}", "bytes", "class", "dtype",
                        "shape", "steps", "name"));
  for (const LiveValueSummary& live : report.largest_live_at_peak) {
    const Value& value = graph.values[live.value];
    Line(out,
         fmt::format("  {:>12}  {:<15} {:<9} {:<22} {:>13}  {}", FormatBytes(value.bytes),
                     ValueClassName(value.value_class), DTypeName(value.dtype), ShapeText(value),
                     fmt::format("{}-{}", live.first_step, live.last_step), value.name));
  }
  Line(out, "");
}

void OpsLine(const InspectReport& report, std::string& out) {
  std::string ops;
  const size_t shown = std::min(report.op_type_counts.size(), kOpTypesShown);
  for (size_t i = 0; i < shown; ++i) {
    ops += fmt::format("{}{} {}", i ? ", " : "", report.op_type_counts[i].first,
                       report.op_type_counts[i].second);
  }
  if (shown < report.op_type_counts.size()) {
    ops += fmt::format(", ... ({} op types)", report.op_type_counts.size());
  }
  Line(out, fmt::format("ops      {}", ops));
}

// Without every dim, what is known: counts, the bytes of values sized without them (weights
// always are), and each dim still to bind with the values whose sizes it decides.
void DimsToBind(const Graph& graph, const InspectReport& report, std::string& out) {
  Line(out, fmt::format("UNKNOWN SIZE: {} values depend on unbound dims and are not counted above",
                        report.unknown_size_values.size()));
  Line(out, "");
  Line(out, fmt::format("dims to bind ({}): bind each with --dim NAME=VALUE; the peak, the "
                        "timeline and the compute time need them",
                        graph.unbound_dims.size()));
  for (const UnboundDim& dim : graph.unbound_dims) {
    std::string values;
    for (const std::string& name : dim.values)
      values += (values.empty() ? "'" : ", '") + name + "'";
    const auto named = static_cast<int64_t>(dim.values.size());
    if (dim.value_count > named) values += fmt::format(" and {} more", dim.value_count - named);
    Line(out, fmt::format("  {:<20} decides the size of {} {}: {}", dim.name, dim.value_count,
                          dim.value_count == 1 ? "value" : "values", values));
  }
}

}  // namespace

std::string FormatInspectText(const std::string& model_path, const Graph& graph,
                              const HardwareProfile& profile, const InspectReport& report) {
  std::string out;
  Header(model_path, graph, profile, report, out);
  ClassTable(report, out);
  if (!graph.unbound_dims.empty()) {
    OpsLine(report, out);
    DimsToBind(graph, report, out);
    return out;
  }
  PeakSection(graph, profile, report, out);
  Line(out,
       fmt::format("compute  {:.3e} FLOP, {} estimated (roofline, {} per kernel launched {})",
                   static_cast<double>(report.total_flops), FormatDuration(report.total_compute_ns),
                   FormatDuration(profile.compute.LaunchOverheadNs()),
                   profile.compute.launch_mode == LaunchMode::kGraph ? "from a captured graph"
                                                                     : "eagerly"));
  OpsLine(report, out);
  if (!report.unknown_size_values.empty()) {
    Line(out, fmt::format("UNKNOWN SIZE: {} values are not counted (see warnings)",
                          report.unknown_size_values.size()));
  }
  return out;
}

}  // namespace hyperplan::cli
