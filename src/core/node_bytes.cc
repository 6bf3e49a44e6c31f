// Byte rules per op type: what a node's kernel reads and writes (see cost.h).
//
// A generic node reads each input and writes each output. On a loop graph an input its node
// updates in place (`written_by`) is read as it stood before the update (an append leaves the
// grown part unread) and written only where the update changes it (`written_bytes`); its
// aliased output has left the node. The op families below read less than their operands.
#include <algorithm>
#include <string_view>

#include "attention_shape.h"
#include "cost_rules.h"
#include "expert_gather.h"
#include "hyperplan/cost.h"
#include "hyperplan/routing.h"
#include "moe_shape.h"
#include "weight_decode.h"

namespace hyperplan {
namespace {

using cost_rules::CacheRows;
using cost_rules::Elements;
using cost_rules::InputValue;
using cost_rules::OutputValue;

NodeId IdOf(const Graph& graph, const Node& node) {
  return static_cast<NodeId>(&node - graph.nodes.data());
}

bool UpdatedInPlaceBy(const Value& value, NodeId node) { return value.written_by == node; }

// Bytes of an input as read: before its in-place append, if this node appends to it.
int64_t ReadBytes(const Value& value, NodeId node) {
  if (UpdatedInPlaceBy(value, node) && value.written_bytes < value.bytes) {
    return value.bytes - value.written_bytes;
  }
  return value.bytes;
}

int64_t OutputBytes(const Graph& graph, const Node& node) {
  int64_t bytes = 0;
  for (ValueId id : node.outputs) bytes += graph.values[id].bytes;
  return bytes;
}

// Every input read (as it stood), every in-place update written, every output written.
// Concat appending in place reads nothing of the buffer it appends to.
int64_t GenericBytes(const Graph& graph, const Node& node) {
  const NodeId self = IdOf(graph, node);
  const bool appends = node.op_type == "Concat";
  int64_t bytes = OutputBytes(graph, node) + node.subgraph_bytes_accessed;
  for (ValueId id : node.inputs) {
    const Value& value = graph.values[id];
    if (!UpdatedInPlaceBy(value, self)) {
      bytes += value.bytes;
      continue;
    }
    bytes += (appends ? 0 : ReadBytes(value, self)) + value.written_bytes;
  }
  return bytes;
}

// Rows of a table [rows, ...] that `tokens` lookups touch, in bytes; a table of another rank
// (already gathered per token) is read whole.
int64_t TableRowsBytes(const Value* table, int64_t tokens) {
  if (table == nullptr) return 0;
  if (table->shape.size() != 2 || table->shape[0] <= 0) return table->bytes;
  const int64_t rows = std::min(table->shape[0], tokens);
  return table->bytes / table->shape[0] * rows;
}

// Batch * sequence tokens of an activation [B, S, hidden] or [B, heads, S, head_dim].
int64_t Tokens(const Value& x) {
  if (x.shape.size() == 4) return x.shape[0] * x.shape[2];
  if (x.shape.size() >= 2) return x.shape[0] * x.shape[1];
  return 1;
}

// An expert Gather of the gather form (expert_gather.h): T tokens of k picks each read the
// distinct experts they touch (routing.h: k for one token, towards E), not T * k slices.
// Returns -1 when the node is not one.
int64_t ExpertGatherReadBytes(const Graph& graph, const Node& node) {
  const std::optional<cost_rules::ExpertGatherShape> shape =
      cost_rules::DescribeExpertGather(graph, node);
  if (!shape) return -1;
  return cost_rules::ExpectedTableReadBytes(graph, *shape);
}

// Gather, GatherElements, GatherND: the rows gathered are read from the table (as many bytes
// as the output; an expert table's distinct experts), the indices read, the output written.
int64_t GatherBytes(const Graph& graph, const Node& node) {
  const Value* indices = InputValue(graph, node, 1);
  const int64_t experts_read = ExpertGatherReadBytes(graph, node);
  const int64_t read = experts_read >= 0 ? experts_read : OutputBytes(graph, node);
  return read + OutputBytes(graph, node) + (indices ? indices->bytes : 0);
}

// RotaryEmbedding reads the cos/sin rows of the positions it rotates: com.microsoft takes
// (input, position_ids, cos, sin), opset 23 (X, cos, sin, position_ids).
int64_t RotaryBytes(const Graph& graph, const Node& node) {
  const Value* x = InputValue(graph, node, 0);
  if (x == nullptr) return GenericBytes(graph, node);
  const bool contrib = node.domain == "com.microsoft";
  const Value* positions = InputValue(graph, node, contrib ? 1 : 3);
  const int64_t tokens = Tokens(*x);
  return x->bytes + (positions ? positions->bytes : 0) + OutputBytes(graph, node) +
         TableRowsBytes(InputValue(graph, node, contrib ? 2 : 1), tokens) +
         TableRowsBytes(InputValue(graph, node, contrib ? 3 : 2), tokens);
}

// ScatterND, ScatterElements, Scatter (data, indices, updates) and TensorScatter (cache,
// update, write_indices): the updates are read and written. The data is updated in place when
// the loop aliases it or nothing else reads it; otherwise it is copied to the output first.
int64_t ScatterBytes(const Graph& graph, const Node& node) {
  const bool tensor_scatter = node.op_type == "TensorScatter";
  const Value* data = InputValue(graph, node, 0);
  const Value* updates = InputValue(graph, node, tensor_scatter ? 1 : 2);
  const Value* indices = InputValue(graph, node, tensor_scatter ? 2 : 1);
  if (data == nullptr || updates == nullptr) return GenericBytes(graph, node);
  const bool in_place =
      UpdatedInPlaceBy(*data, IdOf(graph, node)) ||
      (data->producer != kNoNode && data->consumers.size() == 1 && !data->is_graph_output);
  const int64_t copy_bytes = in_place ? 0 : data->bytes + OutputBytes(graph, node);
  return (indices ? indices->bytes : 0) + 2 * updates->bytes + copy_bytes;
}

// The rows a cache gains this step: present minus past when the cache grows; in a shared
// buffer (the same size before and after) the new tokens' rows; without a past, all of it.
int64_t AppendedBytes(const cost_rules::CacheSlot& slot, int64_t query_rows) {
  if (slot.past == nullptr) return slot.present != nullptr ? slot.present->bytes : 0;
  if (slot.present == nullptr && !slot.in_place) return 0;  // reads a past it does not extend
  const Value& cache = slot.present != nullptr ? *slot.present : *slot.past;
  const int64_t past_bytes = cost_rules::PastBytes(slot);
  if (cache.bytes > past_bytes) return cache.bytes - past_bytes;
  const int64_t rows = std::max<int64_t>(1, CacheRows(cache));
  return cache.bytes / rows * std::min(query_rows, rows);
}

bool IsCacheOrTable(const cost_rules::AttentionShape& shape, const Value* value) {
  for (int c = 0; c < shape.cache_count; ++c) {
    if (value == shape.caches[c].past || value == shape.caches[c].present) return true;
  }
  return value == shape.rotary_tables[0] || value == shape.rotary_tables[1];
}

// Fused attention: its other operands (Q, new K/V, masks, lengths, weights) and outputs, one
// read of each cache as it stood, the appended rows written, and the rotary rows used.
int64_t AttentionBytes(const Graph& graph, const Node& node) {
  const std::optional<cost_rules::AttentionShape> shape =
      cost_rules::DescribeAttention(graph, node);
  if (!shape) return GenericBytes(graph, node);
  int64_t bytes = 0;
  for (ValueId id : node.inputs) {
    if (!IsCacheOrTable(*shape, &graph.values[id])) bytes += graph.values[id].bytes;
  }
  for (ValueId id : node.outputs) {
    if (!IsCacheOrTable(*shape, &graph.values[id])) bytes += graph.values[id].bytes;
  }
  for (int c = 0; c < shape->cache_count; ++c) {
    bytes += cost_rules::PastBytes(shape->caches[c]) +
             AppendedBytes(shape->caches[c], shape->query_rows);
  }
  const int64_t tokens = Tokens(*InputValue(graph, node, 0));
  return bytes + TableRowsBytes(shape->rotary_tables[0], tokens) +
         TableRowsBytes(shape->rotary_tables[1], tokens);
}

// Distinct experts the node's tokens touch: from the graph's routing profile for this node
// when it has one for every expert, else uniform top-k (routing.h).
double DistinctExperts(const Graph& graph, const Node& node, const cost_rules::MoeShape& shape) {
  const auto measured = graph.expert_selection.find(node.name);
  if (measured != graph.expert_selection.end() &&
      static_cast<int64_t>(measured->second.size()) == shape.experts) {
    return ExpectedDistinctExperts(measured->second, shape.tokens);
  }
  return ExpectedDistinctExperts(shape.experts, shape.experts_per_token, shape.tokens);
}

// com.microsoft MoE / QMoE: input, router probabilities and output, plus the stacked expert
// operands (weights, biases, scales, zero points) of the experts the tokens route to, in
// expectation: a decode token reads k experts' slices, not E.
int64_t MoeBytes(const Graph& graph, const Node& node) {
  const std::optional<cost_rules::MoeShape> shape = cost_rules::DescribeMoe(graph, node);
  if (!shape) return GenericBytes(graph, node);
  return cost_rules::RoutedMoeBytes(*shape, DistinctExperts(graph, node, *shape));
}

// A node of a weight decode chain (weight_decode.h), fused into its MatMul: it reads the
// stored bytes it starts from and writes nothing. A Gather reads a lookup table whole when
// decoded codes index it, the routed experts' rows when a router's indices do.
int64_t WeightDecodeBytes(const Graph& graph, const Node& node) {
  int64_t bytes = 0;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Value& input = graph.values[static_cast<size_t>(node.inputs[i])];
    const bool gather = node.op_type == "Gather";
    if (gather && i == 1) {
      if (!cost_rules::IsDecodedWeight(graph, node.inputs[i])) bytes += input.bytes;
    } else if (gather && i == 0 && node.inputs.size() > 1 &&
               !cost_rules::IsDecodedWeight(graph, node.inputs[1])) {
      const int64_t experts = ExpertGatherReadBytes(graph, node);
      bytes += experts >= 0 ? experts : OutputBytes(graph, node);
    } else if (input.is_initializer || !cost_rules::IsDecodedWeight(graph, node.inputs[i])) {
      bytes += input.bytes;  // stored, or widened by a node that wrote it out
    }
  }
  return bytes;
}

// A MatMul or Gemm whose B is a decoded weight does not read B: its chain read the stored
// bytes (a fused kernel widens them in registers).
int64_t ProjectionBytes(const Graph& graph, const Node& node) {
  const int64_t bytes = GenericBytes(graph, node);
  if (node.inputs.size() < 2 || !cost_rules::IsDecodedWeight(graph, node.inputs[1])) return bytes;
  return bytes - graph.values[static_cast<size_t>(node.inputs[1])].bytes;
}

}  // namespace

