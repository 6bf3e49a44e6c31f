// What bounds an iteration: the compute stream's time split into FLOPs, HBM traffic and
// launches by each node's roofline term, the waits, each link's busy time with its channels
// counted, and the largest of them named. Graphs and timelines are written by hand; the
// arithmetic is beside each check.
#include "hyperplan/plan/bottleneck.h"

#include <catch2/catch.hpp>

#include "support/tiny_graph.h"

using namespace hyperplan;
namespace t = hyperplan::testing;

namespace {

void Transfer(Plan& plan, PlanEvaluation& evaluation, int32_t link, int32_t channel,
              int64_t start_ns, int64_t end_ns) {
  PlanStep step;
  step.kind = StepKind::kPrefetch;
  step.link = link;
  step.channel = channel;
  plan.steps.push_back(step);
  evaluation.timeline.steps.push_back({start_ns, end_ns});
}

void Compute(Plan& plan, PlanEvaluation& evaluation, NodeId node, int64_t start_ns,
             int64_t end_ns) {
  PlanStep step;
  step.kind = StepKind::kCompute;
  step.node = node;
  plan.steps.push_back(step);
  evaluation.timeline.steps.push_back({start_ns, end_ns});
}

// The unit machine (1 FLOP/ns; links 0 hbm->ddr and 1 ddr->hbm at 1 byte/ns) with HBM at
// 8 bytes/ns and 5 ns a kernel launch.
HardwareProfile Machine() {
  HardwareProfile profile = t::UnitProfile();
  profile.compute.memory_bandwidth_bytes_per_s = 8'000'000'000;
  profile.compute.kernel_launch_overhead_ns = 5;
  return profile;
}

// Node 0, MatMul [8, 8] x [8, 8] f32: 2 x 64 x 8 = 1,024 FLOPs -> 1,024 ns; 3 x 256 = 768 B
// -> 96 ns: FLOP-bound, 1,024 + 5 = 1,029 ns. Node 1, Add of [1024] f32 (no FLOP rule: one a
// output element): 1,024 FLOPs -> 1,024 ns; 3 x 4,096 = 12,288 B -> 1,536 ns: HBM-bound,
// 1,536 + 5 = 1,541 ns.
Graph TwoNodes() {
  Graph graph;
  const ValueId a = t::Tensor(graph, "a", {8, 8});
  const ValueId b = t::Tensor(graph, "b", {8, 8});
  const ValueId c = t::Tensor(graph, "c", {8, 8});
  t::Op(graph, "mm", "MatMul", {a, b}, {c});
  const ValueId x = t::Tensor(graph, "x", {1024});
  const ValueId y = t::Tensor(graph, "y", {1024});
  const ValueId z = t::Tensor(graph, "z", {1024});
  t::Op(graph, "add", "Add", {x, y}, {z});
  return graph;
}

}  // namespace

TEST_CASE("bottleneck: node times split by their bound, waits apart, the largest named") {
  const Graph graph = TwoNodes();
  const HardwareProfile profile = Machine();
  Plan plan;
  PlanEvaluation evaluation;
  plan.periodic = true;
  Compute(plan, evaluation, 0, 0, 1029);
  Transfer(plan, evaluation, 1, 0, 0, 1100);  // ddr->hbm busy 1,100 ns
  Compute(plan, evaluation, 1, 1100, 2641);   // waits 71 ns for the transfer, then 1,541 ns
  evaluation.timeline.makespan_ns = 2641;
  const Bottleneck bound = FindBottleneck(graph, profile, plan, evaluation.timeline);
  CHECK(bound.flops_ns == 1024);        // the MatMul less its launch
  CHECK(bound.hbm_traffic_ns == 1536);  // the Add less its launch
  CHECK(bound.launch_ns == 10);         // 2 x 5
  CHECK(bound.compute_busy_ns == 2570);
  CHECK(bound.compute_wait_ns == 71);  // 2,641 - 2,570
  CHECK(bound.link_busy_ns == std::vector<int64_t>{0, 1100});
  // HBM traffic 1,536 > ddr->hbm 1,100 > FLOPs 1,024.
  CHECK(bound.kind == BoundKind::kHbmTraffic);
  CHECK(bound.busy_ns == 1536);
  CHECK(BottleneckName(profile, bound) == "HBM traffic");
  // Of 2,641 ns, rounded half up: 1,536 -> 58.2%; 1,100 -> 41.7%; 1,024 -> 38.8%; waits 71 ->
  // 2.7%; launches 10 -> 0.4% and hbm->ddr 0, under 1%, left out.
  CHECK(DescribeBottleneck(profile, bound) ==
        "HBM traffic 58% of the 2.64 us iteration (ddr->hbm 42%, FLOPs 39%; compute waits 3%)");
}

