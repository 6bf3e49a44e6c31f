// Roofline cost model (see cost.h).
//
// The FLOP rules count multiply-adds as two FLOPs and are deliberately coarse: the planner
// needs each node's time to within tens of percent to decide what a transfer can hide behind,
// not a kernel-accurate prediction.
#include "hyperplan/cost.h"

#include <algorithm>
#include <limits>
#include <string_view>

#include "hyperplan/attention_pattern.h"

namespace hyperplan {
namespace {

int64_t Elements(const Value& value) {
  int64_t elements = 1;
  for (int64_t dim : value.shape) elements *= dim;
  return elements;
}

// Ops that runtimes implement as views or metadata: no arithmetic, no traffic worth counting.
bool IsViewOp(std::string_view op_type) {
  static constexpr std::string_view kViews[] = {"Reshape", "Squeeze",  "Unsqueeze",
                                                "Flatten", "Identity", "Shape",
                                                "Size",    "Constant", "Dropout"};
  return std::find(std::begin(kViews), std::end(kViews), op_type) != std::end(kViews);
}

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

bool IsAttentionOp(std::string_view op_type) {
  return op_type == "GroupQueryAttention" || op_type == "MultiHeadAttention" ||
         op_type == "Attention";
}

const Value* InputValue(const Graph& graph, const Node& node, size_t index) {
  if (index >= node.inputs.size()) return nullptr;
  const Value& value = graph.values[node.inputs[index]];
  return value.size_known ? &value : nullptr;
}

const Value* OutputValue(const Graph& graph, const Node& node, size_t index) {
  if (index >= node.outputs.size()) return nullptr;
  const Value& value = graph.values[node.outputs[index]];
  return value.size_known ? &value : nullptr;
}

int64_t OutputElements(const Graph& graph, const Node& node) {
  int64_t elements = 0;
  for (ValueId id : node.outputs) {
    if (graph.values[id].size_known) elements += Elements(graph.values[id]);
  }
  return elements;
}

int64_t IntAttribute(const Node& node, std::string_view name, int64_t fallback) {
  auto it = node.int_attributes.find(name);
  return it == node.int_attributes.end() ? fallback : it->second;
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

// Scores (Q K^T) and context (P V) each cost 2 * query elements * key length.
int64_t AttentionFlops(const Graph& graph, const Node& node) {
  const Value* query = InputValue(graph, node, 0);
  if (query == nullptr || query->shape.size() < 3) return OutputElements(graph, node);
  int64_t key_length = 0;
  // A present-key output holds past plus new keys: the full length attended to.
  if (const Value* present_key = OutputValue(graph, node, 1);
      present_key != nullptr && present_key->shape.size() == 4) {
    key_length = present_key->shape[2];
  } else if (const Value* key = InputValue(graph, node, 1);
             key != nullptr && key->shape.size() >= 2) {
    key_length = key->shape.size() == 4 ? key->shape[2] : key->shape[1];
  } else {
    // Packed QKV (or a key of a rank no attention op takes): the query's own sequence length.
    key_length = query->shape.size() == 4 ? query->shape[2] : query->shape[1];
  }
  // Saturates: a malformed model's sizes must not overflow (4 * elements * length).
  int64_t flops = 0;
  if (__builtin_mul_overflow(Elements(*query), key_length, &flops) ||
      __builtin_mul_overflow(flops, int64_t{4}, &flops)) {
    return std::numeric_limits<int64_t>::max();
  }
  return flops;
}

int64_t CeilDiv(__int128 numerator, __int128 denominator) {
  if (denominator <= 0) return 0;
  return static_cast<int64_t>((numerator + denominator - 1) / denominator);
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
  if (IsAttentionOp(op)) return AttentionFlops(graph, node);
  if (IsNormalisationOp(op)) return 5 * OutputElements(graph, node);
  return OutputElements(graph, node);
}

DType ComputeDType(const Graph& graph, const Node& node) {
  for (ValueId id : node.inputs) {
    const DType dtype = graph.values[id].dtype;
    switch (dtype) {
      case DType::kFloat32:
      case DType::kFloat16:
      case DType::kBFloat16:
      case DType::kFloat64:
      case DType::kFloat8E4M3FN:
      case DType::kFloat8E4M3FNUZ:
      case DType::kFloat8E5M2:
      case DType::kFloat8E5M2FNUZ:
      case DType::kFloat4E2M1:
        return dtype;
      default:
        break;
    }
  }
  return node.inputs.empty() ? DType::kFloat32 : graph.values[node.inputs[0]].dtype;
}

NodeCost EstimateNodeCost(const Graph& graph, const Node& node, const HardwareProfile& profile) {
  int64_t bytes_accessed = 0;
  if (!IsViewOp(node.op_type)) {
    for (ValueId id : node.inputs) bytes_accessed += graph.values[id].bytes;
    for (ValueId id : node.outputs) bytes_accessed += graph.values[id].bytes;
    bytes_accessed += node.subgraph_bytes_accessed;
  }
  return RooflineCost(profile, ComputeDType(graph, node), NodeFlops(graph, node), bytes_accessed);
}

NodeCost RooflineCost(const HardwareProfile& profile, DType dtype, int64_t flops,
                      int64_t bytes_accessed) {
  NodeCost cost;
  cost.flops = flops;
  cost.bytes_accessed = bytes_accessed;
  const ComputeSpec& compute = profile.compute;
  const __int128 attainable =
      static_cast<__int128>(profile.PeakFlopsPerS(dtype)) * compute.efficiency_ppm;
  cost.compute_ns =
      CeilDiv(static_cast<__int128>(cost.flops) * 1'000'000'000 * 1'000'000, attainable);
  cost.memory_ns = CeilDiv(static_cast<__int128>(cost.bytes_accessed) * 1'000'000'000,
                           compute.memory_bandwidth_bytes_per_s);
  cost.launch_ns = compute.kernel_launch_overhead_ns;
  cost.time_ns = std::max(cost.compute_ns, cost.memory_ns) + cost.launch_ns;
  return cost;
}

std::vector<NodeCost> EstimateCosts(const Graph& graph, const HardwareProfile& profile) {
  std::vector<NodeCost> costs;
  costs.reserve(graph.nodes.size());
  for (const Node& node : graph.nodes) costs.push_back(EstimateNodeCost(graph, node, profile));
  if (profile.compute.fuse_attention) {
    CostAsFusedKernels(profile, FindAttentionBlocks(graph), costs);
  }
  return costs;
}

int64_t TransferTimeNs(const Link& link, int64_t bytes) {
  return link.latency_ns +
         CeilDiv(static_cast<__int128>(bytes) * 1'000'000'000, link.bandwidth_bytes_per_s);
}

int64_t ChannelTransferTimeNs(const Link& link, int64_t bytes) {
  return TransferTimeNs(link, bytes * std::max<int64_t>(1, link.channels));
}

}  // namespace hyperplan
