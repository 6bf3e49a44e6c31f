// The host unit's roofline (hyperplan/host_cost.h) at round rates: every expected time is
// arithmetic in the comment beside it.
#include "hyperplan/host_cost.h"

#include <catch2/catch.hpp>

#include "hyperplan/error.h"
#include "support/tiny_graph.h"

using namespace hyperplan;
using namespace hyperplan::testing;

namespace {

// x {2, 3} x w {3, 4} -> y {2, 4} in float: 48 FLOPs, 24 + 48 + 32 = 104 bytes (cost_test.cc).
Graph SmallMatMul() {
  Graph graph;
  const ValueId x = Tensor(graph, "x", {2, 3});
  const ValueId w = Tensor(graph, "w", {3, 4});
  const ValueId y = Tensor(graph, "y", {2, 4});
  Op(graph, "mm", "MatMul", {x, w}, {y});
  return graph;
}

}  // namespace

TEST_CASE("host rates: per socket x sockets x efficiency x share", "[core][host_cost]") {
  HostComputeSpec host = UnitHost();
  CHECK(HostAttainableFlopsPerS(host, DType::kFloat32) == 1'000'000'000);  // 1e9 x 2 x 0.5
  CHECK(HostSustainedBytesPerS(host) == 1'000'000'000);                    // 1e9 x 2 x 0.5
  host.share_ppm = 125'000;  // an eighth of the host, as on an eight-GPU server
  CHECK(HostAttainableFlopsPerS(host, DType::kFloat32) == 125'000'000);  // 1e9 / 8
  CHECK(HostSustainedBytesPerS(host) == 125'000'000);
}

TEST_CASE("a type without its own host peak computes at float's", "[core][host_cost]") {
  HostComputeSpec host = UnitHost();
  CHECK(host.PeakFlopsPerSocket(DType::kBFloat16) == 1'000'000'000);  // float's
  host.peak_flops_per_s[DType::kBFloat16] = 16'000'000'000;           // AMX-like, 16x float
  CHECK(host.PeakFlopsPerSocket(DType::kBFloat16) == 16'000'000'000);
  CHECK(HostAttainableFlopsPerS(host, DType::kBFloat16) == 16'000'000'000);  // 16e9 x 2 x 0.5
  CHECK(host.PeakFlopsPerSocket(DType::kFloat16) == 1'000'000'000);          // still float's
}

TEST_CASE("a node on the host: the device's FLOP and byte rules at the host's rates",
          "[core][host_cost]") {
  const Graph graph = SmallMatMul();
  HardwareProfile profile = UnitProfile();
  profile.host_compute = UnitHost();
  profile.host_compute.op_overhead_ns = 7;
  const NodeCost host = EstimateHostNodeCost(graph, graph.nodes[0], profile);
  CHECK(host.flops == 48);            // 2 * 8 outputs * K = 3
  CHECK(host.bytes_accessed == 104);  // 24 + 48 + 32
  CHECK(host.compute_ns == 48);       // 48 FLOP at 1 FLOP/ns
  CHECK(host.memory_ns == 104);       // 104 B at 1 B/ns
  CHECK(host.launch_ns == 7);
  CHECK(host.time_ns == 111);  // max(48, 104) + 7
  // Half the host's share: both rates halve, the dispatch does not: max(96, 208) + 7.
  profile.host_compute.share_ppm = 500'000;
  CHECK(EstimateHostNodeCost(graph, graph.nodes[0], profile).time_ns == 215);
}

TEST_CASE("EstimateNodeCostOn: the device unit is EstimateNodeCost, unchanged",
          "[core][host_cost]") {
  const Graph graph = SmallMatMul();
  HardwareProfile profile = UnitProfile();
  profile.compute.kernel_launch_overhead_ns = 5;
  profile.host_compute = UnitHost();
  profile.host_compute.memory_efficiency_ppm = 250'000;  // host memory at 0.5 B/ns
  const NodeCost device = EstimateNodeCostOn(ComputeUnit::kDevice, graph, graph.nodes[0], profile);
  CHECK(device.time_ns == EstimateNodeCost(graph, graph.nodes[0], profile).time_ns);
  CHECK(device.time_ns == 109);  // max(48 FLOP at 1/ns, 104 B at 1 B/ns) + 5 launch
  const NodeCost host = EstimateNodeCostOn(ComputeUnit::kHost, graph, graph.nodes[0], profile);
  CHECK(host.time_ns == 208);  // 104 B at 0.5 B/ns (1e9 x 2 x 0.25); no dispatch cost
  CHECK(ComputeUnitName(ComputeUnit::kHost) == "host");
  CHECK(ComputeUnitName(ComputeUnit::kDevice) == "device");
}

TEST_CASE("views dispatch nothing on the host either", "[core][host_cost]") {
  Graph graph;
  const ValueId x = Tensor(graph, "x", {2, 3});
  const ValueId y = Tensor(graph, "y", {6});
  Op(graph, "flat", "Reshape", {x}, {y});
  HardwareProfile profile = UnitProfile();
  profile.host_compute = UnitHost();
  profile.host_compute.op_overhead_ns = 7;
  CHECK(EstimateHostNodeCost(graph, graph.nodes[0], profile).time_ns == 0);
}

TEST_CASE("costing on the host of a profile without one is a caller's bug", "[core][host_cost]") {
  const Graph graph = SmallMatMul();
  const HardwareProfile profile = UnitProfile();  // no host_compute: sockets 0
  CHECK_FALSE(profile.host_compute.present());
  try {
    EstimateHostNodeCost(graph, graph.nodes[0], profile);
    FAIL("costed on a host the profile does not have");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kInternal);
    CHECK_THAT(error.what(), Catch::Contains("'unit' has no host_compute section; node 'mm'"));
  }
}
