// The reference executor's host lane (issue 30): hand-built plans in which some compute steps
// run on the host, reading their inputs from copies on the host compute tier (ddr here) and
// writing their outputs into copies there, run clean for several iterations; the same plans
// with a wait or a free broken are refused by the executor itself (it never calls verify),
// naming the step, the value and the rule. Every plan goes through FinishPlan (evaluation.h),
// which lays it out and replays it; the replay's numbers are checked by hand first.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "executor/cuda_schedule.h"
#include "executor/executor.h"
#include "executor/host_backend.h"
#include "executor/plan_view.h"
#include "executor/timed_report.h"
#include "hyperplan/plan/evaluation.h"
#include "planner/planner_support.h"
#include "support/run_plan.h"

using namespace hyperplan;
using namespace hyperplan::executor;
using namespace hyperplan::planner_test;

namespace {

constexpr TierId kHbm = 0;
constexpr TierId kDdr = 1;  // the host compute tier H

// UnitProfile (hbm <-> ddr at 1 byte/ns, no latency) with a host unit computing from ddr. Its
// rates do not matter here: every plan below gives its node times by hand.
HardwareProfile HostProfile() {
  HardwareProfile profile = UnitProfile();
  profile.name = "unit-host";
  profile.host_compute.memory_tier = kDdr;
  profile.host_compute.sockets = 1;
  profile.host_compute.cores_per_socket = 1;
  profile.host_compute.peak_flops_per_s[DType::kFloat32] = kOneBytePerNs;
  profile.host_compute.memory_bandwidth_bytes_per_s = kOneBytePerNs;
  return profile;
}

PlanStep HostStep(Step boundary, std::vector<int32_t> waits = {}) {
  PlanStep step = ComputeStep(boundary, std::move(waits));
  step.unit = ComputeUnit::kHost;
  return step;
}

// A Store (hbm -> ddr, link 0) or a Prefetch (ddr -> hbm, link 1) of `bytes` of `value`.
PlanStep Crossing(StepKind kind, ValueId value, int64_t bytes, Step boundary,
                  std::vector<int32_t> waits) {
  const bool store = kind == StepKind::kStore;
  PlanStep step = TransferStep(kind, store ? 0 : 1, 0, std::move(waits), bytes);
  step.value = value;
  step.src_tier = store ? kHbm : kDdr;
  step.dst_tier = store ? kDdr : kHbm;
  step.boundary = boundary;
  return step;
}

ResidentInterval Resident(ValueId value, Step first, Step last, int64_t bytes, int32_t opened_by,
                          int32_t closed_by) {
  ResidentInterval interval;
  interval.value = value;
  interval.first_step = first;
  interval.last_step = last;
  interval.bytes = bytes;
  interval.opened_by = opened_by;
  interval.closed_by = closed_by;
  return interval;
}

TierCopy OnDdr(ValueId value, int64_t bytes, int32_t opened_by, int32_t closed_by) {
  return {value, kDdr, bytes, opened_by, closed_by, 0};
}

// A loop plan of the graph's nodes in model order, laid out and replayed.
EvaluatedPlan Finish(const Graph& graph, Plan plan) {
  plan.periodic = true;
  plan.produced_by = "hand";
  for (NodeId n = 0; n < static_cast<NodeId>(graph.nodes.size()); ++n) plan.order.push_back(n);
  return FinishPlan(graph, HostProfile(), LayoutOptions{}, {}, std::move(plan));
}

// The host runs the middle of the graph: n1's activation input a is Stored to ddr, its output
// b is Prefetched back, and its weight w never leaves ddr. n2 runs on the device meanwhile.
//   n0 (device)  x (10 B input)     -> a (20 B)   10 ns
//   n1 (host)    a, w (30 B weight) -> b (20 B)   40 ns
//   n2 (device)  x                  -> c (10 B)   30 ns
//   n3 (device)  b, c               -> y (10 B)   10 ns, the output
// Steps (stream: 0 compute, 1 hbm->ddr, 2 ddr->hbm, 3 the host lane):
//   0 compute n0                             0   [0, 10)
//   1 store a hbm->ddr, waits {0}            1   [10, 30)   20 B at 1 B/ns
//   2 compute n1 on the host, waits {1}      3   [30, 70)
//   3 compute n2                             0   [10, 40)
//   4 detach a, waits {1}                    0   [40, 40)
//   5 prefetch b ddr->hbm, waits {2, 4}      2   [70, 90)
//   6 compute n3, waits {5}                  0   [90, 100)
// The Detach and n1, which frees a's ddr copy, are unordered: a Detach after that free is
// still fine (executor.cc BeginDetach), a's bytes being needed nowhere after n1.
struct HostMiddle {
  Graph graph;
  ValueId x, w, a, b, c, y;
  EvaluatedPlan planned;
  HostMiddle() {
    x = Input(graph, "x", 10);
    w = Weight(graph, "w", 30);
    a = Work(graph, "n0", {x}, "a", 20, 10);
    b = Work(graph, "n1", {a, w}, "b", 20, 40);
    c = Work(graph, "n2", {x}, "c", 10, 30);
    y = Work(graph, "n3", {b, c}, "y", 10, 10);
    MarkOutput(graph, y);
    Plan plan;
    plan.node_time_ns = {10, 40, 30, 10};
    plan.steps = {ComputeStep(0),     Crossing(StepKind::kStore, a, 20, 1, {0}),
                  HostStep(1, {1}),   ComputeStep(2),
                  DetachStep({1}),    Crossing(StepKind::kPrefetch, b, 20, 3, {2, 4}),
                  ComputeStep(3, {5})};
    plan.steps[4].value = a;
    plan.steps[4].src_tier = kHbm;
    plan.steps[4].boundary = 3;
    // x until n2 reads it; a until its Detach; c and b until n3; y until the caller reads it.
    plan.residency = {Resident(x, 0, 2, 10, -1, 3), Resident(a, 0, 2, 20, 0, 4),
                      Resident(c, 2, 3, 10, 3, 6), Resident(b, 3, 3, 20, 5, 6),
                      Resident(y, 3, 3, 10, 6, -1)};
    // w's home; a's copy from its Store until n1, its last reader; b's from n1 until its
    // Prefetch.
    plan.tier_copies = {OnDdr(w, 30, -1, -1), OnDdr(a, 20, 1, 2), OnDdr(b, 20, 2, 5)};
    planned = Finish(graph, std::move(plan));
  }
  int32_t BlockOfCopy(ValueId value) const {  // PlanView: residencies, then tier copies
    for (size_t k = 0; k < planned.plan.tier_copies.size(); ++k) {
      if (planned.plan.tier_copies[k].value == value) {
        return static_cast<int32_t>(planned.plan.residency.size() + k);
      }
    }
    return -1;
  }
};

// Only the host touches h: a host step's output read by the next host step, which follows it
// on the host lane with no wait, and closes its copy. The input x is placed on ddr.
//   n0 (host)    x (10 B input), w (30 B weight) -> h (20 B)   20 ns
//   n1 (host)    h                              -> g (20 B)   20 ns
//   n2 (device)  g                              -> y (10 B)   10 ns, the output
// Steps: 0 n0 on the host [0, 20); 1 n1 on the host [20, 40); 2 prefetch g, waits {1},
// [40, 60); 3 n2, waits {2}, [60, 70).
struct HostChain {
  Graph graph;
  ValueId x, w, h, g, y;
  EvaluatedPlan planned;
  HostChain() {
    x = Input(graph, "x", 10);
    w = Weight(graph, "w", 30);
    h = Work(graph, "n0", {x, w}, "h", 20, 20);
    g = Work(graph, "n1", {h}, "g", 20, 20);
    y = Work(graph, "n2", {g}, "y", 10, 10);
    MarkOutput(graph, y);
    Plan plan;
    plan.node_time_ns = {20, 20, 10};
    plan.steps = {HostStep(0), HostStep(1), Crossing(StepKind::kPrefetch, g, 20, 2, {1}),
                  ComputeStep(2, {2})};
    plan.residency = {Resident(g, 2, 2, 20, 2, 3), Resident(y, 2, 2, 10, 3, -1)};
    plan.tier_copies = {OnDdr(x, 10, -1, 0), OnDdr(w, 30, -1, -1), OnDdr(h, 20, 0, 1),
                        OnDdr(g, 20, 1, 2)};
    planned = Finish(graph, std::move(plan));
  }
};

ExecutionReport Run(const Graph& graph, const Plan& plan,
                    const HardwareProfile& profile = HostProfile(), int32_t iterations = 3) {
  return testing::RunFullyChecked(graph, profile, plan, iterations);
}

}  // namespace

