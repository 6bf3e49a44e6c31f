// The shipped profiles' host units (configs/*.yaml, host_compute), and what they cost a node
// against streaming its weight over the link. Expected numbers are the YAML text converted by
// hand, and the roofline worked by hand beside each assertion.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/cost.h"
#include "hyperplan/host_cost.h"

namespace hyperplan {
namespace {

HardwareProfile LoadShipped(const std::string& name) {
  return LoadProfileFile(std::string(HYPERPLAN_SOURCE_DIR) + "/configs/" + name + ".yaml");
}

TEST_CASE("configs/rtx-4090-xeon-2s.yaml: two Xeon Gold 6454S beside one RTX 4090",
          "[profile][host][configs]") {
  const HardwareProfile profile = LoadShipped("rtx-4090-xeon-2s");
  CHECK(profile.name == "rtx-4090-xeon-2s");
  CHECK(profile.tiers[profile.FindTier("ddr")].capacity_bytes == 1'000'000'000'000);  // 1TB
  const HostComputeSpec& host = profile.host_compute;
  CHECK(host.memory_tier == profile.FindTier("ddr"));
  CHECK(host.sockets == 2);
  CHECK(host.cores_per_socket == 32);
  // 32 cores x 2.2 GHz x 1024 BF16 (AMX), x 2048 INT8, x 64 FP32 (AVX-512) operations a cycle.
  CHECK(host.peak_flops_per_s.at(DType::kBFloat16) == 72'089'600'000'000);
  CHECK(host.peak_flops_per_s.at(DType::kInt8) == 144'179'200'000'000);
  CHECK(host.peak_flops_per_s.at(DType::kFloat32) == 4'505'600'000'000);
  CHECK(host.memory_bandwidth_bytes_per_s == 307'200'000'000);  // 8 x 4800 MT/s x 8 B
  CHECK(host.memory_efficiency_ppm == 800'000);
  CHECK(host.efficiency_ppm == 500'000);
  CHECK(host.share_ppm == 1'000'000);
  CHECK(host.op_overhead_ns == 2'000);
}

TEST_CASE("A 70B-class GEMV on the 6454S pair beats streaming its weight over PCIe 19x",
          "[profile][host][configs]") {
  // Decode's MLP up-projection of an 8192-wide model: x {1, 8192} x W {8192, 28672} in bf16.
  Graph graph;
  auto tensor = [&graph](const std::string& name, std::vector<int64_t> shape) {
    Value value;
    value.name = name;
    value.dtype = DType::kBFloat16;
    value.shape = shape;
    value.size_known = true;
    value.bytes = shape[0] * shape[1] * 2;
    return AddValue(graph, std::move(value));
  };
  const ValueId x = tensor("x", {1, 8192});      // 16,384 B
  const ValueId w = tensor("w", {8192, 28672});  // 469,762,048 B
  const ValueId y = tensor("y", {1, 28672});     // 57,344 B
  Node node;
  node.name = "up_proj";
  node.op_type = "MatMul";
  node.inputs = {x, w};
  node.outputs = {y};
  AddNode(graph, std::move(node));

  const HardwareProfile profile = LoadShipped("rtx-4090-xeon-2s");
  const NodeCost host = EstimateNodeCostOn(ComputeUnit::kHost, graph, graph.nodes[0], profile);
  CHECK(host.flops == 469'762'048);           // 2 x 8192 x 28672
  CHECK(host.bytes_accessed == 469'835'776);  // 16,384 + 469,762,048 + 57,344
  // Sustained: 307.2 GB/s x 2 sockets x 0.8 = 491.52 GB/s; 469,835,776 B / 491.52 B/ns =
  // 955,883.3 ns, rounded up.
  CHECK(host.memory_ns == 955'884);
  // AMX: 72.0896 TFLOP/s x 2 x 0.5 = 72.0896 TFLOP/s; 469,762,048 / 72,089.6 FLOP/ns =
  // 6,516.3 ns, rounded up: memory-bound by 147x.
  CHECK(host.compute_ns == 6'517);
  CHECK(host.time_ns == 957'884);  // 955,884 + 2 us dispatch

  // The device's alternative at best: the weight crosses PCIe 4.0 (25 GB/s, 5 us) every token.
  const Link* pcie = profile.FindLink(profile.FindTier("ddr"), profile.device_tier);
  REQUIRE(pcie != nullptr);
  const int64_t stream_ns = TransferTimeNs(*pcie, 469'762'048);
  CHECK(stream_ns == 18'795'482);        // 5,000 + 469,762,048 / 25 B/ns = 5,000 + 18,790,481.9
  CHECK(stream_ns > 19 * host.time_ns);  // 18,795,482 / 957,884 = 19.6
}

TEST_CASE("Shipped profiles with a host unit compute from a host tier linked to the device",
          "[profile][host][configs]") {
  for (const char* name : {"rtx-4090", "rtx-4090-xeon-2s", "a100-pcie4", "h100-sxm", "l40s",
                           "mi300x", "gh200", "supernode"}) {
    INFO(name);
    const HardwareProfile profile = LoadShipped(name);
    const HostComputeSpec& host = profile.host_compute;
    REQUIRE(host.present());
    REQUIRE(host.memory_tier != kNoTier);
    CHECK(host.memory_tier != profile.device_tier);
    // Values crossing units move on the links: both directions must exist.
    CHECK(profile.FindLink(host.memory_tier, profile.device_tier) != nullptr);
    CHECK(profile.FindLink(profile.device_tier, host.memory_tier) != nullptr);
    CHECK(host.peak_flops_per_s.count(DType::kFloat32) == 1);
    CHECK(host.memory_bandwidth_bytes_per_s > 0);
  }
  // Eight GPUs share the DGX H100's two CPUs: 307.2 GB/s x 2 x 0.8 / 8 = 61.44 GB/s each.
  CHECK(HostSustainedBytesPerS(LoadShipped("h100-sxm").host_compute) == 61'440'000'000);
  // Not yet given one: their hosts are left to the next slice.
  CHECK_FALSE(LoadShipped("a100-sxm").host_compute.present());
  CHECK_FALSE(LoadShipped("h200-sxm").host_compute.present());
}

}  // namespace
}  // namespace hyperplan
