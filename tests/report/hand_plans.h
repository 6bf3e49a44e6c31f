// Test support: a plan written out by hand, step by step with chosen times, so every expected
// number in the stall, ranking and trace tests is plain arithmetic.
#pragma once

#include <utility>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "support/tiny_graph.h"

namespace hyperplan::testing {

inline constexpr int32_t kToDevice = 1;  // UnitProfile: link 0 hbm->ddr, link 1 ddr->hbm

inline PlanStep Compute(NodeId node, Step boundary, std::vector<int32_t> waits) {
  PlanStep step;
  step.node = node;
  step.boundary = boundary;
  step.waits_for = std::move(waits);
  return step;
}

inline PlanStep Prefetch(ValueId value, Step boundary, int64_t bytes) {
  PlanStep step;
  step.kind = StepKind::kPrefetch;
  step.value = value;
  step.src_tier = 1;
  step.dst_tier = 0;
  step.link = kToDevice;
  step.channel = 0;
  step.bytes = bytes;
  step.boundary = boundary;
  return step;
}

inline Decision Offloaded(ValueId value, Step after, Step before, int64_t bytes, Step freed_first,
                          Step freed_last) {
  Decision d;
  d.value = value;
  d.gap_after_step = after;
  d.gap_before_step = before;
  d.reason = DecisionReason::kOffloaded;
  d.bytes = bytes;
  d.freed_first_step = freed_first;
  d.freed_last_step = freed_last;
  return d;
}

struct HandPlan {
  Graph graph;
  Plan plan;
  PlanEvaluation evaluation;  // written by hand, as the replay would give it
};

// Two layers' weights streamed in from ddr at 1 byte/ns, and a head:
//   step 0  Prefetch w0 (1000 B)       0 .. 1000 ns
//   step 1  l0 (waits for step 0)   1000 .. 1100: stalled 1000 ns (compute was free from 0)
//   step 2  Prefetch w1 (1000 B)    1000 .. 2000 (behind step 0 on the one channel)
//   step 3  l1 (waits for step 2)   2000 .. 2100: stalled 2000 - 1100 = 900 ns
//   step 4  head (waits for nothing) 2150 .. 2250: stalled 50 ns, charged to no transfer
// Decisions: 0 w0's gap (run start, step 0); 1 w1's (run start, step 1); 2 a0 dropped after
// its last use, freeing steps 1-2 of 100000 bytes, with no transfer (no stall).
inline HandPlan StreamingPlan() {
  HandPlan hand;
  Graph& g = hand.graph;
  const ValueId x = Input(g, "x", 8);
  const ValueId w0 = Weight(g, "model.layers.0.w", 1000);
  const ValueId w1 = Weight(g, "model.layers.1.w", 1000);
  const ValueId a0 = Bytes(g, "a0", 100'000);
  const ValueId a1 = Bytes(g, "a1", 8);
  const ValueId out = Bytes(g, "out", 8);
  Op(g, "l0", "MatMul", {x, w0}, {a0});
  Op(g, "l1", "MatMul", {a0, w1}, {a1});
  Op(g, "head", "Relu", {a1}, {out});
  MarkOutput(g, out);

  Plan& plan = hand.plan;
  plan.order = {0, 1, 2};
  plan.steps = {Prefetch(w0, 0, 1000), Compute(0, 0, {0}), Prefetch(w1, 1, 1000),
                Compute(1, 1, {2}), Compute(2, 2, {})};
  SimulationResult& timeline = hand.evaluation.timeline;
  timeline.steps = {{0, 1000}, {1000, 1100}, {1000, 2000}, {2000, 2100}, {2150, 2250}};
  timeline.stall_ns_per_node = {1000, 900, 50};
  timeline.makespan_ns = 2250;
  plan.decisions = {Offloaded(w0, -1, 0, 1000, -1, -1), Offloaded(w1, -1, 1, 1000, 0, 0),
                    Offloaded(a0, 0, 3, 100'000, 1, 2)};
  return hand;
}

// UnitProfile with a host compute unit of 2 sockets on ddr (tier 1): its host lane is stream 3,
// after the compute stream (0) and the two links' channels (1, 2).
inline HardwareProfile UnitProfileWithHost() {
  HardwareProfile profile = UnitProfile();
  profile.host_compute.memory_tier = 1;
  profile.host_compute.sockets = 2;
  profile.host_compute.peak_flops_per_s[DType::kFloat32] = 1'000'000'000;
  profile.host_compute.memory_bandwidth_bytes_per_s = 1'000'000'000;
  return profile;
}

// A layer's MLP on the host between two device steps, its input crossing by a Store, evaluated
// by the simulator (UnitProfile: 1 byte/ns links; a compute step's stall is its wait after
// every earlier compute step, of either unit, has ended):
//   step 0  l0    device, 100 ns                                     0 .. 100
//   step 1  Store a0 (200 B) hbm -> ddr, waits for step 0          100 .. 300
//   step 2  mlp   host (reads a0's ddr copy and model.layers.0.mlp.w), 300 ns, waits for
//                 step 1: 300 .. 600, stalled 300 - 100 = 200 (on the Store)
//   step 3  head  device, 50 ns, waits for step 2: 600 .. 650, stalled 0 (compute was busy)
// Makespan 650 ns; compute 450 ns, of which 300 on the host.
inline HandPlan HostMlpPlan() {
  HandPlan hand;
  Graph& g = hand.graph;
  const ValueId x = Input(g, "x", 8);
  const ValueId a0 = Bytes(g, "a0", 200);
  const ValueId a1 = Bytes(g, "a1", 8);
  const ValueId out = Bytes(g, "out", 8);
  Op(g, "l0", "Relu", {x}, {a0});
  Op(g, "mlp", "MatMul", {a0, Weight(g, "model.layers.0.mlp.w", 64)}, {a1});
  Op(g, "head", "Relu", {a1}, {out});
  MarkOutput(g, out);
  Plan& plan = hand.plan;
  plan.order = {0, 1, 2};
  plan.node_time_ns = {100, 300, 50};
  PlanStep store = Prefetch(a0, 0, 200);  // then turned around: hbm -> ddr on link 0
  store.kind = StepKind::kStore;
  store.src_tier = 0;
  store.dst_tier = 1;
  store.link = 0;
  store.waits_for = {0};
  plan.steps = {Compute(0, 0, {}), store, Compute(1, 1, {1}), Compute(2, 2, {2})};
  plan.steps[2].unit = ComputeUnit::kHost;
  hand.evaluation = EvaluatePlan(g, UnitProfileWithHost(), plan, NoOffloadReference{});
  return hand;
}

}  // namespace hyperplan::testing