TEST_CASE("host lane: the hand-built plans replay as worked out") {
  const HostMiddle middle;
  const SimulationResult& timeline = middle.planned.evaluation.timeline;
  // n0 10 -> Store 20 -> n1 40 on the host -> Prefetch 20 -> n3 10: 100 ns; n2's 30 ns runs
  // on the device beside the Store and n1.
  CHECK(timeline.makespan_ns == 100);
  CHECK(timeline.host_compute_ns == 40);
  CHECK(timeline.compute_ns == 90);  // 10 + 40 + 30 + 10
  CHECK(timeline.steps[2].start_ns == 30);
  CHECK(timeline.steps[3].end_ns == 40);  // n2, while n1 runs on the host
  const HostChain chain;
  CHECK(chain.planned.evaluation.timeline.makespan_ns == 70);  // 20 + 20 + 20 + 10
  CHECK(chain.planned.evaluation.timeline.host_compute_ns == 40);
}

TEST_CASE("host lane: the view puts host steps on the last stream, reading copies on ddr") {
  const HostMiddle middle;
  const Plan& plan = middle.planned.plan;
  const PlanView view = BuildPlanView(middle.graph, HostProfile(), plan);
  // compute, hbm->ddr (link 0), ddr->hbm (link 1), then the host lane.
  CHECK(view.stream_count == 4);
  CHECK(view.host_lane == 3);
  CHECK(view.host_tier == kDdr);
  CHECK(view.stream_of == std::vector<int32_t>{0, 1, 3, 0, 0, 2, 0});
  const StepBlocks& n1 = view.step_blocks[2];
  // n1 reads a's copy the Store opened and w's home copy (inputs by ascending id: w 1, a 2),
  // writes b's copy it opens, closes a's copy; it touches no arena block.
  using Touched = std::vector<std::pair<ValueId, int32_t>>;
  CHECK(n1.reads == Touched{{middle.w, middle.BlockOfCopy(middle.w)},
                            {middle.a, middle.BlockOfCopy(middle.a)}});
  CHECK(n1.writes == Touched{{middle.b, middle.BlockOfCopy(middle.b)}});
  CHECK(n1.opens == std::vector<int32_t>{middle.BlockOfCopy(middle.b)});
  CHECK(n1.closes == std::vector<int32_t>{middle.BlockOfCopy(middle.a)});
  for (const auto& [value, block] : n1.reads) CHECK(view.blocks[block].buffer == 1);
}

