// Expected distinct experts under top-k routing, and the MoE/QMoE cost rules built on it.
#include "hyperplan/routing.h"

#include <catch2/catch.hpp>

#include "hyperplan/cost.h"
#include "support/moe_graphs.h"
#include "support/tiny_graph.h"

namespace hyperplan {
namespace {

using testing::FloatMoe;
using testing::Op;
using testing::Tensor;

TEST_CASE("uniform top-k: k experts for one token, towards E as tokens grow") {
  // One token picks exactly k.
  CHECK(ExpectedDistinctExperts(8, 2, 1) == Approx(2.0));
  // Two tokens: 8 * (1 - (6/8)^2) = 8 * 0.4375 = 3.5.
  CHECK(ExpectedDistinctExperts(8, 2, 2) == Approx(3.5));
  // 64 tokens: 8 * (1 - 0.75^64); 0.75^64 = e^(64 ln 0.75) = e^-18.41, about 1.0e-8.
  const double t64 = ExpectedDistinctExperts(8, 2, 64);
  CHECK(t64 < 8.0);
  CHECK(t64 == Approx(8.0).margin(1e-6));
  // DeepSeek-V3's 256 experts, top 8, one token: 8.
  CHECK(ExpectedDistinctExperts(256, 8, 1) == Approx(8.0));
  // k above E is clamped: every expert; nonsense arguments touch none.
  CHECK(ExpectedDistinctExperts(4, 9, 1) == Approx(4.0));
  CHECK(ExpectedDistinctExperts(0, 2, 1) == 0.0);
  CHECK(ExpectedDistinctExperts(8, 2, 0) == 0.0);
}

TEST_CASE("a measured profile: hot experts are touched, cold ones rarely") {
  // Top 2 of 4, two hot experts (0.9) and two cold (0.1); the probabilities sum to k = 2.
  // Two tokens: 2 * (1 - 0.1^2) + 2 * (1 - 0.9^2) = 1.98 + 0.38 = 2.36, below uniform's
  // 4 * (1 - 0.5^2) = 3.
  const std::vector<double> skewed = {0.9, 0.9, 0.1, 0.1};
  CHECK(ExpectedDistinctExperts(skewed, 2) == Approx(2.36));
  CHECK(ExpectedDistinctExperts(4, 2, 2) == Approx(3.0));
  // A probability outside [0, 1] is clamped: 1 + 0 for one token.
  CHECK(ExpectedDistinctExperts({1.5, -0.2}, 1) == Approx(1.0));
}

TEST_CASE("routed bytes: whole experts exactly, never more than the tensor") {
  CHECK(RoutedBytes(8000, 8, 2.0) == 2000);  // 2 of 8 experts of 1000 B
  CHECK(RoutedBytes(8000, 8, 3.5) == 3500);  // 8000 * 3.5 / 8
  CHECK(RoutedBytes(8000, 8, 9.0) == 8000);  // clamped to the tensor
  CHECK(RoutedBytes(8000, 0, 2.0) == 8000);  // no expert axis: read whole
  CHECK(RoutedBytes(7, 3, 1.0) == 2);        // 7 / 3 = 2.33 rounds to 2
}

TEST_CASE("MoE reads only the routed experts' weights") {
  // One token: x 64 B + router 32 B + y 64 B, and 2 of the 8 experts' 3 * 2048 B:
  // 160 + 2 * 6144 = 12448 B (a dense read would be 160 + 49152).
  const Graph decode = FloatMoe(1);
  CHECK(NodeBytes(decode, decode.nodes[0]) == 12448);
  // 2 FLOPs per weight, 3 * 512 weights an expert, 2 experts, 1 token: 6144.
  CHECK(NodeFlops(decode, decode.nodes[0]) == 6144);
  // At unit rates (1 B/ns, 1 FLOP/ns) the node is memory-bound: 12448 ns.
  CHECK(EstimateCosts(decode, testing::UnitProfile())[0].time_ns == 12448);

  // 64 tokens: 8 * (1 - 0.75^64) experts, all 49152 B but 5e-4 B, which rounds away;
  // x 4096 + router 64 * 8 * 4 = 2048 + y 4096: 59392 B. FLOPs 2 * 64 * 2 * 1536 = 393216.
  const Graph prefill = FloatMoe(64);
  CHECK(NodeBytes(prefill, prefill.nodes[0]) == 59392);
  CHECK(NodeFlops(prefill, prefill.nodes[0]) == 393216);
}

// An int4 QMoE: hidden 16, inter 32, E = 4, k = 1, fused SwiGLU (fc1 holds 2 * inter rows),
// 2 weights per byte. fc1 [4, 64, 8] uint8 = 512 B an expert, fc2 [4, 16, 16] = 256 B, float32
// scales fc1 [4, 64] = 256 B and fc2 [4, 16] = 64 B an expert: 1088 B an expert, 4352 B in all.
Graph Int4Moe(int64_t tokens) {
  Graph graph;
  const ValueId x = Tensor(graph, "x", {tokens, 16});
  const ValueId router = Tensor(graph, "router", {tokens, 4});
  const ValueId fc1 = Tensor(graph, "fc1", {4, 64, 8}, DType::kUint8);
  const ValueId fc1_scales = Tensor(graph, "fc1_scales", {4, 64});
  const ValueId fc2 = Tensor(graph, "fc2", {4, 16, 16}, DType::kUint8);
  const ValueId fc2_scales = Tensor(graph, "fc2_scales", {4, 16});
  const ValueId y = Tensor(graph, "y", {tokens, 16});
  const NodeId moe = Op(graph, "qmoe", "QMoE", {x, router, fc1, fc1_scales, fc2, fc2_scales}, {y});
  graph.nodes[moe].domain = "com.microsoft";
  graph.nodes[moe].int_attributes["k"] = 1;
  graph.nodes[moe].int_attributes["expert_weight_bits"] = 4;
  graph.nodes[moe].int_attributes["swiglu_fusion"] = 1;
  return graph;
}

TEST_CASE("QMoE counts its packed weights and reads the routed expert's bytes and scales") {
  const Graph graph = Int4Moe(1);
  // (512 + 256) stored bytes * 2 weights a byte = 1536 = 3 * 16 * 32 weights; 2 FLOPs each.
  CHECK(NodeFlops(graph, graph.nodes[0]) == 3072);
  // x 64 + router 16 + y 64 = 144, plus one expert's 1088 B: 1232.
  CHECK(NodeBytes(graph, graph.nodes[0]) == 1232);
}

TEST_CASE("a measured routing profile lowers the bytes a skewed router reads") {
  Graph graph = Int4Moe(2);
  // Uniform, 2 tokens, top 1 of 4: 4 * (1 - 0.75^2) = 1.75 experts: 4352 * 1.75 / 4 = 1904 B,
  // plus x 128 + router 32 + y 128 = 288: 2192.
  CHECK(NodeBytes(graph, graph.nodes[0]) == 2192);
  // One hot expert (0.7) and three cold (0.1): (1 - 0.3^2) + 3 * (1 - 0.9^2) = 0.91 + 0.57 =
  // 1.48 experts: 4352 * 1.48 / 4 = 1610.24, so 1610 + 288 = 1898.
  graph.expert_selection["qmoe"] = {0.7, 0.1, 0.1, 0.1};
  CHECK(NodeBytes(graph, graph.nodes[0]) == 1898);
  // A profile of the wrong length is ignored (uniform again).
  graph.expert_selection["qmoe"] = {0.5, 0.5};
  CHECK(NodeBytes(graph, graph.nodes[0]) == 2192);
}

// The gather form of an MoE layer (hyperplan-gen --moe-form gather): a stored float32 table of
// E = 8 experts [8, 16, 32] (2048 B an expert, 16384 B) gathered along axis 0 by the router's
// int64 indices [1, tokens, 2] (top 2), into [1, tokens, 2, 16, 32].
Graph ExpertGather(int64_t tokens) {
  Graph graph;
  const ValueId table = Tensor(graph, "experts", {8, 16, 32});
  const ValueId indices = Tensor(graph, "indices", {1, tokens, 2}, DType::kInt64);
  const ValueId picked = Tensor(graph, "picked", {1, tokens, 2, 16, 32});
  Op(graph, "gather", "Gather", {table, indices}, {picked});
  return graph;
}

TEST_CASE("the gather form reads the distinct experts its tokens route to") {
  // One token: 2 of 8 experts read (4096 B), their 2 slices written (4096 B), 2 indices of 8 B:
  // 8208 B, and nothing of the other 6 experts' 12288 B.
  const Graph decode = ExpertGather(1);
  CHECK(NodeBytes(decode, decode.nodes[0]) == 8208);
  // At unit rates (1 B/ns) a gather does no arithmetic: 8208 ns.
  CHECK(EstimateCosts(decode, testing::UnitProfile())[0].time_ns == 8208);
  // Two tokens: 8 * (1 - 0.75^2) = 3.5 distinct experts read, 3.5 * 2048 = 7168 B; 4 slices
  // written, 8192 B; 4 indices, 32 B: 15392 B (4 slices read would be 8192).
  const Graph two = ExpertGather(2);
  CHECK(NodeBytes(two, two.nodes[0]) == 15392);
  // 64 tokens: every expert, 16384 B once (not 128 slices, 262144 B); 262144 B written;
  // 128 indices, 1024 B: 279552 B.
  const Graph prefill = ExpertGather(64);
  CHECK(NodeBytes(prefill, prefill.nodes[0]) == 279552);
}

TEST_CASE("a routing profile keyed by an expert Gather's name lowers the table it reads") {
  Graph two = ExpertGather(2);
  // Uniform, 2 tokens: 15392 B (the case above).
  REQUIRE(NodeBytes(two, two.nodes[0]) == 15392);
  // Skewed (sums to k = 2): per expert 1 - (1 - p)^2 = p (2 - p): 0.9 * 1.1 = 0.99,
  // 0.5 * 1.5 = 0.75, 0.2 * 1.8 = 0.36, 3 * 0.1 * 1.9 = 0.57, 2 * 0.05 * 1.95 = 0.195:
  // 2.865 experts, 2048 * 2.865 = 5867.52 -> 5868 B of the table (uniform: 3.5, 7168 B);
  // the 8192 B written and 32 B of indices stay: 14092 B.
  two.expert_selection["gather"] = {0.9, 0.5, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05};
  CHECK(NodeBytes(two, two.nodes[0]) == 14092);
  // A file's fractions may sum to k within 1%: scaled to k = 2 first (each doubled from a
  // sum of 1.0 here), so the same 14092 B.
  two.expert_selection["gather"] = {0.45, 0.25, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025};
  CHECK(NodeBytes(two, two.nodes[0]) == 14092);
  // One token reads k = 2 experts whatever the skew: sum_e p_e = 2, 4096 B: 8208 B.
  Graph one = ExpertGather(1);
  one.expert_selection["gather"] = {0.9, 0.5, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05};
  CHECK(NodeBytes(one, one.nodes[0]) == 8208);
  // A profile of another length, or under another node's name, leaves it uniform.
  two.expert_selection["gather"] = {1.0, 1.0};
  CHECK(NodeBytes(two, two.nodes[0]) == 15392);
  two.expert_selection.clear();
  two.expert_selection["other"] = {0.9, 0.5, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05};
  CHECK(NodeBytes(two, two.nodes[0]) == 15392);
}

// fp8 codes decoded for a MatMul as a graph spells it: codes uint8 [32, 16] (512 B), Cast to
// float32 (2048 B), times a float32 scale (4 B), read as B by x [1, 32] (128 B) -> y [1, 16]
// (64 B).
Graph DecodedProjection() {
  Graph graph;
  const ValueId codes = Tensor(graph, "codes", {32, 16}, DType::kUint8);
  const ValueId scale = Tensor(graph, "scale", {1});
  const ValueId wide = Tensor(graph, "wide", {32, 16});
  const ValueId w = Tensor(graph, "w", {32, 16});
  const ValueId x = Tensor(graph, "x", {1, 32});
  const ValueId y = Tensor(graph, "y", {1, 16});
  graph.values[codes].is_initializer = true;
  graph.values[scale].is_initializer = true;
  Op(graph, "cast", "Cast", {codes}, {wide});
  Op(graph, "mul", "Mul", {wide, scale}, {w});
  Op(graph, "matmul", "MatMul", {x, w}, {y});
  return graph;
}

TEST_CASE("a weight decode chain is costed as fused into its MatMul: the codes, read once") {
  const Graph graph = DecodedProjection();
  // The Cast reads the 512 B of codes and writes nothing (the fused kernel widens in
  // registers); written out it would be 512 + 2048 = 2560 B.
  CHECK(NodeBytes(graph, graph.nodes[0]) == 512);
  // The Mul reads the 4 B scale only.
  CHECK(NodeBytes(graph, graph.nodes[1]) == 4);
  // The MatMul reads x (128 B) and writes y (64 B), not the widened 2048 B of B: 192 B.
  CHECK(NodeBytes(graph, graph.nodes[2]) == 192);
  // The chain's total, 708 B, is the codes, the scale and the activations: at unit rates the
  // projection takes 512 + 4 + 192 ns of memory time where the spelled-out graph took
  // 2560 + 4100 + 2240.
  int64_t total = 0;
  for (const Node& node : graph.nodes) total += NodeBytes(graph, node);
  CHECK(total == 708);
}

TEST_CASE("an activation never joins a decode chain") {
  Graph graph = DecodedProjection();
  // The widened weight also feeds an activation's consumer: no longer only a MatMul's B, so
  // the Cast writes it (512 + 2048) and the MatMul reads it.
  const ValueId out = Tensor(graph, "out", {32, 16});
  Op(graph, "relu", "Relu", {graph.nodes[0].outputs[0]}, {out});
  CHECK(NodeBytes(graph, graph.nodes[0]) == 2560);
  // The Mul still feeds only the MatMul's B, so it writes nothing, but reads the widened
  // weight the Cast wrote out (2048 B) and the scale (4 B): 2052 B.
  CHECK(NodeBytes(graph, graph.nodes[1]) == 2052);
}

}  // namespace
}  // namespace hyperplan
