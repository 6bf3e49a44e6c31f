// The plan as CUDA work (cuda_schedule.h) and the measured-against-simulated comparison
// (timed_report.h), without a GPU: streams, cross-stream waits, copy offsets, and the figures
// of hand-made timelines, each expected number worked out beside it.
#include "executor/cuda_schedule.h"

#include <catch2/catch.hpp>

#include "executor/plan_view.h"
#include "executor/timed_report.h"
#include "planner/planner_support.h"

using namespace hyperplan;
using namespace hyperplan::executor;
using namespace hyperplan::planner_test;

namespace {

// Two nodes and one value v of 100 B; the steps by hand (no planner), on UnitProfile:
//   0 compute n0                      stream 0
//   1 prefetch v ddr->hbm, 40 B       stream 1 (link 1, channel 0), waits {0}
//   2 prefetch v ddr->hbm, 40 B       stream 1, waits {0, 1}
//   3 compute n1                      stream 0, waits {1, 2}
//   4 store v hbm->ddr                stream 2 (link 0, channel 0), waits {0, 3}
//   5 detach v                        stream 0, waits {4}
struct HandPlan {
  Graph graph;
  Plan plan;
  PlanView view;
  HandPlan() {
    graph.values.push_back({});
    graph.values[0].name = "v";
    graph.values[0].bytes = 100;
    graph.nodes.resize(2);
    plan.node_time_ns = {10, 150};
    const auto transfer = [](StepKind kind, int32_t link, std::vector<int32_t> waits) {
      PlanStep step = TransferStep(kind, link, 0, std::move(waits));
      step.value = 0;
      step.bytes = 40;
      return step;
    };
    PlanStep first = ComputeStep(0);
    first.node = 0;
    PlanStep second = ComputeStep(1, {1, 2});
    second.node = 1;
    PlanStep detach = DetachStep({4});
    detach.value = 0;
    plan.steps = {
        first,  transfer(StepKind::kPrefetch, 1, {0}), transfer(StepKind::kPrefetch, 1, {0, 1}),
        second, transfer(StepKind::kStore, 0, {0, 3}), detach};
    // The device block of v at arena offset 256, its ddr copy at 4096 of the ddr buffer.
    view.buffers = {{0, true, 1024, 256}, {1, false, 8192, 4096}};
    view.blocks = {{0, 256, 100, "v (device)"}, {1, 4096, 100, "v (ddr)"}};
    view.stream_count = 3;
    view.stream_of = {0, 1, 1, 0, 2, 0};
    view.step_blocks.resize(6);
    view.step_blocks[1].source = 1;  // prefetches read the ddr copy, write the device block
    view.step_blocks[1].destination = 0;
    view.step_blocks[2].source = 1;
    view.step_blocks[2].destination = 0;
    view.step_blocks[4].source = 0;  // the store the other way
    view.step_blocks[4].destination = 1;
    // Each transfer's range, as BuildPlanView finds it: the last 40 of v's 100 bytes.
    for (int32_t s : {1, 2, 4}) {
      view.step_blocks[s].begin_byte = 60;
      view.step_blocks[s].bytes = 40;
    }
  }
};

StepTiming At(int64_t start_ns, int64_t end_ns) { return {start_ns, end_ns}; }

}  // namespace

TEST_CASE("cuda schedule: compute holds for the node time, Detach issues nothing") {
  const HandPlan hand;
  const DeviceSchedule schedule =
      BuildDeviceSchedule(hand.view, hand.graph, UnitProfile(), hand.plan);
  REQUIRE(schedule.ops.size() == 6);
  CHECK(schedule.stream_count == 3);
  CHECK(schedule.buffers.size() == 2);
  CHECK(schedule.buffers[0].device);
  CHECK_FALSE(schedule.buffers[1].device);
  CHECK(schedule.ops[0].kind == DeviceOpKind::kHold);
  CHECK(schedule.ops[0].hold_ns == 10);  // node_time_ns[0]
  CHECK(schedule.ops[3].hold_ns == 150);
  CHECK(schedule.ops[5].kind == DeviceOpKind::kNone);
  CHECK(schedule.ops[5].stream == 0);
}

TEST_CASE("cuda schedule: a wait becomes an event only across streams, the latest per stream") {
  const HandPlan hand;
  const DeviceSchedule schedule =
      BuildDeviceSchedule(hand.view, hand.graph, UnitProfile(), hand.plan);
  CHECK(schedule.ops[0].wait_steps.empty());
  CHECK(schedule.ops[1].wait_steps == std::vector<int32_t>{0});  // compute stream -> stream 1
  // Step 1 runs before step 2 on stream 1 anyway: only the wait on step 0 is left.
  CHECK(schedule.ops[2].wait_steps == std::vector<int32_t>{0});
  // Steps 1 and 2 are both on stream 1: step 2's end implies step 1's.
  CHECK(schedule.ops[3].wait_steps == std::vector<int32_t>{2});
  // Steps 0 and 3 are both on the compute stream: 3 is the latest.
  CHECK(schedule.ops[4].wait_steps == std::vector<int32_t>{3});
  CHECK(schedule.ops[5].wait_steps == std::vector<int32_t>{4});
}

