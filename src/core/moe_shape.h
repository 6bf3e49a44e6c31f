// What a com.microsoft MoE or QMoE node computes and reads (ONNX Runtime's ContribOperators.md):
// input [tokens, hidden] or [batch, sequence, hidden], router_probs [tokens, E], then stacked
// expert tensors whose first axis is the expert: fc1 [E, fusion * inter, hidden / pack],
// fc2 [E, hidden, inter / pack], optional fc3 [E, inter, hidden / pack], their optional biases
// [E, ...], and for QMoE the scales and zero points [E, ...]. Each token runs its top k
// (attribute "k") experts; QMoE packs 8 / expert_weight_bits weights per uint8.
// Importers drop omitted optional inputs, so an operand's position does not name it beyond the
// first three; the rules tell the weight matrices apart by size: a weight holds at least a
// quarter of fc1's elements (fc2 and fc3 hold half of a fused fc1), a scale or zero point at
// most 1/16 of its weight (block sizes are at least 16), and a bias one row. Shared by the FLOP
// and byte rules. Internal to src/core. Cost: O(inputs) per node.
#pragma once

#include <cstdint>
#include <optional>

#include "hyperplan/graph.h"

namespace hyperplan::cost_rules {

struct MoeShape {
  int64_t tokens = 0;              // rows of the input: batch * sequence
  int64_t experts = 0;             // E, fc1's first axis
  int64_t experts_per_token = 1;   // k
  int64_t weights_per_expert = 0;  // multiply-adds one token costs in one expert
  int64_t expert_bytes = 0;        // every stacked [E, ...] operand, all experts
  int64_t activation_bytes = 0;    // input, router_probs and the output
};

inline bool IsMoeOp(const Node& node) {
  return node.domain == "com.microsoft" && (node.op_type == "MoE" || node.op_type == "QMoE");
}

// The node's shape, or nullopt when it is not MoE/QMoE or the sizes are unknown.
std::optional<MoeShape> DescribeMoe(const Graph& graph, const Node& node);

// Bytes the node reads and writes when its tokens touch `distinct` experts: the activations
// plus that share of the stacked expert operands (routing.h RoutedBytes).
int64_t RoutedMoeBytes(const MoeShape& shape, double distinct);

}  // namespace hyperplan::cost_rules
