// Weight decode chains (see weight_decode.h).
#include "weight_decode.h"

namespace hyperplan::cost_rules {

namespace {

constexpr int kMaxDepth = 32;  // chains are a dozen nodes; deeper is not a decode chain

bool IsMatMulB(const Node& consumer, ValueId value) {
  return (consumer.op_type == "MatMul" || consumer.op_type == "Gemm") &&
         consumer.inputs.size() >= 2 && consumer.inputs[1] == value && consumer.inputs[0] != value;
}

// Derived from initializers only (a Gather's indices excepted), within `depth` producers.
bool FromWeightsOnly(const Graph& graph, ValueId id, int depth) {
  const Value& value = graph.values[static_cast<size_t>(id)];
  if (value.is_initializer) return true;
  if (value.producer == kNoNode || depth > kMaxDepth) return false;
  const Node& node = graph.nodes[static_cast<size_t>(value.producer)];
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.op_type == "Gather" && i == 1) continue;  // which rows, not what they hold
    if (!FromWeightsOnly(graph, node.inputs[i], depth + 1)) return false;
  }
  return !node.inputs.empty();
}

// Every consumer reads it as a MatMul's B, or decodes it further for one.
bool OnlyDecodedForMatMul(const Graph& graph, ValueId id, int depth) {
  const Value& value = graph.values[static_cast<size_t>(id)];
  if (value.consumers.empty() || value.is_graph_output || depth > kMaxDepth) return false;
  for (NodeId consumer_id : value.consumers) {
    const Node& consumer = graph.nodes[static_cast<size_t>(consumer_id)];
    if (IsMatMulB(consumer, id)) continue;
    if (consumer.op_type == "Gather" && consumer.inputs.size() > 1 && consumer.inputs[1] == id) {
      // Decoded codes as a lookup table's indices: the table is what the chain carries on.
    } else if (consumer.outputs.size() != 1) {
      return false;
    }
    for (ValueId out : consumer.outputs)
      if (!FromWeightsOnly(graph, out, 0) || !OnlyDecodedForMatMul(graph, out, depth + 1))
        return false;
  }
  return true;
}

}  // namespace

bool IsDecodedWeight(const Graph& graph, ValueId id) {
  const Value& value = graph.values[static_cast<size_t>(id)];
  if (value.is_initializer || value.producer == kNoNode) return false;
  return FromWeightsOnly(graph, id, 0) && OnlyDecodedForMatMul(graph, id, 0);
}

bool IsWeightDecodeNode(const Graph& graph, const Node& node) {
  if (node.outputs.size() != 1) return false;
  return IsDecodedWeight(graph, node.outputs[0]);
}

}  // namespace hyperplan::cost_rules
