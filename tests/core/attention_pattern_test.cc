// Spelled-out attention blocks: what is recognised, what is refused, and the fused kernel's
// cost at unit rates (1 FLOP/ns, 1 byte/ns), with the arithmetic beside each assertion.
#include "hyperplan/attention_pattern.h"

#include <catch2/catch.hpp>

#include "hyperplan/loop.h"
#include "support/tiny_graph.h"

using namespace hyperplan;
using namespace hyperplan::testing;

namespace {

constexpr DType kHalf = DType::kFloat16;

// The shape of a small grouped-query attention: 4 query heads over 2 KV heads of size 8.
struct Shape {
  int64_t query_length = 1;
  int64_t past_length = 15;  // 0: prefill, no past and no Concat
  bool causal_mask = false;  // mask [query_length, keys] (else [1, keys]: padding)
};

struct Built {
  Graph graph;
  ValueId scores = kNoValue;
  ValueId probabilities = kNoValue;
  ValueId present_key = kNoValue;
  ValueId present_value = kNoValue;
};

ValueId Half(Graph& graph, const std::string& name, std::vector<int64_t> shape) {
  return Tensor(graph, name, std::move(shape), kHalf);
}

ValueId GraphInput(Graph& graph, const std::string& name, std::vector<int64_t> shape,
                   ValueClass value_class) {
  const ValueId id = Half(graph, name, std::move(shape));
  graph.values[id].is_graph_input = true;
  graph.values[id].value_class = value_class;
  graph.inputs.push_back(id);
  return id;
}

// The cache of one side: the present (past + new along axis 2, a graph output) or, in prefill,
// the new rows themselves.
ValueId Present(Built& built, const std::string& side, const Shape& shape) {
  Graph& graph = built.graph;
  const int64_t keys = shape.past_length + shape.query_length;
  const ValueId x = built.graph.FindValue("x");
  if (shape.past_length == 0) {
    // Prefill: the head split's Transpose makes the present, which the graph returns.
    const ValueId by_token = Half(graph, side + "_new", {1, shape.query_length, 2, 8});
    Op(graph, side + "_proj", "Sin", {x}, {by_token});
    const ValueId present = Half(graph, "present_" + side, {1, 2, shape.query_length, 8});
    Op(graph, side + "_split", "Transpose", {by_token}, {present});
    MarkOutput(graph, present);
    return present;
  }
  const ValueId fresh = Half(graph, side + "_new", {1, 2, shape.query_length, 8});
  Op(graph, side + "_proj", "Sin", {x}, {fresh});
  const ValueId past =
      GraphInput(graph, "past_" + side, {1, 2, shape.past_length, 8}, ValueClass::kKvCache);
  const ValueId present = Half(graph, "present_" + side, {1, 2, keys, 8});
  Op(graph, side + "_cache", "Concat", {past, fresh}, {present});
  MarkOutput(graph, present);
  graph.values[present].value_class = ValueClass::kKvCache;
  return present;
}

// repeat_kv as the generator writes it: [1,2,L,8] -> [1,L,2,8] -> [1,L,2,1,8] ->
// [1,L,2,2,8] -> [1,L,4,8] -> [1,4,8,L] for K^T (keys) or [1,4,L,8] for V.
ValueId RepeatKv(Graph& graph, const std::string& side, ValueId cache, int64_t keys,
                 bool transposed) {
  const ValueId by_token = Half(graph, side + "_t", {1, keys, 2, 8});
  const ValueId widened = Half(graph, side + "_u", {1, keys, 2, 1, 8});
  const ValueId expanded = Half(graph, side + "_e", {1, keys, 2, 2, 8});
  const ValueId merged = Half(graph, side + "_r", {1, keys, 4, 8});
  const ValueId heads = transposed ? Half(graph, side + "_h", {1, 4, 8, keys})
                                   : Half(graph, side + "_h", {1, 4, keys, 8});
  Op(graph, side + "/Transpose", "Transpose", {cache}, {by_token});
  Op(graph, side + "/Unsqueeze", "Unsqueeze", {by_token}, {widened});
  Op(graph, side + "/Expand", "Expand", {widened}, {expanded});
  Op(graph, side + "/Reshape", "Reshape", {expanded}, {merged});
  Op(graph, side + "/Transpose_1", "Transpose", {merged}, {heads});
  return heads;
}

// x -> Q, K, V projections; the present K/V; repeat_kv; MatMul, Mul by a scalar, Add mask,
// Softmax, MatMul; then a Transpose back (outside the block) to the graph output.
Built SpelledOut(const Shape& shape) {
  Built built;
  Graph& graph = built.graph;
  const int64_t q = shape.query_length;
  const int64_t keys = shape.past_length + q;
  const ValueId x = GraphInput(graph, "x", {1, q, 8}, ValueClass::kGraphInput);
  const ValueId query = Half(graph, "q", {1, 4, q, 8});
  Op(graph, "q_proj", "Sin", {x}, {query});
  built.present_key = Present(built, "key", shape);
  built.present_value = Present(built, "value", shape);
  const ValueId keys_t = RepeatKv(graph, "k", built.present_key, keys, true);
  const ValueId values_r = RepeatKv(graph, "v", built.present_value, keys, false);
  built.scores = Half(graph, "scores", {1, 4, q, keys});
  Op(graph, "qk/MatMul", "MatMul", {query, keys_t}, {built.scores});
  const ValueId scale = Half(graph, "scale", {});
  graph.values[scale].is_initializer = true;
  const ValueId scaled = Half(graph, "scaled", {1, 4, q, keys});
  Op(graph, "qk/Mul", "Mul", {built.scores, scale}, {scaled});
  const ValueId mask =
      GraphInput(graph, "mask", {shape.causal_mask ? q : 1, keys}, ValueClass::kGraphInput);
  const ValueId masked = Half(graph, "masked", {1, 4, q, keys});
  Op(graph, "qk/Add", "Add", {scaled, mask}, {masked});
  built.probabilities = Half(graph, "probs", {1, 4, q, keys});
  Op(graph, "Softmax", "Softmax", {masked}, {built.probabilities});
  const ValueId context = Half(graph, "context", {1, 4, q, 8});
  Op(graph, "pv/MatMul", "MatMul", {built.probabilities, values_r}, {context});
  const ValueId out = Half(graph, "out", {1, q, 4, 8});
  Op(graph, "pv/Transpose", "Transpose", {context}, {out});
  MarkOutput(graph, out);
  return built;
}

}  // namespace

