// The roofline cost model at unit rates: every expected time is arithmetic in the comment.
#include "hyperplan/cost.h"

#include <catch2/catch.hpp>

#include "support/tiny_graph.h"

using namespace hyperplan;
using namespace hyperplan::testing;

TEST_CASE("a matmul is memory-bound at unit rates") {
  Graph graph;
  const ValueId x = Tensor(graph, "x", {2, 3});  // 6 floats = 24 bytes
  const ValueId w = Tensor(graph, "w", {3, 4});  // 12 floats = 48 bytes
  const ValueId y = Tensor(graph, "y", {2, 4});  // 8 floats = 32 bytes
  Op(graph, "mm", "MatMul", {x, w}, {y});
  const NodeCost cost = EstimateNodeCost(graph, graph.nodes[0], UnitProfile());
  CHECK(cost.flops == 48);            // 2 * (2*4 outputs) * K=3
  CHECK(cost.bytes_accessed == 104);  // 24 + 48 + 32
  CHECK(cost.time_ns == 104);         // max(48 FLOP at 1/ns, 104 B at 1 B/ns)
}

TEST_CASE("efficiency, bandwidth and launch overhead enter the roofline") {
  Graph graph;
  const ValueId x = Tensor(graph, "x", {2, 3});
  const ValueId w = Tensor(graph, "w", {3, 4});
  const ValueId y = Tensor(graph, "y", {2, 4});
  Op(graph, "mm", "MatMul", {x, w}, {y});
  HardwareProfile profile = UnitProfile();
  profile.compute.efficiency_ppm = 500'000;                       // half of peak
  profile.compute.memory_bandwidth_bytes_per_s = 10'000'000'000;  // 10 B/ns
  profile.compute.kernel_launch_overhead_ns = 5;
  // compute: 48 FLOP / 0.5 FLOP/ns = 96 ns; memory: ceil(104 / 10) = 11 ns; + 5 launch.
  CHECK(EstimateNodeCost(graph, graph.nodes[0], profile).time_ns == 101);
}

TEST_CASE("batched matmul and gemm FLOPs") {
  Graph graph;
  const ValueId a = Tensor(graph, "a", {4, 8, 16});
  const ValueId b = Tensor(graph, "b", {4, 16, 2});
  const ValueId c = Tensor(graph, "c", {4, 8, 2});
  Op(graph, "bmm", "MatMul", {a, b}, {c});
  CHECK(NodeFlops(graph, graph.nodes[0]) == 2 * 64 * 16);  // 4*8*2 = 64 outputs, K = 16

  const ValueId ga = Tensor(graph, "ga", {16, 8});  // transA: A is K x M, K = 16
  const ValueId gb = Tensor(graph, "gb", {16, 5});
  const ValueId gc = Tensor(graph, "gc", {5});
  const ValueId gy = Tensor(graph, "gy", {8, 5});
  const NodeId gemm = Op(graph, "gemm", "Gemm", {ga, gb, gc}, {gy});
  graph.nodes[gemm].int_attributes["transA"] = 1;
  CHECK(NodeFlops(graph, graph.nodes[gemm]) == 2 * 40 * 16 + 40);  // 40 outputs, K 16, bias
}

TEST_CASE("attention FLOPs use the full key length from present_key") {
  Graph graph;
  const ValueId q = Tensor(graph, "q", {1, 8, 64}, DType::kFloat16);  // 512 elements
  const ValueId k = Tensor(graph, "k", {1, 8, 32}, DType::kFloat16);
  const ValueId v = Tensor(graph, "v", {1, 8, 32}, DType::kFloat16);
  const ValueId out = Tensor(graph, "out", {1, 8, 64}, DType::kFloat16);
  const ValueId pk = Tensor(graph, "pk", {1, 2, 24, 16}, DType::kFloat16);  // 24 keys
  const ValueId pv = Tensor(graph, "pv", {1, 2, 24, 16}, DType::kFloat16);
  Op(graph, "gqa", "GroupQueryAttention", {q, k, v}, {out, pk, pv});
  CHECK(NodeFlops(graph, graph.nodes[0]) == 4 * 512 * 24);
  CHECK(ComputeDType(graph, graph.nodes[0]) == DType::kFloat16);
}

TEST_CASE("views are free, elementwise ops cost one FLOP per output element") {
  Graph graph;
  const ValueId x = Tensor(graph, "x", {10});
  const ValueId y = Tensor(graph, "y", {10});
  const ValueId z = Tensor(graph, "z", {10});
  Op(graph, "reshape", "Reshape", {x}, {y});
  Op(graph, "relu", "Relu", {y}, {z});
  const auto costs = EstimateCosts(graph, UnitProfile());
  CHECK(costs[0].flops == 0);
  CHECK(costs[0].bytes_accessed == 0);
  CHECK(costs[0].time_ns == 0);
  CHECK(costs[1].flops == 10);
  CHECK(costs[1].time_ns == 80);  // 40 B in + 40 B out at 1 B/ns
}

TEST_CASE("transfer time is latency plus bytes over bandwidth, rounded up, without overflow") {
  const Link unit{0, 1, 1'000'000'000, 7, 1};
  CHECK(TransferTimeNs(unit, 100) == 107);  // 7 + 100 B at 1 B/ns
  CHECK(TransferTimeNs(unit, 0) == 7);
  const Link fast{0, 1, 3'350'000'000'000, 0, 1};  // 3.35 TB/s
  // 1e12 B / 3.35e12 B/s = 0.29850746268... s = 298507462.68 ns -> 298507463
  CHECK(TransferTimeNs(fast, 1'000'000'000'000) == 298'507'463);
}
