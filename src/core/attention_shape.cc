// Attention operand positions (see attention_shape.h).
//
// Input positions follow the op schemas (mapped through the importer's "input_positions" where
// a node omits an input before a later one): GroupQueryAttention (com.microsoft) past_key 3,
// past_value 4, cos_cache 7, sin_cache 8, always causal; MultiHeadAttention past_key 6,
// past_value 7, causal with `unidirectional`; com.microsoft Attention one combined past at 4,
// causal with `unidirectional`; opset-23 Attention past_key 4, past_value 5, causal with
// `is_causal`. Present caches are outputs 1 and 2 (1 for the combined one). A quantized
// GroupQueryAttention cache (int8, float8, packed 4-bit) is sized by its own element type, and
// its k_scale / v_scale (inputs 12, 13) are read whole like the other operands.
#include "attention_shape.h"

#include "cost_rules.h"

namespace hyperplan::cost_rules {
namespace {

struct Positions {
  size_t past[2];
  size_t present[2];
  int count;
  bool causal;
};

Positions PositionsOf(const Node& node) {
  if (node.op_type == "GroupQueryAttention") return {{3, 4}, {1, 2}, 2, true};
  const bool unidirectional = IntAttribute(node, "unidirectional", 0) != 0;
  if (node.op_type == "MultiHeadAttention") return {{6, 7}, {1, 2}, 2, unidirectional};
  if (node.domain == "com.microsoft") return {{4, 0}, {1, 0}, 1, unidirectional};
  return {{4, 5}, {1, 2}, 2, IntAttribute(node, "is_causal", 0) != 0};
}

NodeId IdOf(const Graph& graph, const Node& node) {
  return static_cast<NodeId>(&node - graph.nodes.data());
}

// Total keys from the first cache: a present output says it; an in-place buffer that grew
// holds past plus new; a shared buffer (same size before and after) is attended whole.
int64_t KeyRows(const CacheSlot& slot, int64_t query_rows) {
  if (slot.present != nullptr && slot.present->shape.size() >= 4) return CacheRows(*slot.present);
  if (slot.past == nullptr || slot.past->shape.size() < 4) return 0;
  const int64_t past_rows = CacheRows(*slot.past);
  if (!slot.in_place) return past_rows + query_rows;
  const int64_t past_bytes = PastBytes(slot);
  if (past_bytes <= 0 || past_bytes == slot.past->bytes) return past_rows;
  return past_rows * slot.past->bytes / past_bytes;
}

// Keys without a cache: the key input's sequence axis (not for com.microsoft Attention, whose
// input 1 is the projection weight), else the query's own length (self-attention, packed QKV).
int64_t KeyRowsWithoutCache(const Graph& graph, const Node& node, int64_t query_rows) {
  const bool packed_weights = node.op_type == "Attention" && node.domain == "com.microsoft";
  const Value* key = packed_weights ? nullptr : AttentionInput(graph, node, 1);
  if (key != nullptr && key->shape.size() == 4) return key->shape[2];
  if (key != nullptr && key->shape.size() == 3) return key->shape[1];
  return query_rows;
}

}  // namespace

int64_t PastBytes(const CacheSlot& slot) {
  if (slot.past == nullptr) return 0;
  const bool grew = slot.in_place && slot.past->written_bytes < slot.past->bytes;
  return grew ? slot.past->bytes - slot.past->written_bytes : slot.past->bytes;
}

std::optional<AttentionShape> DescribeAttention(const Graph& graph, const Node& node) {
  const Value* query = InputValue(graph, node, 0);
  if (!IsAttentionOp(node.op_type) || query == nullptr || query->shape.size() < 3) {
    return std::nullopt;
  }
  const Positions positions = PositionsOf(node);
  AttentionShape shape;
  shape.cache_count = positions.count;
  shape.causal = positions.causal;
  shape.query_rows = QueryRows(*query);
  const NodeId id = IdOf(graph, node);
  for (int c = 0; c < positions.count; ++c) {
    CacheSlot& slot = shape.caches[c];
    slot.past = AttentionInput(graph, node, positions.past[c]);
    slot.present = OutputValue(graph, node, positions.present[c]);
    slot.in_place = slot.past != nullptr && slot.past->written_by == id;
  }
  shape.key_rows = KeyRows(shape.caches[0], shape.query_rows);
  if (shape.key_rows <= 0) shape.key_rows = KeyRowsWithoutCache(graph, node, shape.query_rows);
  if (node.op_type == "GroupQueryAttention") {
    shape.rotary_tables[0] = AttentionInput(graph, node, 7);
    shape.rotary_tables[1] = AttentionInput(graph, node, 8);
  }
  return shape;
}

}  // namespace hyperplan::cost_rules
