// Test support: a plan with a host compute step, built step by step (issue 30), for the
// verifier's tests (tests/plan/verify_host_test.cc) and the plan file's (tests/planio).
//
// Unit profile (planner_support.h): hbm (device) <-> ddr at 1 byte/ns, no latency, one channel
// per link; a host unit (one socket) computing from ddr (H). Node times are set in the plan:
//   n0 (device, 100 ns)  x -> a          x 100 B graph input, a 100 B
//   n1 (host,   300 ns)  (a, W) -> h     W 1000 B weight, home copy on ddr; h 10 B
//   n2 (device, 200 ns)  a -> b          b 10 B
//   n3 (device, 100 ns)  (h, b) -> y     y 10 B graph output
// a crosses to the host by a Store, h comes back by a Prefetch, W never moves.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/verify.h"
#include "planner/planner_support.h"

namespace hyperplan::host_plan_test {

using namespace hyperplan::planner_test;

// Appends steps, residency and tier copies to a plan; each call returns the step's index.
struct PlanWriter {
  const HardwareProfile& profile;
  Plan plan;

  int32_t Add(PlanStep step) {
    plan.steps.push_back(std::move(step));
    return static_cast<int32_t>(plan.steps.size()) - 1;
  }
  int32_t Compute(NodeId node, Step position, ComputeUnit unit, std::vector<int32_t> waits) {
    PlanStep step;
    step.node = node;
    step.unit = unit;
    step.boundary = position;
    step.waits_for = std::move(waits);
    return Add(step);
  }
  // A transfer on the only channel of the link from `from` to `to`.
  int32_t Move(StepKind kind, ValueId value, int64_t bytes, TierId from, TierId to, Step boundary,
               std::vector<int32_t> waits) {
    PlanStep step;
    step.kind = kind;
    step.value = value;
    step.bytes = bytes;
    step.src_tier = from;
    step.dst_tier = to;
    step.link = from == 0 ? 0 : 1;  // UnitProfile: link 0 hbm->ddr, link 1 ddr->hbm
    step.channel = 0;
    step.boundary = boundary;
    step.waits_for = std::move(waits);
    return Add(step);
  }
  int32_t Detach(ValueId value, int64_t bytes, Step boundary, std::vector<int32_t> waits) {
    PlanStep step;
    step.kind = StepKind::kDetach;
    step.value = value;
    step.bytes = bytes;
    step.src_tier = 0;
    step.boundary = boundary;
    step.waits_for = std::move(waits);
    return Add(step);
  }
  void Resident(ValueId value, int64_t bytes, Step first, Step last, int32_t opened_by,
                int32_t closed_by) {
    plan.residency.push_back({value, kNoNode, first, last, bytes, opened_by, closed_by});
  }
  void Copy(ValueId value, int64_t bytes, int32_t opened_by, int32_t closed_by) {
    plan.tier_copies.push_back({value, 1, bytes, opened_by, closed_by, 0});
  }
};

struct HostFixture {
  Graph graph;
  HardwareProfile profile = UnitProfile();
  ValueId x, a, w, h, b, y;
  NodeId n0, n1, n2, n3;

  HostFixture() {
    profile.host_compute.memory_tier = 1;  // ddr
    profile.host_compute.sockets = 1;
    profile.host_compute.peak_flops_per_s[DType::kFloat32] = kOneBytePerNs;
    x = Input(graph, "x", 100);
    w = Weight(graph, "W", 1000);
    a = NewValue(graph, "a", 100, {100});
    h = NewValue(graph, "h", 10, {10});
    b = NewValue(graph, "b", 10, {10});
    y = NewValue(graph, "y", 10, {10});
    n0 = AddWork("n0", {x}, {a});
    n1 = AddWork("n1", {a, w}, {h});
    n2 = AddWork("n2", {a}, {b});
    n3 = AddWork("n3", {h, b}, {y});
    MarkOutput(graph, y);
  }

  NodeId AddWork(const std::string& name, std::vector<ValueId> inputs,
                 std::vector<ValueId> outputs) {
    Node node;
    node.name = name;
    node.op_type = "Work";
    node.inputs = std::move(inputs);
    node.outputs = std::move(outputs);
    return AddNode(graph, std::move(node));
  }

  PlanWriter Writer(int64_t host_ns = 300) const {
    PlanWriter writer{profile, {}};
    writer.plan.order = {n0, n1, n2, n3};
    writer.plan.node_time_ns = {100, host_ns, 200, 100};
    return writer;
  }

