// Planner test support: unit-rate profiles, tiny graphs in a few lines, and helpers that
// pick steps out of a plan.
//
// Unit rates: every link moves 1 byte/ns with no latency, compute runs 1 FLOP/ns at full
// efficiency with no launch overhead, and device memory bandwidth is so high that a node's
// time is its FLOPs. Work() builds a node of any op type the cost model has no rule for, so
// it counts one FLOP per output element: the output's shape is {time_ns} (uint8) while its
// bytes are set directly, so time and size are chosen independently.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"
#include "hyperplan/plan/verify.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::planner_test {

inline constexpr int64_t kOneBytePerNs = 1'000'000'000;

// hbm (device, `device_bytes`) <-> ddr, 1 byte/ns each way, one channel; weights home in ddr.
inline HardwareProfile UnitProfile(int64_t device_bytes = int64_t{1} << 40, int32_t channels = 1) {
  HardwareProfile profile;
  profile.name = "unit";
  profile.source = "test";
  profile.tiers = {{"hbm", device_bytes, true}, {"ddr", int64_t{1} << 40, false}};
  profile.device_tier = 0;
  profile.weight_home_tier = 1;
  profile.links = {{0, 1, kOneBytePerNs, 0, channels}, {1, 0, kOneBytePerNs, 0, channels}};
  profile.compute.peak_flops_per_s[DType::kFloat32] = kOneBytePerNs;
  profile.compute.memory_bandwidth_bytes_per_s = int64_t{1} << 62;
  return profile;
}

// UnitProfile with a host unit on ddr: one core at 0.5 FLOP/ns, 4 B/ns, no dispatch cost.
inline HardwareProfile HalfFlopHostProfile(int64_t device_bytes = int64_t{1} << 40) {
  HardwareProfile profile = UnitProfile(device_bytes);
  HostComputeSpec& host = profile.host_compute;
  host.memory_tier = 1;
  host.sockets = 1;
  host.cores_per_socket = 1;
  host.peak_flops_per_s[DType::kFloat32] = kOneBytePerNs / 2;
  host.memory_bandwidth_bytes_per_s = 4 * kOneBytePerNs;
  return profile;
}

// hbm <-> ddr <-> nvme, no direct nvme link to hbm; weights home on nvme.
inline HardwareProfile NvmeProfile() {
  HardwareProfile profile = UnitProfile();
  profile.name = "unit-nvme";
  profile.tiers.push_back({"nvme", int64_t{1} << 42, false});
  profile.links.push_back({1, 2, kOneBytePerNs, 0, 1});
  profile.links.push_back({2, 1, kOneBytePerNs, 0, 1});
  profile.weight_home_tier = 2;
  return profile;
}

// "w7", built by appending: GCC 12's -Wrestrict misfires on `"w" + std::to_string(7)` at -O3.
inline std::string Named(const std::string& prefix, int index,
                         const std::string& suffix = std::string()) {
  std::string name(prefix);
  name.append(std::to_string(index));
  name.append(suffix);
  return name;
}

inline ValueId NewValue(Graph& graph, const std::string& name, int64_t bytes,
                        std::vector<int64_t> shape) {
  Value value;
  value.name = name;
  value.dtype = DType::kUint8;
  value.shape = std::move(shape);
  value.size_known = true;
  value.bytes = bytes;
  return AddValue(graph, std::move(value));
}

inline ValueId Weight(Graph& graph, const std::string& name, int64_t bytes) {
  const ValueId id = NewValue(graph, name, bytes, {bytes});
  graph.values[id].is_initializer = true;
  graph.values[id].value_class = ValueClass::kWeight;
  return id;
}

inline ValueId Input(Graph& graph, const std::string& name, int64_t bytes) {
  const ValueId id = NewValue(graph, name, bytes, {bytes});
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

struct Out {
  std::string name;
  int64_t bytes;
};

// A node `name` reading `inputs`, writing `outputs`, running `time_ns` at unit rates (the
// time is spread over the outputs' shapes; at least 1 ns). Returns the output ids.
inline std::vector<ValueId> WorkN(Graph& graph, const std::string& name,
                                  std::vector<ValueId> inputs, const std::vector<Out>& outputs,
                                  int64_t time_ns, int64_t scratch_bytes = 0) {
  Node node;
  node.name = name;
  node.op_type = "Work";
  node.inputs = std::move(inputs);
  int64_t left = time_ns;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const int64_t elements = i + 1 == outputs.size() ? left : time_ns / int64_t(outputs.size());
    left -= elements;
    node.outputs.push_back(NewValue(graph, outputs[i].name, outputs[i].bytes, {elements}));
  }
  node.subgraph_peak_bytes = scratch_bytes;
  std::vector<ValueId> ids = node.outputs;
  AddNode(graph, std::move(node));
  return ids;
}

