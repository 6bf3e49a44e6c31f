// Test support: a loop plan whose host steps update persistent values in place (docs/design.md
// "Compute units", in-place updates on the host): ZeRO-Offload's CPU optimizer step in four
// nodes, for the verifier's tests (tests/plan/verify_host_update_test.cc) and the executor's.
//
// Unit profile (planner_support.h): hbm (device) <-> ddr at 1 byte/ns, one channel per link; a
// host unit (one socket) computing from ddr (H). Node times are set in the plan:
//   n0 (device, 100 ns)  (x, W) -> g          forward and backward: the gradient g, 100 B
//   n1 (host,   100 ns)  (g, M) -> M.updated  the moment's update, in place into M
//   n2 (host,   100 ns)  (W, M.updated) -> W.updated   the weight's update, in place into W
//   n3 (device, 100 ns)  W.updated -> y       the next pass's first read of the new W
// W (100 B weight) and M (100 B optimizer state, "W.exp_avg") have home copies on ddr; the loop
// aliases W.updated -> W and M.updated -> M, so on the loop graph n1 writes M and n2 writes W,
// and n2 and n3 read W and M (loop.h). g crosses to the host by a Store; W reaches the device by
// a Prefetch before n0 (the last iteration's update) and another after n2 (this one's).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hyperplan/loop.h"
#include "support/host_plan.h"

namespace hyperplan::host_update_test {

using namespace hyperplan::host_plan_test;

// The breaks HostUpdateFixture::Valid can build (see there).
struct Breaks {
  bool carry = false;
  bool stale = false;
  bool racing = false;
  bool store_back = false;
};

struct HostUpdateFixture {
  Graph graph;  // the model's; `loop` is the graph one iteration sees
  Graph loop;
  HardwareProfile profile = UnitProfile();
  ValueId x, w, m, g, w_updated, m_updated, y;
  NodeId n0, n1, n2, n3;

  HostUpdateFixture() {
    profile.host_compute.memory_tier = 1;  // ddr
    profile.host_compute.sockets = 1;
    profile.host_compute.peak_flops_per_s[DType::kFloat32] = kOneBytePerNs;
    x = Input(graph, "x", 10);
    w = Weight(graph, "W", 100);
    m = Input(graph, "W.exp_avg", 100);
    graph.values[m].value_class = ValueClass::kOptimizerState;
    g = NewValue(graph, "g", 100, {100});
    m_updated = NewValue(graph, "W.updated.exp_avg", 100, {100});
    w_updated = NewValue(graph, "W.updated", 100, {100});
    y = NewValue(graph, "y", 10, {10});
    n0 = AddWork("n0", {x, w}, {g});
    n1 = AddWork("n1", {g, m}, {m_updated});
    n2 = AddWork("n2", {w, m_updated}, {w_updated});
    n3 = AddWork("n3", {w_updated}, {y});
    MarkOutput(graph, m_updated);
    MarkOutput(graph, w_updated);
    MarkOutput(graph, y);
    loop = LoopGraph(graph, Aliases());
  }

  std::vector<ValueAlias> Aliases() const { return {{m_updated, m}, {w_updated, w}}; }

  NodeId AddWork(const std::string& name, std::vector<ValueId> inputs,
                 std::vector<ValueId> outputs) {
    Node node;
    node.name = name;
    node.op_type = "Work";
    node.inputs = std::move(inputs);
    node.outputs = std::move(outputs);
    return AddNode(graph, std::move(node));
  }

  PlanWriter Writer() const {
    PlanWriter writer{profile, {}};
    writer.plan.order = {n0, n1, n2, n3};
    writer.plan.node_time_ns = {100, 100, 100, 100};
    writer.plan.periodic = true;
    writer.plan.aliases = Aliases();
    return writer;
  }

  // The valid plan, or one with a break the verifier names:
  //   carry:      W's first copy is resident from the iteration's start and its second stays
  //               to the end (a device copy across iterations);
  //   stale:      no second Prefetch: n3 reads the copy fetched before n2 updated W;
  //   racing:     the second Prefetch does not wait for n2, so it may read W's home copy while
  //               n2 writes it;
  //   store_back: a Store writes W's device copy over its home copy after n3.
  // Steps of the valid plan and their replay:
  //   0 Prefetch W ddr->hbm            [0, 100]     (100 B at 1 B/ns)
  //   1 n0 (device)      waits 0       [100, 200]
  //   2 Store g hbm->ddr waits 1       [200, 300]
  //   3 Detach W                       [200, 200]
  //   4 Detach g         waits 2       [300, 300]
  //   5 n1 (host)        waits 2       [300, 400]   (updates M, frees g's copy on ddr)
  //   6 n2 (host)        host lane     [400, 500]   (updates W)
  //   7 Prefetch W ddr->hbm waits 4, 6 [500, 600]
  //   8 n3 (device)      waits 7       [600, 700]
  //   9 Detach W                       [700, 700]
  Plan Valid(Breaks breaks = {}) const {
    PlanWriter p = Writer();
    const int32_t first = breaks.carry ? -1 : p.Move(StepKind::kPrefetch, w, 100, 1, 0, 0, {});
    const int32_t s0 = p.Compute(n0, 0, ComputeUnit::kDevice, Waits(first));
    const int32_t store = p.Move(StepKind::kStore, g, 100, 0, 1, 1, {s0});
    const int32_t drop_w = breaks.stale ? -1 : p.Detach(w, 100, 1, {});
    const int32_t drop_g = p.Detach(g, 100, 1, {store});
    const int32_t h1 = p.Compute(n1, 1, ComputeUnit::kHost, {store});
    const int32_t h2 = p.Compute(n2, 2, ComputeUnit::kHost, {});
    const int32_t second =
        breaks.stale ? -1
                     : p.Move(StepKind::kPrefetch, w, 100, 1, 0, 3,
                              breaks.racing ? std::vector{drop_g} : std::vector{drop_g, h2});
    const int32_t s3 = p.Compute(n3, 3, ComputeUnit::kDevice, Waits(second));
    const int32_t back = breaks.store_back ? p.Move(StepKind::kStore, w, 100, 0, 1, 4, {s3}) : -1;
    const int32_t drop_w2 = breaks.carry ? -1 : p.Detach(w, 100, 4, Waits(back));
    p.Resident(x, 10, 0, 0, -1, s0);
    if (breaks.stale) {
      p.Resident(w, 100, 0, 3, first, drop_w2);
    } else {
      p.Resident(w, 100, 0, 0, first, drop_w);
      p.Resident(w, 100, 3, 3, second, drop_w2);
    }
    p.Resident(g, 100, 0, 0, s0, drop_g);
    p.Resident(y, 10, 3, 3, s3, -1);
    p.Copy(w, 100, -1, -1);
    p.Copy(m, 100, -1, -1);
    p.Copy(g, 100, store, h1);
    return std::move(p.plan);
  }

  static std::vector<int32_t> Waits(int32_t step) {
    return step < 0 ? std::vector<int32_t>{} : std::vector<int32_t>{step};
  }

  EvaluatedPlan Finish(Plan plan) const {
    return FinishPlan(loop, profile, LayoutOptions{}, {210, 210}, std::move(plan));
  }

  VerifyResult Verify(const EvaluatedPlan& planned) const {
    return VerifyPlan(graph, profile, planned.plan, planned.evaluation);
  }
};

}  // namespace hyperplan::host_update_test