TEST_CASE("host lane: a host step between a Store and a Prefetch runs clean 3 times") {
  const HostMiddle middle;
  const Plan& plan = middle.planned.plan;
  const ExecutionReport report = Run(middle.graph, plan);
  INFO(report.violation);
  REQUIRE(report.ok);
  CHECK(report.iterations_run == 3);
  CHECK(report.stream_count == 4);  // compute, hbm->ddr, ddr->hbm, the host lane
  CHECK(report.buffer_bytes == PlanBufferBytes(plan));
  // Per iteration: inputs x (n0), a and w (n1), x (n2), b and c (n3) = 6; one host step; the
  // 20 B Store of a and the 20 B Prefetch of b; a's Detach; y read back.
  CHECK(report.inputs_checked == 3 * 6);
  CHECK(report.host_computes == 3 * 1);
  CHECK(report.transfers == 3 * 2);
  CHECK(report.bytes_copied == 3 * 40);
  CHECK(report.detaches == 3 * 1);
  CHECK(report.outputs_checked == 3 * 1);
}

TEST_CASE("host lane: a Detach after the host step freed the stored copy is fine") {
  const HostMiddle middle;
  Plan plan = middle.planned.plan;
  // The Detach of a (step 4) now waits for n1 (step 2) too, so it always finds a's ddr copy
  // already freed by n1, its last reader: nothing needs a's bytes any more.
  plan.steps[4].waits_for = {1, 2};
  const ExecutionReport report = Run(middle.graph, plan);
  INFO(report.violation);
  CHECK(report.ok);
  CHECK(report.detaches == 3 * 1);
}

