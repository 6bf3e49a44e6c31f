// Test support: build small graphs in a few lines, and a unit-rate hardware profile
// (1 byte/ns links and memory, 1 FLOP/ns compute) so expected times are plain arithmetic.
#pragma once

#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan::testing {

inline ValueId Tensor(Graph& graph, const std::string& name, std::vector<int64_t> shape,
                      DType dtype = DType::kFloat32) {
  Value value;
  value.name = name;
  value.dtype = dtype;
  value.shape = std::move(shape);
  int64_t elements = 1;
  for (int64_t dim : value.shape) elements *= dim;
  value.size_known = true;
  value.bytes = *StorageBytes(dtype, elements);
  return AddValue(graph, std::move(value));
}

// A value of exactly `bytes` bytes (uint8 vector), for memory arithmetic.
inline ValueId Bytes(Graph& graph, const std::string& name, int64_t bytes) {
  return Tensor(graph, name, {bytes}, DType::kUint8);
}

inline ValueId Weight(Graph& graph, const std::string& name, int64_t bytes) {
  const ValueId id = Bytes(graph, name, bytes);
  graph.values[id].is_initializer = true;
  graph.values[id].value_class = ValueClass::kWeight;
  return id;
}

inline ValueId Input(Graph& graph, const std::string& name, int64_t bytes) {
  const ValueId id = Bytes(graph, name, bytes);
  graph.values[id].is_graph_input = true;
  graph.values[id].value_class = ValueClass::kGraphInput;
  graph.inputs.push_back(id);
  return id;
}

inline void MarkOutput(Graph& graph, ValueId id) {
  graph.values[id].is_graph_output = true;
  graph.values[id].value_class = ValueClass::kGraphOutput;
  graph.outputs.push_back(id);
}

inline NodeId Op(Graph& graph, const std::string& name, const std::string& op_type,
                 std::vector<ValueId> inputs, std::vector<ValueId> outputs) {
  Node node;
  node.name = name;
  node.op_type = op_type;
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  return AddNode(graph, std::move(node));
}

// Device "hbm" (capacity as given) and host "ddr", linked both ways at 1 byte/ns with no
// latency; compute at 1 FLOP/ns for every dtype and 1 byte/ns device memory bandwidth.
inline HardwareProfile UnitProfile(int64_t device_capacity_bytes = int64_t{1} << 40) {
  HardwareProfile profile;
  profile.name = "unit";
  profile.source = "test";
  profile.tiers = {{"hbm", device_capacity_bytes, true}, {"ddr", int64_t{1} << 50, false}};
  profile.device_tier = 0;
  profile.weight_home_tier = 1;
  profile.links = {{0, 1, 1'000'000'000, 0, 1}, {1, 0, 1'000'000'000, 0, 1}};
  profile.compute.peak_flops_per_s[DType::kFloat32] = 1'000'000'000;
  profile.compute.memory_bandwidth_bytes_per_s = 1'000'000'000;
  return profile;
}

// Two sockets of 1 GFLOP/s float and 1 GB/s each, at half efficiency for both: 1 FLOP/ns and
// 1 byte/ns for the pair, the device's unit rates.
inline HostComputeSpec UnitHost() {
  HostComputeSpec host;
  host.memory_tier = 1;  // UnitProfile's ddr
  host.sockets = 2;
  host.cores_per_socket = 4;
  host.peak_flops_per_s[DType::kFloat32] = 1'000'000'000;
  host.memory_bandwidth_bytes_per_s = 1'000'000'000;
  host.efficiency_ppm = 500'000;
  host.memory_efficiency_ppm = 500'000;
  return host;
}

}  // namespace hyperplan::testing