TEST_CASE("bottleneck: a two-channel link busy on both channels counts once") {
  HardwareProfile profile = Machine();
  profile.links[1].channels = 2;
  const Graph graph = TwoNodes();
  Plan plan;
  PlanEvaluation evaluation;
  plan.periodic = true;
  evaluation.timeline.makespan_ns = 500;
  Transfer(plan, evaluation, 0, 0, 0, 100);  // link 0: 100 + 200 = 300 ns on its one channel
  Transfer(plan, evaluation, 0, 0, 100, 300);
  Transfer(plan, evaluation, 1, 0, 0,
           400);  // link 1: 400 + 400 = 800 channel-ns over 2 channels = 400
  Transfer(plan, evaluation, 1, 1, 100, 500);
  CHECK(LinkBusyNs(profile, plan, evaluation.timeline) == std::vector<int64_t>{300, 400});
  const Bottleneck bound = FindBottleneck(graph, profile, plan, evaluation.timeline);
  CHECK(bound.kind == BoundKind::kLink);
  CHECK(bound.link == 1);
  CHECK(bound.busy_ns == 400);
  // No compute steps: all 500 ns are waits. 400 / 500 = 80%, 300 / 500 = 60%.
  CHECK(DescribeBottleneck(profile, bound) ==
        "ddr->hbm 80% of the 500 ns iteration (hbm->ddr 60%; compute waits 100%)");
}

TEST_CASE("bottleneck: a measured node time keeps its bound; ties go to the compute kinds") {
  const Graph graph = TwoNodes();
  const HardwareProfile profile = Machine();
  Plan plan;
  PlanEvaluation evaluation;
  // The MatMul measured at 3 ns, less than a launch: all 3 ns are launch. The Add measured at
  // 1,105 ns: 5 launch, 1,100 HBM traffic (its estimated bound), as busy as ddr->hbm.
  Compute(plan, evaluation, 0, 0, 3);
  Compute(plan, evaluation, 1, 3, 1108);
  Transfer(plan, evaluation, 1, 0, 0, 1100);
  evaluation.timeline.makespan_ns = 1108;
  const Bottleneck bound = FindBottleneck(graph, profile, plan, evaluation.timeline);
  CHECK(bound.launch_ns == 8);  // 3 + 5
  CHECK(bound.flops_ns == 0);
  CHECK(bound.hbm_traffic_ns == 1100);
  CHECK(bound.compute_wait_ns == 0);
  CHECK(bound.kind == BoundKind::kHbmTraffic);  // 1,100 each: HBM traffic comes first
  // A single run, not an iteration. 1,100 / 1,108 = 99.3%; launches 8 / 1,108 = 0.7%.
  CHECK(DescribeBottleneck(profile, bound) ==
        "HBM traffic 99% of the 1.11 us run (ddr->hbm 99%, launches 1%)");
}

TEST_CASE("bottleneck: nothing offloaded is the compute stream alone") {
  const Graph graph = TwoNodes();
  const Bottleneck bound = NoOffloadBottleneck(graph, Machine(), {1029, 1541}, true);
  CHECK(bound.flops_ns == 1024);
  CHECK(bound.hbm_traffic_ns == 1536);
  CHECK(bound.launch_ns == 10);
  CHECK(bound.makespan_ns == 2570);  // 1,029 + 1,541
  CHECK(bound.compute_wait_ns == 0);
  CHECK(bound.link_busy_ns == std::vector<int64_t>{0, 0});
  CHECK(BottleneckName(Machine(), bound) == "HBM traffic");
  // 1,536 / 2,570 = 59.8%, 1,024 / 2,570 = 39.8%, 10 / 2,570 = 0.4% (left out).
  CHECK(DescribeBottleneck(Machine(), bound) ==
        "HBM traffic 60% of the 2.57 us iteration (FLOPs 40%)");
}
