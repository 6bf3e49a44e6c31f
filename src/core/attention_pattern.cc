// Spelled-out attention, found and costed as one fused kernel (see attention_pattern.h).
#include "hyperplan/attention_pattern.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace hyperplan {
namespace {

// Longest chain walked from one MatMul input: repeat_kv plus casts, scales and the Concat is
// under ten nodes in every export seen; the bound keeps a pathological graph linear.
constexpr int kMaxChainNodes = 16;
// The scores may pass through a scale, up to two masks and casts before the Softmax.
constexpr int kMaxScoreDepth = 8;
// What a member other than the anchor costs: no work and no launch, but 1 ns rather than 0.
// The replay (simulate.h) counts device memory per instant, so steps of zero length would all
// hold their outputs at one instant, beyond what the per-step arena was laid out for.
constexpr int64_t kAbsorbedNodeNs = 1;

int64_t Elements(const Value& value) {
  int64_t elements = 1;
  for (int64_t dim : value.shape) elements *= dim;
  return elements;
}

bool IsScalar(const Value& value) { return value.size_known && Elements(value) == 1; }

const Node* Producer(const Graph& graph, ValueId id) {
  const NodeId producer = graph.values[id].producer;
  return producer == kNoNode ? nullptr : &graph.nodes[producer];
}

NodeId IdOf(const Graph& graph, const Node& node) {
  return static_cast<NodeId>(&node - graph.nodes.data());
}

// Ops that move or retype the cache without combining it with anything: what repeat_kv and
// the head split/merge around attention are made of.
bool IsLayoutOp(std::string_view op) {
  static constexpr std::string_view kOps[] = {"Transpose", "Reshape",  "Unsqueeze", "Squeeze",
                                              "Expand",    "Identity", "Cast",      "Flatten"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

// The data input of a Mul or Div by a scalar (a scaled Q, K or scores), else kNoValue.
ValueId ScaledInput(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 2) return kNoValue;
  const ValueId a = node.inputs[0];
  const ValueId b = node.inputs[1];
  if (node.op_type == "Div") return IsScalar(graph.values[b]) ? a : kNoValue;
  if (node.op_type != "Mul") return kNoValue;
  if (IsScalar(graph.values[b])) return a;
  return IsScalar(graph.values[a]) ? b : kNoValue;
}

// One input of a MatMul traced back to where the kernel reads it.
struct Operand {
  ValueId source = kNoValue;   // read once by the kernel
  int64_t appended_bytes = 0;  // rows the present's Concat appends
};

// The Concat that makes the present: it appends to a graph input (the past).
bool IsCacheConcat(const Graph& graph, const Node& node) {
  if (node.op_type != "Concat") return false;
  return std::any_of(node.inputs.begin(), node.inputs.end(),
                     [&](ValueId id) { return graph.values[id].is_graph_input; });
}

Operand CacheConcatOperand(const Graph& graph, const Node& concat, ValueId present) {
  Operand operand{present, 0};
  for (ValueId id : concat.inputs) {
    if (!graph.values[id].is_graph_input) operand.appended_bytes += graph.values[id].bytes;
  }
  return operand;
}

// K^T or V back through layout ops and scales to the cache (or whatever made it), adding the
// nodes passed to `members`. On a loop graph the past buffer's writer (the Concat) joins.
Operand TraceCache(const Graph& graph, ValueId id, std::vector<NodeId>& members) {
  for (int walked = 0; walked < kMaxChainNodes; ++walked) {
    const Node* node = Producer(graph, id);
    if (node == nullptr) break;
    if (IsCacheConcat(graph, *node)) {
      members.push_back(IdOf(graph, *node));
      return CacheConcatOperand(graph, *node, id);
    }
    // Any other returned value is the present (a prefill's, made by the head split): the cache.
    if (graph.values[id].is_graph_output) break;
    const ValueId next = IsLayoutOp(node->op_type) ? node->inputs[0] : ScaledInput(graph, *node);
    if (next == kNoValue) break;
    members.push_back(IdOf(graph, *node));
    id = next;
  }
  const Value& root = graph.values[id];
  if (root.written_by != kNoNode && graph.nodes[root.written_by].op_type == "Concat") {
    members.push_back(root.written_by);
    return {id, root.written_bytes};
  }
  return {id, 0};
}

// Q back through Casts and scalar scales.
ValueId TraceQuery(const Graph& graph, ValueId id, std::vector<NodeId>& members) {
  for (int walked = 0; walked < kMaxChainNodes; ++walked) {
    const Node* node = Producer(graph, id);
    if (node == nullptr) break;
    const ValueId next = node->op_type == "Cast" ? node->inputs[0] : ScaledInput(graph, *node);
    if (next == kNoValue) break;
    members.push_back(IdOf(graph, *node));
    id = next;
  }
  return id;
}

// What feeds the Softmax, traced back to the scores MatMul.
struct ScoresPath {
  NodeId matmul = kNoNode;
  std::vector<NodeId> ops;     // scale, mask and Cast nodes between the MatMul and the Softmax
  std::vector<ValueId> masks;  // the masks added or selected on the way
};

// The inputs of a score op that may carry the scores, and the mask it applies, if any.
struct ScoreStep {
  std::vector<ValueId> data;
  ValueId mask = kNoValue;
};

ScoreStep StepBack(const Graph& graph, const Node& node) {
  const std::string_view op = node.op_type;
  if (op == "Cast") return {{node.inputs[0]}, kNoValue};
  if (op == "Add" && node.inputs.size() == 2) {
    // Either side may be the scores; the other is then the mask.
    return {{node.inputs[0], node.inputs[1]}, kNoValue};
  }
  if (op == "Where" && node.inputs.size() == 3)
    return {{node.inputs[1], node.inputs[2]}, node.inputs[0]};
  if (const ValueId scaled = ScaledInput(graph, node); scaled != kNoValue)
    return {{scaled}, kNoValue};
  return {};
}

// Depth-first over the score ops' data inputs until a MatMul: the first path found wins.
bool TraceScores(const Graph& graph, ValueId id, int depth, ScoresPath& path) {
  const Node* node = Producer(graph, id);
  if (node == nullptr || depth > kMaxScoreDepth) return false;
  if (node->op_type == "MatMul") {
    path.matmul = IdOf(graph, *node);
    return true;
  }
  const ScoreStep step = StepBack(graph, *node);
  for (ValueId data : step.data) {
    if (!TraceScores(graph, data, depth + 1, path)) continue;
    path.ops.push_back(IdOf(graph, *node));
    if (step.mask != kNoValue) path.masks.push_back(step.mask);
    if (node->op_type == "Add") path.masks.push_back(node->inputs[data == node->inputs[0]]);
    return true;
  }
  return false;
}

// The Softmax's output forward through Casts to the MatMul that takes it as P, else kNoNode.
NodeId TraceProbabilities(const Graph& graph, ValueId id, std::vector<NodeId>& members) {
  for (int walked = 0; walked < kMaxChainNodes; ++walked) {
    const std::vector<NodeId>& consumers = graph.values[id].consumers;
    if (consumers.size() != 1) return kNoNode;
    const Node& node = graph.nodes[consumers[0]];
    if (node.op_type == "MatMul") return node.inputs[0] == id ? consumers[0] : kNoNode;
    if (node.op_type != "Cast" || node.outputs.empty()) return kNoNode;
    members.push_back(consumers[0]);
    id = node.outputs[0];
  }
  return kNoNode;
}

// A member's output read outside the block, or returned, would need the op's own result: the
// fused kernel never makes it. The present (the Concat's output, kept by the cache) and the
// context are what the kernel does produce.
bool IsClosed(const Graph& graph, const AttentionBlock& block) {
  for (NodeId member : block.members) {
    const Node& node = graph.nodes[member];
    if (node.op_type == "Concat") continue;
    for (ValueId out : node.outputs) {
      if (out == block.context) continue;
      const Value& value = graph.values[out];
      if (value.is_graph_output) return false;
      for (NodeId consumer : value.consumers) {
        if (!std::binary_search(block.members.begin(), block.members.end(), consumer)) {
          return false;
        }
      }
    }
  }
  return true;
}

// Attended (query, key) pairs per head: every pair, or under a causal mask query i (of q)
// sees the keys before the new ones plus the first i + 1 new ones.
int64_t AttendedPairs(const AttentionBlock& block) {
  const int64_t q = block.query_length;
  const int64_t kv = block.key_length;
  if (!block.causal || kv < q) return q * kv;
  return q * (kv - q) + q * (q + 1) / 2;
}

int64_t SaturatingProduct(std::initializer_list<int64_t> factors) {
  __int128 product = 1;
  for (int64_t factor : factors) {
    product *= factor;
    if (product > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  }
  return static_cast<int64_t>(product);
}

// With more than one query, a mask that differs from query to query is the causal one.
bool IsCausal(const Graph& graph, const std::vector<ValueId>& masks, int64_t query_length) {
  if (query_length <= 1) return false;
  return std::any_of(masks.begin(), masks.end(), [&](ValueId id) {
    const std::vector<int64_t>& shape = graph.values[id].shape;
    return shape.size() >= 2 && shape[shape.size() - 2] == query_length;
  });
}

// The scores' shape gives the lengths and heads; Q's last axis the head size. False when a
// size the cost needs is unknown.
bool MeasureBlock(const Graph& graph, const ScoresPath& scores, AttentionBlock& block) {
  const Node& matmul = graph.nodes[scores.matmul];
  const Value& product = graph.values[matmul.outputs[0]];
  const Value& query_heads = graph.values[matmul.inputs[0]];
  for (ValueId id :
       {matmul.outputs[0], matmul.inputs[0], block.query, block.key, block.value, block.context}) {
    if (!graph.values[id].size_known) return false;
  }
  if (product.shape.size() < 2 || query_heads.shape.empty()) return false;
  block.query_length = product.shape[product.shape.size() - 2];
  block.key_length = product.shape.back();
  block.head_dim = query_heads.shape.back();
  if (block.query_length <= 0 || block.key_length <= 0) return false;
  block.batch_heads = Elements(product) / (block.query_length * block.key_length);
  block.causal = IsCausal(graph, scores.masks, block.query_length);
  block.dtype = ComputeDType(graph, matmul);
  block.flops = SaturatingProduct({4, block.batch_heads, AttendedPairs(block), block.head_dim});
  block.bytes = graph.values[block.query].bytes + graph.values[block.key].bytes +
                graph.values[block.value].bytes + graph.values[block.context].bytes +
                block.appended_bytes;
  return true;
}

// The block around one Softmax, or nothing when the structure or a size does not fit.
std::optional<AttentionBlock> MatchBlock(const Graph& graph, const Node& softmax) {
  if (softmax.inputs.empty() || softmax.outputs.empty()) return std::nullopt;
  ScoresPath scores;
  if (!TraceScores(graph, softmax.inputs[0], 0, scores)) return std::nullopt;
  AttentionBlock block;
  std::vector<NodeId>& members = block.members;
  block.context_matmul = TraceProbabilities(graph, softmax.outputs[0], members);
  const Node& scores_matmul = graph.nodes[scores.matmul];
  if (block.context_matmul == kNoNode || scores_matmul.inputs.size() != 2) return std::nullopt;
  const Node& context_matmul = graph.nodes[block.context_matmul];
  if (context_matmul.inputs.size() != 2 || context_matmul.outputs.empty()) return std::nullopt;
  block.context = context_matmul.outputs[0];
  block.query = TraceQuery(graph, scores_matmul.inputs[0], members);
  const Operand key = TraceCache(graph, scores_matmul.inputs[1], members);
  const Operand value = TraceCache(graph, context_matmul.inputs[1], members);
  block.key = key.source;
  block.value = value.source;
  block.appended_bytes = key.appended_bytes + value.appended_bytes;
  members.insert(members.end(), scores.ops.begin(), scores.ops.end());
  members.insert(members.end(), {scores.matmul, IdOf(graph, softmax), block.context_matmul});
  std::sort(members.begin(), members.end());
  // A node reached twice (K and V through one shared op) would be one op serving both sides.
  if (std::adjacent_find(members.begin(), members.end()) != members.end()) return std::nullopt;
  if (!IsClosed(graph, block) || !MeasureBlock(graph, scores, block)) return std::nullopt;
  return block;
}

}  // namespace

std::vector<AttentionBlock> FindAttentionBlocks(const Graph& graph) {
  std::vector<AttentionBlock> blocks;
  std::vector<uint8_t> claimed(graph.nodes.size(), 0);
  for (const Node& node : graph.nodes) {
    if (node.op_type != "Softmax") continue;
    std::optional<AttentionBlock> block = MatchBlock(graph, node);
    if (!block) continue;
    const auto taken = [&](NodeId member) { return claimed[member] != 0; };
    if (std::any_of(block->members.begin(), block->members.end(), taken)) continue;
    for (NodeId member : block->members) claimed[member] = 1;
    blocks.push_back(std::move(*block));
  }
  return blocks;
}

void CostAsFusedKernels(const HardwareProfile& profile, const std::vector<AttentionBlock>& blocks,
                        std::vector<NodeCost>& costs) {
  for (const AttentionBlock& block : blocks) {
    NodeCost absorbed;
    absorbed.time_ns = kAbsorbedNodeNs;
    for (NodeId member : block.members) costs[member] = absorbed;
    costs[block.context_matmul] = RooflineCost(profile, block.dtype, block.flops, block.bytes);
  }
}

std::string DescribeAttentionCosting(const Graph& graph, const HardwareProfile& profile) {
  const size_t count = FindAttentionBlocks(graph).size();
  if (count == 0) return "";
  // Appended piecewise: the core links no formatting library.
  std::string text = std::to_string(count);
  text +=
      count == 1 ? " spelled-out attention block costed " : " spelled-out attention blocks costed ";
  text += profile.compute.fuse_attention ? "as the fused kernel (profile fuses attention)"
                                         : "op by op (profile does not fuse attention)";
  return text;
}

}  // namespace hyperplan
