// A tiny decoder for the host-compute contenders and bound: `layers` layers of one attention
// MatMul and one MLP MatMul each, a chain h0 -> attn0 -> a0 -> mlp0 -> h1 -> ... -> h_layers
// (the output), on the unit profile with a host unit.
//
// Every activation is float {1, 16} (64 B), every weight float {16, 16} (1024 B), named as
// host_parts.h finds them ("model.layers.N.self_attn.o_proj.weight", "model.layers.N.mlp.
// down_proj.weight"), homed in ddr. Device node times are given: attention 100 ns, MLP 200 ns.
// The host reads 4 bytes/ns and computes 4 FLOP/ns, so an MLP MatMul on it takes
// max(2 x 16 x 16 FLOPs / 4, (64 + 1024 + 64) B / 4) = max(128, 288) = 288 ns.
#pragma once

#include <string>
#include <vector>

#include "support/tiny_graph.h"

namespace hyperplan::contenders_test {

inline constexpr int64_t kAttentionNs = 100;
inline constexpr int64_t kMlpDeviceNs = 200;
inline constexpr int64_t kMlpHostNs = 288;
inline constexpr int64_t kActivationBytes = 64;
inline constexpr int64_t kWeightBytes = 1024;

struct HostDecoder {
  Graph graph;
  std::vector<int64_t> times;  // by NodeId
};

inline ValueId DecoderWeight(Graph& graph, const std::string& name) {
  const ValueId id = testing::Tensor(graph, name, {16, 16});
  graph.values[id].is_initializer = true;
  graph.values[id].value_class = ValueClass::kWeight;
  return id;
}

inline HostDecoder MakeHostDecoder(int layers) {
  HostDecoder d;
  ValueId h = testing::Tensor(d.graph, "h0", {1, 16});
  d.graph.values[h].is_graph_input = true;
  d.graph.values[h].value_class = ValueClass::kGraphInput;
  d.graph.inputs.push_back(h);
  for (int i = 0; i < layers; ++i) {
    const std::string layer = "model.layers." + std::to_string(i);
    const ValueId attn_w = DecoderWeight(d.graph, layer + ".self_attn.o_proj.weight");
    const ValueId mlp_w = DecoderWeight(d.graph, layer + ".mlp.down_proj.weight");
    const ValueId a = testing::Tensor(d.graph, "a" + std::to_string(i), {1, 16});
    const ValueId next = testing::Tensor(d.graph, "h" + std::to_string(i + 1), {1, 16});
    testing::Op(d.graph, "attn" + std::to_string(i), "MatMul", {h, attn_w}, {a});
    testing::Op(d.graph, "mlp" + std::to_string(i), "MatMul", {a, mlp_w}, {next});
    d.times.push_back(kAttentionNs);
    d.times.push_back(kMlpDeviceNs);
    h = next;
  }
  testing::MarkOutput(d.graph, h);
  return d;
}

// UnitProfile (hbm <-> ddr at 1 byte/ns) with a host unit on ddr: one socket of 4 GFLOP/s and
// 4 GB/s, at full efficiency.
inline HardwareProfile HostUnitProfile(int64_t device_capacity_bytes) {
  HardwareProfile profile = testing::UnitProfile(device_capacity_bytes);
  profile.host_compute.memory_tier = 1;
  profile.host_compute.sockets = 1;
  profile.host_compute.cores_per_socket = 4;
  profile.host_compute.peak_flops_per_s[DType::kFloat32] = 4'000'000'000;
  profile.host_compute.memory_bandwidth_bytes_per_s = 4'000'000'000;
  return profile;
}

}  // namespace hyperplan::contenders_test