TEST_CASE("host lane: a value only host steps touch runs clean 3 times, never on the device") {
  const HostChain chain;
  const ExecutionReport report = Run(chain.graph, chain.planned.plan);
  INFO(report.violation);
  REQUIRE(report.ok);
  CHECK(report.iterations_run == 3);
  CHECK(report.stream_count == 3);  // compute, ddr->hbm, the host lane
  // Per iteration: x and w (n0), h (n1), g (n2) = 4 inputs; two host steps; g's 20 B fetch.
  CHECK(report.inputs_checked == 3 * 4);
  CHECK(report.host_computes == 3 * 2);
  CHECK(report.bytes_copied == 3 * 20);
  CHECK(report.outputs_checked == 3 * 1);
}

TEST_CASE("host lane broken: a host step not waiting for the Store of its input is caught") {
  const HostMiddle middle;
  Plan plan = middle.planned.plan;
  plan.steps[2].waits_for.clear();  // n1 no longer waits for the Store of a (step 1)
  const ExecutionReport report = Run(middle.graph, plan);
  REQUIRE_FALSE(report.ok);
  CHECK(report.iterations_run == 0);
  // Whether the Store had opened a's copy or not when n1 began, n1 is refused for reading it.
  CHECK_THAT(report.violation,
             Catch::StartsWith("step 2 (compute 'n1' on the host), iteration 1: reads 'a' (ddr "
                               "copy ["));
  CHECK_THAT(report.violation, Catch::Contains("which it does not wait for") ||
                                   Catch::Contains("before it is allocated"));
  CHECK_THAT(report.violation, Catch::Contains("rule: a step touches bytes only after"));
}

TEST_CASE("host lane broken: a copy freed while a host step may still read it is caught") {
  const HostMiddle middle;
  Plan plan = middle.planned.plan;
  // a's ddr copy freed by its Detach (step 4, after the Store only) instead of by n1, its
  // reader: nothing orders n1's read before the free.
  for (TierCopy& copy : plan.tier_copies) {
    if (copy.value == middle.a) copy.closed_by = 4;
  }
  const ExecutionReport report = Run(middle.graph, plan);
  REQUIRE_FALSE(report.ok);
  CHECK(report.iterations_run == 0);
  INFO(report.violation);
  // Either the Detach frees it while n1 reads it, or n1 reads it after the Detach freed it.
  const bool at_free =
      report.violation.starts_with("step 4 (detach 'a'), iteration 1: frees 'a' (ddr copy [");
  const bool at_read = report.violation.starts_with(
      "step 2 (compute 'n1' on the host), iteration 1: reads 'a' (ddr copy [");
  CHECK((at_free || at_read));
  if (at_free) {
    CHECK_THAT(report.violation,
               Catch::Contains("while step 2 of iteration 1 (compute 'n1' on the host) reads it"));
    CHECK_THAT(report.violation, Catch::Contains("rule: a block is freed only after every step"));
  } else {
    CHECK_THAT(report.violation, Catch::Contains("after step 4 of iteration 1 (detach 'a')"));
  }
}

TEST_CASE("host lane broken: a Prefetch not waiting for the host step writing it is caught") {
  const HostMiddle middle;
  Plan plan = middle.planned.plan;
  std::erase(plan.steps[5].waits_for, 2);  // the Prefetch of b keeps only its wait on the Detach
  const ExecutionReport report = Run(middle.graph, plan);
  REQUIRE_FALSE(report.ok);
  CHECK_THAT(report.violation,
             Catch::StartsWith("step 5 (prefetch 'b' ddr->hbm), iteration 1: reads 'b' (ddr copy"));
  CHECK_THAT(report.violation, Catch::Contains("rule: a step touches bytes only after"));
}

