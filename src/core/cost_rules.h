// Helpers the cost rules share (node_flops.cc, node_bytes.cc): sizes of a node's operands and
// the op families the rules tell apart. Internal to src/core.
#pragma once

#include <cstdint>
#include <string_view>

#include "hyperplan/graph.h"

namespace hyperplan::cost_rules {

inline int64_t Elements(const Value& value) {
  int64_t elements = 1;
  for (int64_t dim : value.shape) elements *= dim;
  return elements;
}

// The operand at `index`, or nullptr when it is absent or of unknown size.
inline const Value* InputValue(const Graph& graph, const Node& node, size_t index) {
  if (index >= node.inputs.size()) return nullptr;
  const Value& value = graph.values[node.inputs[index]];
  return value.size_known ? &value : nullptr;
}

// Input `position` of a fused attention node as its op schema numbers them: through the
// importer's "input_positions" bitmask where the node omitted an earlier input (Node::inputs
// leaves omitted inputs out), else the plain index. Null when omitted or of unknown size.
inline const Value* AttentionInput(const Graph& graph, const Node& node, size_t position) {
  const auto it = node.int_attributes.find("input_positions");
  if (it == node.int_attributes.end()) return InputValue(graph, node, position);
  const uint64_t mask = static_cast<uint64_t>(it->second);
  if (position >= 63 || ((mask >> position) & 1) == 0) return nullptr;
  const uint64_t before = mask & ((uint64_t{1} << position) - 1);
  return InputValue(graph, node, static_cast<size_t>(__builtin_popcountll(before)));
}

inline const Value* OutputValue(const Graph& graph, const Node& node, size_t index) {
  if (index >= node.outputs.size()) return nullptr;
  const Value& value = graph.values[node.outputs[index]];
  return value.size_known ? &value : nullptr;
}

inline int64_t IntAttribute(const Node& node, std::string_view name, int64_t fallback) {
  auto it = node.int_attributes.find(name);
  return it == node.int_attributes.end() ? fallback : it->second;
}

// GroupQueryAttention, MultiHeadAttention, com.microsoft Attention, opset-23 Attention.
inline bool IsAttentionOp(std::string_view op_type) {
  return op_type == "GroupQueryAttention" || op_type == "MultiHeadAttention" ||
         op_type == "Attention";
}

// The tokens a query tensor carries per sequence: [B, S, hidden] or [B, heads, S, head_dim].
inline int64_t QueryRows(const Value& query) {
  if (query.shape.size() == 4) return query.shape[2];
  return query.shape.size() >= 2 ? query.shape[1] : 1;
}

// A KV cache's sequence axis: [B, heads, T, head_dim], or [2, B, heads, T, head_dim] for the
// combined cache of com.microsoft Attention.
inline int64_t CacheRows(const Value& cache) {
  return cache.shape.size() >= 2 ? cache.shape[cache.shape.size() - 2] : 1;
}

}  // namespace hyperplan::cost_rules
