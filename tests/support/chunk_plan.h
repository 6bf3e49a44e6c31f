// Test support: a host crossing queued behind a weight's Prefetch on one FIFO channel (issue
// 30's 70B bf16 row in miniature), for the chunked-Prefetch tests (tests/planner and
// tests/plan).
//
// Profile: the unit profile's hbm (device) and ddr with both links at rtx-4090-xeon-2s's
// PCIe figures, 25 GB/s and 5 us per transfer, one channel each (a transfer of B bytes takes
// 5000 + ceil(B / 25) ns); a host unit computing from ddr. Node times are set in the plan:
//   n0 (device,   100,000 ns)  x -> a          x, a 16 KiB
//   n1 (host,   3,000,000 ns)  a -> h          h 16 KiB: a host MLP
//   n2 (device, 3,000,000 ns)  h -> b          b 16 KiB: the next layer's attention
//   n3 (device,   100,000 ns)  (b, V) -> y     V 128 MiB weight, home copy on ddr; y 16 KiB
// a crosses to the host by a Store, h comes back by a Prefetch, V is Prefetched from the start.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "support/host_plan.h"

namespace hyperplan::chunk_plan_test {

using namespace hyperplan::host_plan_test;

inline constexpr int64_t kPcieBytesPerS = 25'000'000'000;
inline constexpr int64_t kPcieLatencyNs = 5'000;
inline constexpr int64_t kActivationBytes = 16'384;
inline constexpr int64_t kWeightBytes = int64_t{128} << 20;  // 134,217,728

struct ChunkFixture {
  Graph graph;
  HardwareProfile profile = UnitProfile();
  ValueId x, a, h, b, v, y;
  NodeId n0, n1, n2, n3;

  ChunkFixture() {
    for (Link& link : profile.links) {
      link.bandwidth_bytes_per_s = kPcieBytesPerS;
      link.latency_ns = kPcieLatencyNs;
    }
    profile.host_compute.memory_tier = 1;  // ddr
    profile.host_compute.sockets = 1;
    profile.host_compute.peak_flops_per_s[DType::kFloat32] = kOneBytePerNs;
    x = Input(graph, "x", kActivationBytes);
    a = NewValue(graph, "a", kActivationBytes, {kActivationBytes});
    h = NewValue(graph, "h", kActivationBytes, {kActivationBytes});
    b = NewValue(graph, "b", kActivationBytes, {kActivationBytes});
    v = Weight(graph, "V", kWeightBytes);
    y = NewValue(graph, "y", kActivationBytes, {kActivationBytes});
    n0 = Work("n0", {x}, {a});
    n1 = Work("n1", {a}, {h});
    n2 = Work("n2", {h}, {b});
    n3 = Work("n3", {b, v}, {y});
    MarkOutput(graph, y);
  }

  NodeId Work(const std::string& name, std::vector<ValueId> inputs, std::vector<ValueId> outputs) {
    Node node;
    node.name = name;
    node.op_type = "Work";
    node.inputs = std::move(inputs);
    node.outputs = std::move(outputs);
    return AddNode(graph, std::move(node));
  }

  // The plan with V moved whole. Steps and their replay:
  //   0 Prefetch V ddr->hbm   boundary 0           [0, 5,373,710]   5000 + 134,217,728 / 25
  //   1 n0 (device)           boundary 0           [0, 100,000]
  //   2 Store a hbm->ddr      waits 1              [100,000, 105,656]   5000 + ceil(16384 / 25)
  //   3 Detach a              waits 2              [105,656, 105,656]
  //   4 n1 (host)             waits 2              [105,656, 3,105,656]
  //   5 Prefetch h ddr->hbm   waits 3, 4: ready at 3,105,656, but V holds the channel until
  //                           5,373,710            [5,373,710, 5,379,366]
  //   6 n2 (device)           waits 5              [5,379,366, 8,379,366]
  //   7 n3 (device)           waits 0              [8,379,366, 8,479,366]
  Plan Whole() const {
    PlanWriter p{profile, {}};
    p.plan.order = {n0, n1, n2, n3};
    p.plan.node_time_ns = {100'000, 3'000'000, 3'000'000, 100'000};
    const int32_t fetch_v = p.Move(StepKind::kPrefetch, v, kWeightBytes, 1, 0, 0, {});
    const int32_t s0 = p.Compute(n0, 0, ComputeUnit::kDevice, {});
    const int32_t store = p.Move(StepKind::kStore, a, kActivationBytes, 0, 1, 1, {s0});
    const int32_t detach = p.Detach(a, kActivationBytes, 1, {store});
    const int32_t host = p.Compute(n1, 1, ComputeUnit::kHost, {store});
    const int32_t fetch_h =
        p.Move(StepKind::kPrefetch, h, kActivationBytes, 1, 0, 2, {detach, host});
    const int32_t s2 = p.Compute(n2, 2, ComputeUnit::kDevice, {fetch_h});
    const int32_t s3 = p.Compute(n3, 3, ComputeUnit::kDevice, {fetch_v});
    p.Resident(v, kWeightBytes, 0, 3, fetch_v, -1);
    p.Resident(x, kActivationBytes, 0, 0, -1, s0);
    p.Resident(a, kActivationBytes, 0, 0, s0, detach);
    p.Resident(h, kActivationBytes, 2, 2, fetch_h, s2);
    p.Resident(b, kActivationBytes, 2, 3, s2, s3);
    p.Resident(y, kActivationBytes, 3, 3, s3, -1);
    p.Copy(v, kWeightBytes, -1, -1);
    p.Copy(a, kActivationBytes, store, host);
    p.Copy(h, kActivationBytes, host, fetch_h);
    return std::move(p.plan);
  }

  EvaluatedPlan Finish(Plan plan) const {
    return FinishPlan(graph, profile, LayoutOptions{}, {0, 0}, std::move(plan));
  }
  VerifyResult Verify(const EvaluatedPlan& planned) const {
    return VerifyPlan(graph, profile, planned.plan, planned.evaluation);
  }
};

}  // namespace hyperplan::chunk_plan_test
