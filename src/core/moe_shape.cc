// MoE / QMoE operands (see moe_shape.h).
#include "moe_shape.h"

#include <algorithm>

#include "cost_rules.h"
#include "hyperplan/routing.h"

namespace hyperplan::cost_rules {

namespace {

constexpr size_t kFirstExpertOperand = 2;  // fc1_experts_weights

// Elements one expert's slice of a stacked [E, ...] operand holds.
int64_t ElementsPerExpert(const Value& value) {
  if (value.shape.empty() || value.shape[0] <= 0) return 0;
  return Elements(value) / value.shape[0];
}

// Weights packed per stored element: 8 / expert_weight_bits for QMoE (default 4 bits).
int64_t PackedWeights(const Node& node) {
  if (node.op_type != "QMoE") return 1;
  const int64_t bits = IntAttribute(node, "expert_weight_bits", 4);
  return bits > 0 && bits < 8 ? 8 / bits : 1;
}

// Multiply-adds per token per expert: the rank-3 operands of fc1's element type holding at
// least a quarter of fc1's elements are the weight matrices (see the header).
int64_t WeightsPerExpert(const Graph& graph, const Node& node, const Value& fc1) {
  const int64_t fc1_elements = ElementsPerExpert(fc1);
  int64_t stored = 0;
  for (size_t i = kFirstExpertOperand; i < node.inputs.size(); ++i) {
    const Value* operand = InputValue(graph, node, i);
    if (operand == nullptr || operand->shape.size() != 3 || operand->dtype != fc1.dtype) continue;
    const int64_t elements = ElementsPerExpert(*operand);
    if (4 * elements >= fc1_elements) stored += elements;
  }
  return stored * PackedWeights(node);
}

}  // namespace

std::optional<MoeShape> DescribeMoe(const Graph& graph, const Node& node) {
  if (!IsMoeOp(node)) return std::nullopt;
  const Value* input = InputValue(graph, node, 0);
  const Value* router = InputValue(graph, node, 1);
  const Value* fc1 = InputValue(graph, node, kFirstExpertOperand);
  const Value* output = OutputValue(graph, node, 0);
  if (input == nullptr || router == nullptr || fc1 == nullptr || output == nullptr ||
      input->shape.empty() || fc1->shape.size() != 3 || fc1->shape[0] <= 0) {
    return std::nullopt;
  }
  MoeShape shape;
  shape.tokens = Elements(*input) / std::max<int64_t>(1, input->shape.back());
  shape.experts = fc1->shape[0];
  shape.experts_per_token = std::clamp<int64_t>(IntAttribute(node, "k", 1), 1, shape.experts);
  shape.weights_per_expert = WeightsPerExpert(graph, node, *fc1);
  shape.activation_bytes = input->bytes + router->bytes + output->bytes;
  for (size_t i = kFirstExpertOperand; i < node.inputs.size(); ++i) {
    shape.expert_bytes += graph.values[node.inputs[i]].bytes;
  }
  return shape;
}

int64_t RoutedMoeBytes(const MoeShape& shape, double distinct) {
  return shape.activation_bytes + RoutedBytes(shape.expert_bytes, shape.experts, distinct);
}

}  // namespace hyperplan::cost_rules
