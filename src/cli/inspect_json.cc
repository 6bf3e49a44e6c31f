// Inspect report to JSON via schemas/inspect.proto (see inspect_json.h).
#include "inspect_json.h"

#include "files/proto_bytes.h"
#include "hyperplan/error.h"
#include "schemas/inspect.pb.h"

namespace hyperplan::cli {
namespace {

using Message = hyperplan::inspect::v1::InspectReport;

// What needs no dims: names, counts, op types, class totals of the values that are sized.
void AddCounts(const std::string& model_path, const Graph& graph, const HardwareProfile& profile,
               const InspectReport& report, Message& message) {
  message.set_model(model_path);
  message.set_graph_name(graph.name);
  message.set_profile(profile.name);
  message.set_profile_source(profile.source);
  for (const auto& [name, size] : graph.bound_dims) {
    auto* dim = message.add_bound_dims();
    dim->set_name(name);
    dim->set_value(size);
  }
  message.set_node_count(report.node_count);
  message.set_value_count(report.value_count);
  for (const auto& [op_type, count] : report.op_type_counts) {
    auto* entry = message.add_op_types();
    entry->set_op_type(op_type);
    entry->set_count(count);
  }
  for (int i = 0; i < kValueClassCount; ++i) {
    auto* entry = message.add_classes();
    entry->set_value_class(std::string(ValueClassName(static_cast<ValueClass>(i))));
    entry->set_count(report.class_totals[i].count);
    entry->set_bytes(report.class_totals[i].bytes);
  }
  message.set_total_bytes(report.total_bytes);
  message.set_device_capacity_bytes(report.device_capacity_bytes);
  for (ValueId id : report.unknown_size_values) {
    message.add_unknown_size_values(graph.values[id].name);
  }
  for (const std::string& warning : graph.warnings) message.add_warnings(warning);
  for (const UnboundDim& dim : graph.unbound_dims) {
    auto* entry = message.add_unbound_dims();
    entry->set_name(dim.name);
    entry->set_value_count(dim.value_count);
    for (const std::string& value : dim.values) entry->add_values(value);
  }
}

// What needs every size: the no-offload peak, the values live there, compute, the fit.
void AddSizedFacts(const Graph& graph, const InspectReport& report, Message& message) {
  message.set_sized(true);
  message.set_peak_bytes(report.peak_bytes);
  message.set_peak_step(report.peak_step);
  if (report.peak_node != kNoNode) {
    message.set_peak_node(graph.nodes[report.peak_node].name);
    message.set_peak_op_type(graph.nodes[report.peak_node].op_type);
  }
  for (const LiveValueSummary& live : report.largest_live_at_peak) {
    const Value& value = graph.values[live.value];
    auto* entry = message.add_largest_live_at_peak();
    entry->set_name(value.name);
    entry->set_value_class(std::string(ValueClassName(value.value_class)));
    entry->set_dtype(std::string(DTypeName(value.dtype)));
    for (int64_t dim : value.shape) entry->add_shape(dim);
    entry->set_bytes(value.bytes);
    entry->set_first_step(live.first_step);
    entry->set_last_step(live.last_step);
    if (value.producer != kNoNode) entry->set_producer(graph.nodes[value.producer].name);
  }
  message.set_total_flops(report.total_flops);
  message.set_total_compute_ns(report.total_compute_ns);
  message.set_fits_on_device(report.peak_bytes <= report.device_capacity_bytes);
}

}  // namespace

std::string FormatInspectJson(const std::string& model_path, const Graph& graph,
                              const HardwareProfile& profile, const InspectReport& report) {
  Message message;
  AddCounts(model_path, graph, profile, report, message);
  if (graph.unbound_dims.empty()) AddSizedFacts(graph, report, message);
  return files::JsonText(message, /*pretty=*/true, "the inspect report");
}

}  // namespace hyperplan::cli