TEST_CASE("a grouped-query decode block is found with its 17 nodes") {
  const Built built = SpelledOut(Shape{});
  const Graph& graph = built.graph;
  const std::vector<AttentionBlock> blocks = FindAttentionBlocks(graph);
  REQUIRE(blocks.size() == 1);
  const AttentionBlock& block = blocks[0];
  // 2 Concats + 2 x 5 repeat_kv nodes + MatMul, Mul, Add, Softmax, MatMul; not the
  // projections (their outputs are the block's inputs) nor the Transpose back.
  CHECK(block.members.size() == 17);
  CHECK(block.context_matmul == graph.FindNode("pv/MatMul"));
  CHECK_FALSE(std::binary_search(block.members.begin(), block.members.end(),
                                 graph.FindNode("pv/Transpose")));
  CHECK(block.key == built.present_key);  // the cache at its own size, not repeated
  CHECK(block.value == built.present_value);
  CHECK(block.query == graph.FindValue("q"));
  CHECK(block.query_length == 1);
  CHECK(block.key_length == 16);  // 15 past + 1 new
  CHECK(block.batch_heads == 4);  // batch 1 x 4 query heads
  CHECK(block.head_dim == 8);
  CHECK_FALSE(block.causal);   // one query
  CHECK(block.flops == 2048);  // 2 * 2 * 1 query * 16 keys * 4 heads * 8
  // Q 4*8*2 = 64 B + present K 2*16*8*2 = 512 + present V 512 + context 64 + appended new K
  // and V rows 2 * (2*1*8*2) = 64.
  CHECK(block.appended_bytes == 64);
  CHECK(block.bytes == 1216);
}

