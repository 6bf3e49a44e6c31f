// Control-flow body summaries and trip counts (see control_flow.h).
#include "onnx/control_flow.h"

#include <onnx/defs/tensor_proto_util.h>

#include <algorithm>
#include <limits>

#include "hyperplan/cost.h"
#include "hyperplan/lifetimes.h"

namespace hyperplan::onnx_import {
namespace {

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<int64_t>::max() : sum;
}

int64_t SaturatingMultiply(int64_t a, int64_t b) {
  int64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<int64_t>::max() : product;
}

std::optional<int64_t> ScalarContents(const onnx::TensorProto& tensor) {
  try {
    if (tensor.data_type() == onnx::TensorProto::INT64) {
      const std::vector<int64_t> values = onnx::ParseData<int64_t>(&tensor);
      if (values.size() == 1) return values[0];
    } else if (tensor.data_type() == onnx::TensorProto::INT32) {
      const std::vector<int32_t> values = onnx::ParseData<int32_t>(&tensor);
      if (values.size() == 1) return values[0];
    }
  } catch (const std::exception&) {
    // External or malformed contents: not known statically.
  }
  return std::nullopt;
}

// Loop's first input M is the maximum trip count; only a constant one is known statically.
std::optional<int64_t> LoopTripCount(const GraphScope& scope, const ScopeNode& node) {
  if (node.inputs.empty() || node.inputs[0] == kNoSlot) return std::nullopt;
  const Slot& m = scope.slots()[node.inputs[0]];
  std::optional<int64_t> trips;
  if (m.constant != nullptr) {
    trips = ScalarContents(*m.constant);
  } else if (m.data != nullptr && m.data->dim_size() == 1 && m.data->dim(0).has_dim_value()) {
    trips = m.data->dim(0).dim_value();
  }
  if (trips && *trips < 0) return std::nullopt;
  return trips;
}

// Scan iterates over the scanned axis of its scan inputs (the last num_scan_inputs inputs):
// axis 1 in opset 8 (axis 0 is the batch), scan_input_axes[0] (default 0) from opset 9.
std::optional<int64_t> ScanTripCount(const GraphScope& scope, const ScopeNode& node,
                                     int opset_version) {
  int64_t scan_inputs = 0;
  int64_t axis = opset_version < 9 ? 1 : 0;
  for (const onnx::AttributeProto& attribute : node.proto->attribute()) {
    if (attribute.name() == "num_scan_inputs") scan_inputs = attribute.i();
    if (attribute.name() == "scan_input_axes" && attribute.ints_size() > 0 && opset_version >= 9) {
      axis = attribute.ints(0);
    }
  }
  const auto input_count = static_cast<int64_t>(node.inputs.size());
  if (scan_inputs <= 0 || scan_inputs > input_count) return std::nullopt;
  const int32_t first_scan_input = node.inputs[input_count - scan_inputs];
  if (first_scan_input == kNoSlot) return std::nullopt;
  const onnx::TypeProto* type = scope.slots()[first_scan_input].type;
  if (type == nullptr || !type->has_tensor_type() || !type->tensor_type().has_shape()) {
    return std::nullopt;
  }
  const onnx::TensorShapeProto& shape = type->tensor_type().shape();
  if (axis < 0) axis += shape.dim_size();
  if (axis < 0 || axis >= shape.dim_size()) return std::nullopt;
  const auto& dim = shape.dim(static_cast<int>(axis));
  if (!dim.has_dim_value()) return std::nullopt;
  return dim.dim_value();
}

}  // namespace

BodySummary SummariseBody(const Graph& body, const std::vector<ValueId>& captured) {
  BodySummary summary;
  for (const Node& node : body.nodes) {
    summary.flops = SaturatingAdd(summary.flops, NodeFlops(body, node));
    int64_t accessed = node.subgraph_bytes_accessed;
    for (ValueId id : node.inputs) accessed = SaturatingAdd(accessed, body.values[id].bytes);
    for (ValueId id : node.outputs) accessed = SaturatingAdd(accessed, body.values[id].bytes);
    summary.bytes_accessed = SaturatingAdd(summary.bytes_accessed, accessed);
  }
  if (captured.empty()) {
    summary.peak_bytes = AnalyzeLifetimes(body, ModelOrder(body)).timeline.peak_bytes;
  } else {
    Graph resident_elsewhere = body;
    for (ValueId id : captured) resident_elsewhere.values[id].bytes = 0;
    summary.peak_bytes =
        AnalyzeLifetimes(resident_elsewhere, ModelOrder(resident_elsewhere)).timeline.peak_bytes;
  }
  return summary;
}

void ApplyBodySummaries(const GraphScope& scope, const ScopeNode& scope_node,
                        const std::vector<BodySummary>& bodies, Node& node,
                        ImportContext& context) {
  if (bodies.empty()) return;
  const std::string label = scope.where() + NodeLabel(scope_node.name, *scope_node.proto);
  const bool is_default_domain = IsDefaultDomain(node.domain);
  if (is_default_domain && node.op_type == "If") {
    for (const BodySummary& branch : bodies) {
      node.subgraph_peak_bytes = std::max(node.subgraph_peak_bytes, branch.peak_bytes);
      node.subgraph_flops = std::max(node.subgraph_flops, branch.flops);
      node.subgraph_bytes_accessed = std::max(node.subgraph_bytes_accessed, branch.bytes_accessed);
    }
    return;
  }
  std::optional<int64_t> trips;
  const bool iterates = is_default_domain && (node.op_type == "Loop" || node.op_type == "Scan");
  if (iterates) {
    trips = node.op_type == "Loop"
                ? LoopTripCount(scope, scope_node)
                : ScanTripCount(scope, scope_node, context.OpsetVersion(node.domain));
    if (trips) {
      node.int_attributes["trip_count"] = *trips;
    } else {
      context.Warn(label + ": trip count unknown; its body is counted once");
    }
  } else {
    context.Warn(label + ": runs graph attributes a number of times hyperplan cannot tell; " +
                 "each is counted once");
  }
  const int64_t iterations = trips.value_or(1);
  for (const BodySummary& body : bodies) {
    node.subgraph_peak_bytes = std::max(node.subgraph_peak_bytes, body.peak_bytes);
    node.subgraph_flops =
        SaturatingAdd(node.subgraph_flops, SaturatingMultiply(body.flops, iterations));
    node.subgraph_bytes_accessed = SaturatingAdd(
        node.subgraph_bytes_accessed, SaturatingMultiply(body.bytes_accessed, iterations));
  }
}

}  // namespace hyperplan::onnx_import