  // The valid plan. Steps and their replay (each step starts when its stream and its waits
  // have ended):
  //   0 n0 (device)          [0, 100]
  //   1 Store a hbm->ddr     waits 0         [100, 200]   (100 B at 1 B/ns)
  //   2 n1 (host)            waits 1         [200, 500]   (frees a's copy on ddr: last reader)
  //   3 n2 (device)          compute stream  [100, 300]
  //   4 Prefetch h ddr->hbm  waits 2, 3      [500, 510]   (10 B)
  //   5 n3 (device)          waits 4         [510, 610]
  Plan Valid(int64_t host_ns = 300) const {
    PlanWriter p = Writer(host_ns);
    const int32_t s0 = p.Compute(n0, 0, ComputeUnit::kDevice, {});
    const int32_t store = p.Move(StepKind::kStore, a, 100, 0, 1, 1, {s0});
    const int32_t host = p.Compute(n1, 1, ComputeUnit::kHost, {store});
    const int32_t s2 = p.Compute(n2, 2, ComputeUnit::kDevice, {});
    const int32_t fetch = p.Move(StepKind::kPrefetch, h, 10, 1, 0, 3, {host, s2});
    const int32_t s3 = p.Compute(n3, 3, ComputeUnit::kDevice, {fetch});
    p.Resident(x, 100, 0, 0, -1, s0);
    p.Resident(a, 100, 0, 2, s0, s2);
    p.Resident(b, 10, 2, 3, s2, s3);
    p.Resident(h, 10, 3, 3, fetch, s3);
    p.Resident(y, 10, 3, 3, s3, -1);
    p.Copy(w, 1000, -1, -1);
    p.Copy(a, 100, store, host);
    p.Copy(h, 10, host, fetch);
    return std::move(p.plan);
  }

  // The broken plan: a host node reading a value that exists only on the device (no
  // Store of a, so no copy of it on ddr).
  Plan NoStore() const {
    PlanWriter p = Writer();
    const int32_t s0 = p.Compute(n0, 0, ComputeUnit::kDevice, {});
    const int32_t host = p.Compute(n1, 1, ComputeUnit::kHost, {s0});
    const int32_t s2 = p.Compute(n2, 2, ComputeUnit::kDevice, {});
    const int32_t fetch = p.Move(StepKind::kPrefetch, h, 10, 1, 0, 3, {host, s2});
    const int32_t s3 = p.Compute(n3, 3, ComputeUnit::kDevice, {fetch});
    p.Resident(x, 100, 0, 0, -1, s0);
    p.Resident(a, 100, 0, 2, s0, s2);
    p.Resident(b, 10, 2, 3, s2, s3);
    p.Resident(h, 10, 3, 3, fetch, s3);
    p.Resident(y, 10, 3, 3, s3, -1);
    p.Copy(w, 1000, -1, -1);
    p.Copy(h, 10, host, fetch);
    return std::move(p.plan);
  }

  // a leaves the device after n0 and comes back for n2, so a Prefetch reads a's copy on ddr
  // beside the host step, which frees it. That Prefetch allocates before n1 (position 1) ends:
  // a host step holds no device memory, so it need only follow n0. With the host step waiting only
  // for the Store:
  //   0 n0                   [0, 100]
  //   1 Store a hbm->ddr     waits 0     [100, 200]
  //   2 Detach a             waits 1     [200, 200]
  //   3 Prefetch a ddr->hbm  waits 1, 2  [200, 300]
  //   4 n1 (host)            waits 1 (+ `host_waits`), frees a's copy on ddr
  //   5 n2                   waits 3
  //   6 Prefetch h ddr->hbm  waits 4, 5
  //   7 n3                   waits 6
  Plan PrefetchBeside(std::vector<int32_t> host_waits) const {
    PlanWriter p = Writer();
    const int32_t s0 = p.Compute(n0, 0, ComputeUnit::kDevice, {});
    const int32_t store = p.Move(StepKind::kStore, a, 100, 0, 1, 1, {s0});
    const int32_t detach = p.Detach(a, 100, 1, {store});
    const int32_t back = p.Move(StepKind::kPrefetch, a, 100, 1, 0, 2, {store, detach});
    host_waits.insert(host_waits.begin(), store);
    const int32_t host = p.Compute(n1, 1, ComputeUnit::kHost, host_waits);
    const int32_t s2 = p.Compute(n2, 2, ComputeUnit::kDevice, {back});
    const int32_t fetch = p.Move(StepKind::kPrefetch, h, 10, 1, 0, 3, {host, s2});
    const int32_t s3 = p.Compute(n3, 3, ComputeUnit::kDevice, {fetch});
    p.Resident(x, 100, 0, 0, -1, s0);
    p.Resident(a, 100, 0, 0, s0, detach);
    p.Resident(a, 100, 2, 2, back, s2);
    p.Resident(b, 10, 2, 3, s2, s3);
    p.Resident(h, 10, 3, 3, fetch, s3);
    p.Resident(y, 10, 3, 3, s3, -1);
    p.Copy(w, 1000, -1, -1);
    p.Copy(a, 100, store, host);
    p.Copy(h, 10, host, fetch);
    return std::move(p.plan);
  }

  // Laid out and evaluated as the planner's plans are.
  EvaluatedPlan Finish(Plan plan) const {
    return FinishPlan(graph, profile, LayoutOptions{}, {200, 200}, std::move(plan));
  }

  VerifyResult Verify(const EvaluatedPlan& planned) const {
    return VerifyPlan(graph, profile, planned.plan, planned.evaluation);
  }
};

}  // namespace hyperplan::host_plan_test