bool IsViewOp(std::string_view op_type) {
  static constexpr std::string_view kViews[] = {"Reshape", "Squeeze",  "Unsqueeze",
                                                "Flatten", "Identity", "Shape",
                                                "Size",    "Constant", "Dropout"};
  return std::find(std::begin(kViews), std::end(kViews), op_type) != std::end(kViews);
}

int64_t NodeBytes(const Graph& graph, const Node& node) {
  const std::string_view op = node.op_type;
  if (IsViewOp(op)) return 0;
  if (cost_rules::IsWeightDecodeNode(graph, node)) return WeightDecodeBytes(graph, node);
  if (op == "MatMul" || op == "Gemm") return ProjectionBytes(graph, node);
  if (op == "Gather" || op == "GatherElements" || op == "GatherND") {
    return GatherBytes(graph, node);
  }
  if (op == "RotaryEmbedding") return RotaryBytes(graph, node);
  if (op == "ScatterND" || op == "ScatterElements" || op == "Scatter" || op == "TensorScatter") {
    return ScatterBytes(graph, node);
  }
  if (cost_rules::IsAttentionOp(op)) return AttentionBytes(graph, node);
  if (cost_rules::IsMoeOp(node)) return MoeBytes(graph, node);
  return GenericBytes(graph, node);
}

}  // namespace hyperplan