TEST_CASE("the fused kernel's cost lands on the second MatMul, the rest cost nothing") {
  const Built built = SpelledOut(Shape{});
  const Graph& graph = built.graph;
  HardwareProfile profile = UnitProfile();
  profile.compute.kernel_launch_overhead_ns = 5;
  REQUIRE(profile.compute.fuse_attention);  // the default
  const std::vector<NodeCost> costs = EstimateCosts(graph, profile);
  const AttentionBlock block = FindAttentionBlocks(graph).at(0);
  // max(2048 FLOP at 1 FLOP/ns (float16 takes float's peak), 1216 B at 1 B/ns) + one launch.
  CHECK(costs[block.context_matmul].time_ns == 2053);
  CHECK(costs[block.context_matmul].flops == 2048);
  CHECK(costs[block.context_matmul].bytes_accessed == 1216);
  int64_t members_ns = 0;
  for (NodeId member : block.members) members_ns += costs[member].time_ns;
  CHECK(members_ns == 2069);  // the 16 other members: no work, no launch, 1 ns each
  // Outside the block nothing changes: the Transpose back reads and writes 64 B each + 5.
  CHECK(costs[graph.FindNode("pv/Transpose")].time_ns == 133);

  profile.compute.fuse_attention = false;
  const std::vector<NodeCost> op_by_op = EstimateCosts(graph, profile);
  for (const Node& node : graph.nodes) {
    const auto id = static_cast<size_t>(&node - graph.nodes.data());
    CHECK(op_by_op[id].time_ns == EstimateNodeCost(graph, node, profile).time_ns);
  }
  // The Softmax alone, op by op: 5 FLOPs x 64 scores = 320 ns against 128 + 128 B, + 5.
  CHECK(op_by_op[graph.FindNode("Softmax")].time_ns == 325);
}

TEST_CASE("scores or probabilities read outside the block keep attention op by op") {
  SECTION("the scores are a graph output") {
    Built built = SpelledOut(Shape{});
    MarkOutput(built.graph, built.scores);
    CHECK(FindAttentionBlocks(built.graph).empty());
  }
  SECTION("a backward pass reads the probabilities") {
    Built built = SpelledOut(Shape{});
    const ValueId grad = Half(built.graph, "grad", {1, 4, 1, 16});
    Op(built.graph, "backward", "Mul", {built.probabilities, built.probabilities}, {grad});
    CHECK(FindAttentionBlocks(built.graph).empty());
  }
  SECTION("the repeated keys feed another node") {
    Built built = SpelledOut(Shape{});
    const ValueId copy = Half(built.graph, "copy", {1, 4, 8, 16});
    Op(built.graph, "other", "Relu", {built.graph.FindValue("k_h")}, {copy});
    CHECK(FindAttentionBlocks(built.graph).empty());
  }
}

TEST_CASE("a causal prefill attends about half the pairs") {
  // 4 queries over their own 4 keys: query i sees i + 1 keys, 1 + 2 + 3 + 4 = 10 pairs of 16.
  const Built causal = SpelledOut(Shape{4, 0, true});
  const AttentionBlock block = FindAttentionBlocks(causal.graph).at(0);
  CHECK(block.causal);
  // No Concats in prefill: 10 repeat_kv + 5; the head split that returns the present stays out.
  CHECK(block.members.size() == 15);
  CHECK(block.key == causal.present_key);
  CHECK(block.appended_bytes == 0);
  CHECK(block.flops == 1280);  // 4 * 4 heads * 10 pairs * 8
  // Q 4*4*8*2 = 256 B + K 2*4*8*2 = 128 + V 128 + context 256.
  CHECK(block.bytes == 768);

  // A padding mask ([1, keys]: the same for every query) hides no pair by position.
  const Built padded = SpelledOut(Shape{4, 0, false});
  CHECK(FindAttentionBlocks(padded.graph).at(0).flops == 2048);  // 4 * 4 * 16 pairs * 8

  // Chunked prefill: 4 new queries after 12 past keys see 12 + (i + 1): 48 + 10 = 58 pairs.
  const Built chunk = SpelledOut(Shape{4, 12, true});
  CHECK(FindAttentionBlocks(chunk.graph).at(0).flops == 7424);  // 4 * 4 * 58 * 8
}