TEST_CASE("cuda schedule: a copy moves the value's last bytes at the blocks' offsets") {
  const HandPlan hand;
  const DeviceSchedule schedule =
      BuildDeviceSchedule(hand.view, hand.graph, UnitProfile(), hand.plan);
  const DeviceOp& prefetch = schedule.ops[1];
  CHECK(prefetch.kind == DeviceOpKind::kCopy);
  CHECK(prefetch.stream == 1);
  CHECK(prefetch.link == 1);
  CHECK(prefetch.bytes == 40);  // min(step bytes 40, value bytes 100)
  // The last 40 of 100 bytes start at byte 60 of the value: 4096 + 60 and 256 + 60.
  CHECK(prefetch.src_buffer == 1);
  CHECK(prefetch.src_offset_bytes == 4156);
  CHECK(prefetch.dst_buffer == 0);
  CHECK(prefetch.dst_offset_bytes == 316);
  const DeviceOp& store = schedule.ops[4];
  CHECK(store.stream == 2);
  CHECK(store.src_buffer == 0);
  CHECK(store.src_offset_bytes == 316);
  CHECK(store.dst_buffer == 1);
  CHECK(store.dst_offset_bytes == 4156);
}

TEST_CASE("cuda schedule: the planner's plans map onto the executor's streams and blocks") {
  // s (100 B) stored, dropped and fetched back under a 350 B budget (planner_support.h).
  const StoredThenFetched stored;
  const Graph& graph = stored.graph;
  const Plan plan = PlanAndVerify(graph, UnitProfile(), Budget(350)).plan;
  const PlanView view = BuildPlanView(graph, UnitProfile(), plan);
  const DeviceSchedule schedule = BuildDeviceSchedule(view, graph, UnitProfile(), plan);
  REQUIRE(schedule.ops.size() == plan.steps.size());
  int32_t copies = 0;
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const PlanStep& step = plan.steps[k];
    const DeviceOp& op = schedule.ops[k];
    CHECK(op.stream == view.stream_of[k]);
    for (int32_t wait : op.wait_steps) CHECK(view.stream_of[wait] != op.stream);
    if (step.kind != StepKind::kPrefetch && step.kind != StepKind::kStore) continue;
    ++copies;
    CHECK(op.bytes == 100);  // all of s each way
    const Block& source = view.blocks[view.step_blocks[k].source];
    CHECK(op.src_buffer == source.buffer);
    CHECK(op.src_offset_bytes == source.offset_bytes);
    // A Store reads the arena (buffer 0) and writes ddr's buffer (1); a Prefetch the reverse.
    CHECK(op.src_buffer == (step.kind == StepKind::kStore ? 0 : 1));
  }
  CHECK(copies == 2);
}

TEST_CASE("timed report: makespan, stall and link busy time, simulated against measured") {
  // Steps: 0 compute, 1 prefetch (link 1), 2 prefetch (link 1, another channel), 3 compute
  // waiting for both, 4 detach.
  Plan plan;
  plan.steps = {ComputeStep(0), TransferStep(StepKind::kPrefetch, 1, 0, {}),
                TransferStep(StepKind::kPrefetch, 1, 1, {}), ComputeStep(1, {1, 2}),
                DetachStep({3})};
  plan.steps[1].bytes = 30;
  plan.steps[2].bytes = 20;
  const std::vector<StepTiming> simulated = {At(0, 10), At(0, 30), At(5, 25), At(30, 40),
                                             At(40, 40)};
  const std::vector<StepTiming> slow = {At(0, 20), At(0, 50), At(5, 45), At(50, 70), At(70, 70)};
  const std::vector<StepTiming> fast = {At(0, 12), At(0, 35), At(5, 30), At(35, 45), At(45, 45)};
  const TimedComparison comparison = CompareTimings(plan, UnitProfile(), simulated, {slow, fast});
  CHECK(comparison.iterations == 2);
  CHECK(comparison.fastest_iteration == 2);  // 45 ns against 70 ns
  CHECK(comparison.simulated_makespan_ns == 40);
  CHECK(comparison.measured_makespan_ns == 45);
  CHECK(comparison.measured_mean_makespan_ns == 57);  // (70 + 45) / 2, rounded down
  CHECK(comparison.ratio() == Approx(45.0 / 40.0));
  // The second compute starts 30 - 10 = 20 ns after the first ends (simulated), 35 - 12 = 23.
  CHECK(comparison.simulated_stall_ns == 20);
  CHECK(comparison.measured_stall_ns == 23);
  REQUIRE(comparison.links.size() == 1);  // only link 1 carries anything
  const LinkComparison& link = comparison.links[0];
  CHECK(link.link == 1);
  CHECK(link.transfers == 2);
  CHECK(link.bytes == 50);  // 30 + 20
  // Busy: [0, 30) and [5, 25) overlap: 30 ns; measured [0, 35) and [5, 30): 35 ns.
  CHECK(link.simulated_busy_ns == 30);
  CHECK(link.measured_busy_ns == 35);
  const std::string text = FormatTimedComparison(comparison, UnitProfile());
  CHECK_THAT(text, Catch::Contains("measured/simulated 1.125"));
  CHECK_THAT(text, Catch::Contains("link ddr->hbm: 2 transfers"));
}

TEST_CASE("timed report: busy time is the union of intervals, gaps left out") {
  Plan plan;
  plan.steps = {TransferStep(StepKind::kPrefetch, 1, 0, {}),
                TransferStep(StepKind::kPrefetch, 1, 0, {})};
  // [0, 10) and [20, 25): 10 + 5 = 15 ns busy, the 10 ns gap not counted; makespan 25.
  const TimelineFigures figures = FiguresOf(plan, UnitProfile(), {At(0, 10), At(20, 25)});
  CHECK(figures.makespan_ns == 25);
  CHECK(figures.stall_ns == 0);
  CHECK(figures.link_busy_ns == std::vector<int64_t>{0, 15});
}