inline ValueId Work(Graph& graph, const std::string& name, std::vector<ValueId> inputs,
                    const std::string& output, int64_t bytes, int64_t time_ns,
                    int64_t scratch_bytes = 0) {
  return WorkN(graph, name, std::move(inputs), {{output, bytes}}, time_ns, scratch_bytes)[0];
}

// s (100 B) is written at step 0 and read at step 4; step 2 needs 300 B of scratch, so with a
// 350 B budget s is stored, dropped and fetched back. Node times 10, 10, 10, 150, 10 ns:
// compute boundaries T = [0, 10, 20, 30, 180, 190].
//   n0 () -> s (100 B)   n1 s -> a   n2 a -> b (300 B scratch)   n3 b -> c   n4 c, s -> y
struct StoredThenFetched {
  Graph graph;
  ValueId s;
  ValueId a, b, c;
  StoredThenFetched() {
    s = Work(graph, "n0", {}, "s", 100, 10);
    a = Work(graph, "n1", {s}, "a", 1, 10);
    b = Work(graph, "n2", {a}, "b", 1, 10, 300);
    c = Work(graph, "n3", {b}, "c", 1, 150);
    MarkOutput(graph, Work(graph, "n4", {c, s}, "y", 1, 10));
  }
};

// Hand-written plan steps (value 0 for transfers and Detaches), for tests that build a Plan's
// steps themselves: a compute step runs node `boundary` at that boundary.
inline PlanStep ComputeStep(Step boundary, std::vector<int32_t> waits = {}) {
  PlanStep step;
  step.kind = StepKind::kCompute;
  step.node = boundary;
  step.boundary = boundary;
  step.waits_for = std::move(waits);
  return step;
}

inline PlanStep TransferStep(StepKind kind, int32_t link, int32_t channel,
                             std::vector<int32_t> waits = {}, int64_t bytes = 0) {
  PlanStep step;
  step.kind = kind;
  step.value = 0;
  step.link = link;
  step.channel = channel;
  step.bytes = bytes;
  step.waits_for = std::move(waits);
  return step;
}

inline PlanStep DetachStep(std::vector<int32_t> waits = {}) {
  PlanStep step;
  step.kind = StepKind::kDetach;
  step.value = 0;
  step.waits_for = std::move(waits);
  return step;
}

inline PlanOptions Budget(int64_t bytes) {
  PlanOptions options;
  options.budget_bytes = bytes;
  options.allow_reorder = false;
  return options;
}

// Plans, checks the verifier (again, from the test's side) and returns the result.
inline PlanResult PlanAndVerify(const Graph& graph, const HardwareProfile& profile,
                                const PlanOptions& options) {
  PlanResult result = PlanOffload(graph, profile, options);
  const VerifyResult verdict = VerifyPlan(graph, profile, result.plan, result.evaluation);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  return result;
}

inline std::vector<int32_t> StepsOf(const Plan& plan, StepKind kind, ValueId value = kNoValue) {
  std::vector<int32_t> found;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    if (step.kind == kind && (value == kNoValue || step.value == value)) {
      found.push_back(static_cast<int32_t>(i));
    }
  }
  return found;
}

inline int64_t CacheOpCount(const Plan& plan) {
  int64_t count = 0;
  for (const PlanStep& step : plan.steps) count += step.kind != StepKind::kCompute;
  return count;
}

inline const Decision* FindDecision(const Plan& plan, ValueId value, Step after_step) {
  for (const Decision& decision : plan.decisions) {
    if (decision.value == value && decision.gap_after_step == after_step) return &decision;
  }
  return nullptr;
}

}  // namespace hyperplan::planner_test