TEST_CASE("host lane broken: a host step in a profile with no host unit is refused") {
  const HostMiddle middle;
  const ExecutionReport report = Run(middle.graph, middle.planned.plan, UnitProfile());
  REQUIRE_FALSE(report.ok);
  CHECK(report.iterations_run == 0);
  CHECK(report.violation ==
        "step 2 (compute 'n1' on the host), iteration 1: runs on the host, but profile 'unit' "
        "has no host_compute section (rule: a compute step runs on the host only in a profile "
        "with a host compute unit (host_compute), reading and writing copies on its memory "
        "tier)");
}

TEST_CASE("host lane broken: a host step whose input has no copy on ddr is refused") {
  const HostChain chain;
  Plan plan = chain.planned.plan;
  std::erase_if(plan.tier_copies, [&](const TierCopy& copy) { return copy.value == chain.x; });
  const ExecutionReport report = Run(chain.graph, plan);
  REQUIRE_FALSE(report.ok);
  // n0 is the first step of the host lane and nothing waits on another stream before it.
  CHECK(report.violation ==
        "step 0 (compute 'n0' on the host), iteration 1: 'x' has no ddr copy at host compute "
        "step 0 (the host computes from it) (rule: every value a step reads or writes has a "
        "block at that step, inside its buffer)");
}

TEST_CASE("host lane timed: host steps hold the host lane for their node time") {
  const HostMiddle middle;
  HostBackend backend(CheckMode::kFull);
  ExecuteOptions options;
  options.iterations = 2;
  options.timed = true;
  options.time_scale = 100'000;  // 100 ns -> 10 ms of wall time
  const ExecutionReport report =
      Execute(middle.graph, HostProfile(), middle.planned.plan, backend, options);
  INFO(report.violation);
  REQUIRE(report.ok);
  REQUIRE(report.iteration_ns.size() == 2);
  // The critical path n0 10 + Store 20 + n1 40 + Prefetch 20 + n3 10 = 100 ns. Were n1 not
  // held for its 40 ns, the longest path would be 10 + 20 + 20 + 10 = 60 ns (the device's
  // n0 + n2 + n3 = 50), 4 ms of wall time short of this bound.
  CHECK(report.iteration_ns[0] >= 100);
  CHECK(report.iteration_ns[1] >= 100);
}

TEST_CASE("host lane timed: on the GPU a host step is a hold on the host lane's stream") {
  const HostMiddle middle;
  const Plan& plan = middle.planned.plan;
  const PlanView view = BuildPlanView(middle.graph, HostProfile(), plan);
  const DeviceSchedule schedule = BuildDeviceSchedule(view, middle.graph, HostProfile(), plan);
  CHECK(schedule.stream_count == 4);
  const DeviceOp& n1 = schedule.ops[2];
  CHECK(n1.kind == DeviceOpKind::kHold);
  CHECK(n1.stream == 3);
  CHECK(n1.hold_ns == 40);                          // node_time_ns[1], its host time
  CHECK(n1.wait_steps == std::vector<int32_t>{1});  // the Store, on stream 1
  CHECK(schedule.ops[5].wait_steps == std::vector<int32_t>{2, 4});  // n1 (host), Detach
}

TEST_CASE("host lane timed: a compute step stalls after its own lane's previous step") {
  // 0 device compute [0, 10); 1 host compute [20, 60) (it waited for something); 2 device
  // compute [10, 30). Device: step 2 starts as step 0 ends, no stall; host: step 1 waits 20 ns
  // from the lane's start. Total 20 ns (one compute stream for both would say 10: step 1
  // starting 10 ns after step 0, then step 2 behind step 1's end).
  Plan plan;
  plan.steps = {ComputeStep(0), ComputeStep(1), ComputeStep(2)};
  plan.steps[1].unit = ComputeUnit::kHost;
  const TimelineFigures figures =
      FiguresOf(plan, HostProfile(), {StepTiming{0, 10}, StepTiming{20, 60}, StepTiming{10, 30}});
  CHECK(figures.stall_ns == 20);
  CHECK(figures.makespan_ns == 60);
}