TEST_CASE("on the loop graph the block reads the past buffer its Concat appends to") {
  const Built built = SpelledOut(Shape{});
  const std::vector<ValueAlias> aliases = {
      {built.present_key, built.graph.FindValue("past_key")},
      {built.present_value, built.graph.FindValue("past_value")}};
  const Graph loop = LoopGraph(built.graph, aliases);
  const std::vector<AttentionBlock> blocks = FindAttentionBlocks(loop);
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0].members.size() == 17);  // the Concats join as the buffers' writers
  CHECK(blocks[0].key == loop.FindValue("past_key"));
  // The same numbers as on the model graph: past_key now holds the present's 512 B, and the
  // append is its growth, 32 B per side.
  CHECK(blocks[0].appended_bytes == 64);
  CHECK(blocks[0].bytes == 1216);
  CHECK(blocks[0].flops == 2048);
}

TEST_CASE("float32 casts around the Softmax, a Where mask and a Div scale are one block") {
  Graph graph;
  const ValueId query = Half(graph, "q", {1, 2, 1, 8});
  const ValueId keys_t = Half(graph, "k_t", {1, 2, 8, 6});
  const ValueId values = Half(graph, "v", {1, 2, 6, 8});
  const ValueId keys = Half(graph, "k", {1, 2, 6, 8});
  graph.values[keys].is_graph_input = true;
  Op(graph, "k/Transpose", "Transpose", {keys}, {keys_t});
  const ValueId scores = Half(graph, "scores", {1, 2, 1, 6});
  Op(graph, "qk", "MatMul", {query, keys_t}, {scores});
  const ValueId divisor = Half(graph, "divisor", {1});
  const ValueId scaled = Half(graph, "scaled", {1, 2, 1, 6});
  Op(graph, "div", "Div", {scores, divisor}, {scaled});
  const ValueId condition = Tensor(graph, "cond", {1, 6}, DType::kBool);
  const ValueId lowest = Half(graph, "lowest", {});
  const ValueId masked = Half(graph, "masked", {1, 2, 1, 6});
  Op(graph, "where", "Where", {condition, scaled, lowest}, {masked});
  const ValueId wide = Tensor(graph, "wide", {1, 2, 1, 6});
  Op(graph, "cast_up", "Cast", {masked}, {wide});
  const ValueId probs = Tensor(graph, "probs", {1, 2, 1, 6});
  Op(graph, "softmax", "Softmax", {wide}, {probs});
  const ValueId narrow = Half(graph, "narrow", {1, 2, 1, 6});
  Op(graph, "cast_down", "Cast", {probs}, {narrow});
  const ValueId context = Half(graph, "context", {1, 2, 1, 8});
  Op(graph, "pv", "MatMul", {narrow, values}, {context});
  MarkOutput(graph, context);
  const std::vector<AttentionBlock> blocks = FindAttentionBlocks(graph);
  REQUIRE(blocks.size() == 1);
  // Transpose, MatMul, Div, Where, Cast, Softmax, Cast, MatMul.
  CHECK(blocks[0].members.size() == 8);
  CHECK(blocks[0].dtype == kHalf);                // the scores MatMul's type, not the Softmax's
  CHECK(blocks[0].flops == 384);                  // 4 * 2 heads * 6 pairs * 8
  CHECK(blocks[0].bytes == 32 + 192 + 192 + 32);  // Q 2*8*2, K 2*6*8*2, V the same, out 32
}

TEST_CASE("the summary names the assumption, and says nothing without spelled-out attention") {
  const Built built = SpelledOut(Shape{});
  HardwareProfile profile = UnitProfile();
  CHECK(DescribeAttentionCosting(built.graph, profile) ==
        "1 spelled-out attention block costed as the fused kernel (profile fuses attention)");
  profile.compute.fuse_attention = false;
  CHECK(DescribeAttentionCosting(built.graph, profile) ==
        "1 spelled-out attention block costed op by op (profile does not fuse attention)");
  Graph plain;
  const ValueId a = Tensor(plain, "a", {4});
  const ValueId b = Tensor(plain, "b", {4});
  Op(plain, "softmax", "Softmax", {a}, {b});
  CHECK(DescribeAttentionCosting(plain, profile).empty());
}
