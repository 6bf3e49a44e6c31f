// FLOP rules per op type (see cost.h).
//
// Multiply-adds count as two FLOPs, and the rules are deliberately coarse: the planner needs
// each node's time to within tens of percent to decide what a transfer can hide behind, not a
// kernel-accurate prediction.
#include <algorithm>
#include <limits>
#include <string_view>

#include "attention_shape.h"
#include "cost_rules.h"
#include "hyperplan/cost.h"
#include "moe_shape.h"

namespace hyperplan {
namespace {

using cost_rules::Elements;
using cost_rules::InputValue;
using cost_rules::IntAttribute;
using cost_rules::OutputValue;

bool IsNormalisationOp(std::string_view op_type) {
  static constexpr std::string_view kNorms[] = {"LayerNormalization",
                                                "SimplifiedLayerNormalization",
                                                "SkipLayerNormalization",
                                                "SkipSimplifiedLayerNormalization",
                                                "RMSNormalization",
                                                "BatchNormalization",
                                                "InstanceNormalization",
                                                "GroupNormalization",
                                                "Softmax",
                                                "LogSoftmax"};
  return std::find(std::begin(kNorms), std::end(kNorms), op_type) != std::end(kNorms);
}

int64_t OutputElements(const Graph& graph, const Node& node) {
  int64_t elements = 0;
  for (ValueId id : node.outputs) {
    if (graph.values[id].size_known) elements += Elements(graph.values[id]);
  }
  return elements;
}

// 2 * M * N * K for a (batched) matmul whose output is known; K from A's last axis.
int64_t MatMulFlops(const Graph& graph, const Node& node) {
  const Value* a = InputValue(graph, node, 0);
  const Value* out = OutputValue(graph, node, 0);
  if (a == nullptr || out == nullptr || a->shape.empty()) return OutputElements(graph, node);
  return 2 * Elements(*out) * a->shape.back();
}

int64_t GemmFlops(const Graph& graph, const Node& node) {
  const Value* a = InputValue(graph, node, 0);
  const Value* out = OutputValue(graph, node, 0);
  if (a == nullptr || out == nullptr || a->shape.size() != 2) return OutputElements(graph, node);
  const int64_t k = IntAttribute(node, "transA", 0) ? a->shape[0] : a->shape[1];
  const int64_t bias_flops = node.inputs.size() > 2 ? Elements(*out) : 0;
  return 2 * Elements(*out) * k + bias_flops;
}

int64_t MatMulNBitsFlops(const Graph& graph, const Node& node) {
  const Value* out = OutputValue(graph, node, 0);
  if (out == nullptr) return 0;
  return 2 * Elements(*out) * IntAttribute(node, "K", 1);
}

// Every output element accumulates over input channels / group times the kernel window,
// which is exactly the weight tensor's per-output-channel size.
int64_t ConvFlops(const Graph& graph, const Node& node) {
  const Value* weight = InputValue(graph, node, 1);
  const Value* out = OutputValue(graph, node, 0);
  if (weight == nullptr || out == nullptr || weight->shape.empty()) {
    return OutputElements(graph, node);
  }
  return 2 * Elements(*out) * (Elements(*weight) / std::max<int64_t>(1, weight->shape[0]));
}

// (query, key) pairs each sequence's queries attend. Causal: query i of S new ones sees the
// P = keys - S earlier keys and i of the new ones, so S * P + S * (S + 1) / 2 pairs (about half
// of S * keys in a prefill without past); otherwise every query sees every key.
__int128 AttendedPairs(const cost_rules::AttentionShape& shape) {
  const __int128 rows = shape.query_rows;
  const __int128 keys = shape.key_rows;
  if (!shape.causal || rows <= 1) return rows * keys;
  const __int128 past = std::max<__int128>(0, keys - rows);
  return rows * past + rows * (rows + 1) / 2;
}

// Scores (Q K^T) and context (P V): 4 FLOPs per query element per attended key. The packed
// com.microsoft Attention also projects its input through the QKV weight (2 * M * N * K).
int64_t AttentionFlops(const Graph& graph, const Node& node) {
  const std::optional<cost_rules::AttentionShape> shape =
      cost_rules::DescribeAttention(graph, node);
  if (!shape) return OutputElements(graph, node);
  const Value& query = *InputValue(graph, node, 0);
  const __int128 query_elements_per_row = Elements(query) / std::max<int64_t>(1, shape->query_rows);
  __int128 flops = 4 * query_elements_per_row * AttendedPairs(*shape);
  const Value* weights = InputValue(graph, node, 1);
  if (node.domain == "com.microsoft" && node.op_type == "Attention" && weights != nullptr &&
      weights->shape.size() == 2) {
    flops += 2 * static_cast<__int128>(Elements(query)) * weights->shape[1];
  }
  // Saturates: a malformed model's sizes must not overflow.
  return static_cast<int64_t>(std::min<__int128>(flops, std::numeric_limits<int64_t>::max()));
}

// com.microsoft MoE / QMoE: each token runs k experts, 2 FLOPs per weight of each (the router's
// top-k and the weighted sum are a few FLOPs per expert and token, left out).
int64_t MoeFlops(const Graph& graph, const Node& node) {
  const std::optional<cost_rules::MoeShape> shape = cost_rules::DescribeMoe(graph, node);
  if (!shape) return OutputElements(graph, node);
  const __int128 flops = static_cast<__int128>(2) * shape->tokens * shape->experts_per_token *
                         shape->weights_per_expert;
  return static_cast<int64_t>(std::min<__int128>(flops, std::numeric_limits<int64_t>::max()));
}

}  // namespace

int64_t NodeFlops(const Graph& graph, const Node& node) {
  const std::string_view op = node.op_type;
  if (op == "If" || op == "Loop" || op == "Scan") return node.subgraph_flops;
  if (IsViewOp(op)) return 0;
  if (op == "MatMul" || op == "MatMulInteger" || op == "QLinearMatMul" || op == "FusedMatMul") {
    return MatMulFlops(graph, node);
  }
  if (op == "Gemm") return GemmFlops(graph, node);
  if (op == "MatMulNBits") return MatMulNBitsFlops(graph, node);
  if (op == "Conv" || op == "ConvInteger" || op == "QLinearConv") return ConvFlops(graph, node);
  if (cost_rules::IsAttentionOp(op)) return AttentionFlops(graph, node);
  if (cost_rules::IsMoeOp(node)) return MoeFlops(graph, node);
  if (IsNormalisationOp(op)) return 5 * OutputElements(graph, node);
  return OutputElements(graph, node);
}

}  // namespace hyperplan
