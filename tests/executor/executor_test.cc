// The reference executor in process: byte patterns, the plan's happens-before relation, plans
// the planner makes for tiny unit-rate graphs (planner_support.h) run clean for 3 iterations,
// and hand-broken copies of them are caught by the executor itself (never calling verify).
#include "executor/executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstddef>
#include <vector>

#include "executor/byte_pattern.h"
#include "executor/host_backend.h"
#include "executor/ledger.h"
#include "hyperplan/loop.h"
#include "planner/loop_graphs.h"
#include "planner/planner_support.h"
#include "support/run_plan.h"

using namespace hyperplan;
using namespace hyperplan::executor;
using namespace hyperplan::planner_test;

namespace {

ExecutionReport Run(const Graph& graph, const Plan& plan, int32_t iterations = 3) {
  return testing::RunFullyChecked(graph, UnitProfile(), plan, iterations);
}

void RemoveWait(PlanStep& step, int32_t wait) { std::erase(step.waits_for, wait); }

}  // namespace

TEST_CASE("pattern: a pattern names its value, its iteration and each byte's position") {
  std::vector<std::byte> bytes(100);
  const BytePattern pattern{7, 2, 100, 100};
  FillPattern(bytes.data(), pattern, 0, 100);
  CHECK_FALSE(FindMismatch(bytes.data(), pattern, 0, 100, CheckMode::kFull));
  // Another value, another iteration: byte 0 already differs (64-bit words, well mixed).
  CHECK(FindMismatch(bytes.data(), {8, 2, 100, 100}, 0, 100, CheckMode::kFull) == 0);
  CHECK(FindMismatch(bytes.data(), {7, 3, 100, 100}, 0, 100, CheckMode::kFull) == 0);
  // One flipped byte is found where it is.
  bytes[57] ^= std::byte{1};
  CHECK(FindMismatch(bytes.data(), pattern, 0, 100, CheckMode::kFull) == 57);
}

TEST_CASE("pattern: an in-place update changes only the tail; the head keeps iteration 0") {
  // 110 B state whose last 10 B are rewritten each iteration: bytes [0, 100) stay at version 0.
  std::vector<std::byte> state(110);
  FillPattern(state.data(), {3, 0, 110, 10}, 0, 110);
  FillPattern(state.data() + 100, {3, 4, 110, 10}, 100, 110);  // iteration 4's update
  CHECK_FALSE(FindMismatch(state.data(), {3, 4, 110, 10}, 0, 110, CheckMode::kFull));
  CHECK(FindMismatch(state.data(), {3, 3, 110, 10}, 0, 110, CheckMode::kFull) >= 100);
  // The first 100 bytes are what a whole value of version 0 holds there.
  CHECK_FALSE(FindMismatch(state.data(), {3, 0, 110, 110}, 0, 100, CheckMode::kFull));
}

TEST_CASE("pattern: sampled checks read 64 runs of 8 bytes, the first and last included") {
  std::vector<std::byte> bytes(64 * 1024);
  const BytePattern pattern{1, 1, 64 * 1024, 64 * 1024};
  FillPattern(bytes.data(), pattern, 0, 64 * 1024);
  bytes.back() ^= std::byte{0x80};
  CHECK(FindMismatch(bytes.data(), pattern, 0, 64 * 1024, CheckMode::kSampled) == 64 * 1024 - 1);
  bytes.back() ^= std::byte{0x80};
  // Stride (65536 - 8) / 63 = 1040: byte 500 is in no sample, so only the full check sees it.
  bytes[500] ^= std::byte{1};
  CHECK_FALSE(FindMismatch(bytes.data(), pattern, 0, 64 * 1024, CheckMode::kSampled));
  CHECK(FindMismatch(bytes.data(), pattern, 0, 64 * 1024, CheckMode::kFull) == 500);
}

TEST_CASE("order: happens-before follows waits and stream order, not the sequence") {
  // Steps 0 and 2 on stream 0, 1 and 3 on stream 1; step 2 waits for step 1.
  const HappensBefore order({0, 1, 0, 1}, {{}, {}, {1}, {}}, 2);
  CHECK(order.Ordered({0, 1}, {2, 1}));        // stream order
  CHECK(order.Ordered({1, 1}, {2, 1}));        // the wait
  CHECK_FALSE(order.Ordered({0, 1}, {1, 1}));  // earlier in the sequence, but unordered
  CHECK_FALSE(order.Ordered({0, 1}, {3, 1}));  // step 3 follows step 1, which knows nothing of 0
  CHECK_FALSE(order.Ordered({2, 1}, {3, 1}));
  CHECK(order.Ordered({3, 1}, {0, 2}));   // the next iteration starts after this one ends
  CHECK(order.Ordered({-1, 1}, {0, 1}));  // the caller placed things before the steps
}

TEST_CASE("ledger: it refuses a block over bytes another still holds") {
  const HappensBefore order({0, 1}, {{}, {}}, 2);
  Ledger ledger({{0, 0, 64, "'x'"}, {0, 32, 64, "'y'"}}, order, {"compute 'n0'", "prefetch"});
  CHECK_FALSE(ledger.Allocate(0, {0, 1}));
  const auto overlap = ledger.Allocate(1, {1, 1});
  REQUIRE(overlap);
  CHECK(*overlap == "allocates 'y' over bytes [32, 64) that 'x' still holds");
  // Freed by step 0, which step 1 does not wait for: still refused.
  CHECK_FALSE(ledger.Free(0, {0, 1}));
  CHECK_THAT(*ledger.Allocate(1, {1, 1}), Catch::Contains("which it does not wait for"));
  // The next iteration is ordered after it.
  CHECK_FALSE(ledger.Allocate(1, {1, 2}));
}

TEST_CASE("clean: a weight fetched and dropped twice an iteration runs clean 3 times") {
  const TwiceRead g;
  const Plan plan = PlanAndVerify(g.graph, UnitProfile(), Budget(210)).plan;
  const ExecutionReport report = Run(g.graph, plan);
  INFO(report.violation);
  REQUIRE(report.ok);
  CHECK(report.iterations_run == 3);
  CHECK(report.stream_count == 2);  // compute, and ddr->hbm channel 0 (nothing is stored)
  CHECK(report.buffer_bytes == PlanBufferBytes(plan));
  // Per iteration: inputs w, a, b, c + w, d = 6; two 50 B Prefetches; two Detaches; y.
  CHECK(report.inputs_checked == 3 * 6);
  CHECK(report.transfers == 3 * 2);
  CHECK(report.bytes_copied == 3 * 100);
  CHECK(report.detaches == 3 * 2);
  CHECK(report.outputs_checked == 3 * 1);
}

TEST_CASE("clean: a stored, dropped and fetched-back value runs clean 3 times") {
  const StoredThenFetched g;
  const Plan plan = PlanAndVerify(g.graph, UnitProfile(), Budget(350)).plan;
  REQUIRE(StepsOf(plan, StepKind::kStore, g.s).size() == 1);
  const ExecutionReport report = Run(g.graph, plan);
  INFO(report.violation);
  REQUIRE(report.ok);
  CHECK(report.stream_count == 3);  // compute, hbm->ddr, ddr->hbm
  // Per iteration: the 100 B Store and the 100 B Prefetch.
  CHECK(report.bytes_copied == 3 * 200);
}

TEST_CASE("clean: in-place KV state carries each iteration's append into the next") {
  const KvAppend g;
  // Budget 350: the 110 B buffer leaves the device for step 3 (loop_test.cc); the write-back
  // Store moves only the 10 appended bytes, the Prefetch all 110.
  const Plan plan = PlanAndVerify(g.graph, UnitProfile(), g.Options(350)).plan;
  REQUIRE(plan.periodic);
  REQUIRE(plan.aliases.size() == 1);
  const ExecutionReport report = Run(g.graph, plan, 4);
  INFO(report.violation);
  REQUIRE(report.ok);
  CHECK(report.iterations_run == 4);
  // Iteration i's reader after n1 finds the tail at version i; a fresh pattern each time, so a
  // Store that wrote nothing back would fail the next iteration's check.
  CHECK(report.outputs_checked == 4 * 1);  // z (present is the state, not an output)
}

TEST_CASE("clean: a one-shot plan runs each iteration from a fresh preload") {
  const TwiceRead g;
  PlanOptions options = Budget(210);
  options.single_run = true;
  const Plan plan = PlanAndVerify(g.graph, UnitProfile(), options).plan;
  REQUIRE_FALSE(plan.periodic);
  const ExecutionReport report = Run(g.graph, plan);
  INFO(report.violation);
  CHECK(report.ok);
  CHECK(report.iterations_run == 3);
}

TEST_CASE("broken plan: a compute step without its Prefetch's wait is caught") {
  const TwiceRead g;
  Plan plan = PlanAndVerify(g.graph, UnitProfile(), Budget(210)).plan;
  const auto fetches = StepsOf(plan, StepKind::kPrefetch, g.w);
  const int32_t n0 = ComputeStepOf(plan, 0);
  REQUIRE(std::count(plan.steps[n0].waits_for.begin(), plan.steps[n0].waits_for.end(),
                     fetches[0]) == 1);
  RemoveWait(plan.steps[n0], fetches[0]);
  const ExecutionReport report = Run(g.graph, plan);
  REQUIRE_FALSE(report.ok);
  CHECK(report.iterations_run == 0);
  // Whether the Prefetch had started or not when n0 began, n0 is refused for reading w.
  CHECK_THAT(report.violation,
             Catch::StartsWith(fmt::format("step {} (compute 'n0'), iteration 1: reads 'w'", n0)));
  CHECK_THAT(report.violation, Catch::Contains("rule: a step touches bytes only after"));
}

TEST_CASE("broken plan: two blocks live at once at one offset are caught") {
  const TwiceRead g;
  Plan plan = PlanAndVerify(g.graph, UnitProfile(), Budget(210)).plan;
  // a (written by n0) and w (read by n0) are both live at step 0: put a on w's bytes.
  size_t block_a = 0, block_w = 0;
  for (size_t r = 0; r < plan.residency.size(); ++r) {
    if (plan.residency[r].value == g.a) block_a = r;
    if (plan.residency[r].value == g.w && plan.residency[r].first_step == 0) block_w = r;
  }
  REQUIRE(plan.residency[block_a].first_step == 0);
  plan.layout.offset_bytes[block_a] = plan.layout.offset_bytes[block_w];
  const ExecutionReport report = Run(g.graph, plan);
  REQUIRE_FALSE(report.ok);
  CHECK_THAT(report.violation, Catch::Contains("(compute 'n0'), iteration 1: allocates 'a'"));
  CHECK_THAT(report.violation, Catch::Contains("that 'w' (device block"));
  CHECK_THAT(report.violation, Catch::Contains("rule: blocks never overlap in time and space"));
}

TEST_CASE("broken plan: a Detach that does not wait for its Store is caught") {
  const StoredThenFetched g;
  Plan plan = PlanAndVerify(g.graph, UnitProfile(), Budget(350)).plan;
  const int32_t store = StepsOf(plan, StepKind::kStore, g.s)[0];
  const int32_t detach = StepsOf(plan, StepKind::kDetach, g.s)[0];
  RemoveWait(plan.steps[detach], store);
  const ExecutionReport report = Run(g.graph, plan);
  REQUIRE_FALSE(report.ok);
  CHECK_THAT(report.violation, Catch::StartsWith(fmt::format(
                                   "step {} (detach 's'), iteration 1: drops 's'", detach)));
  CHECK_THAT(report.violation, Catch::Contains("rule: a Detach drops the device copy only when"));
}

TEST_CASE("broken plan: a Prefetch ordered after its Store by nothing is caught") {
  const StoredThenFetched g;
  Plan plan = PlanAndVerify(g.graph, UnitProfile(), Budget(350)).plan;
  const int32_t store = StepsOf(plan, StepKind::kStore, g.s)[0];
  const int32_t fetch = StepsOf(plan, StepKind::kPrefetch, g.s)[0];
  // Without its direct wait the Prefetch is still ordered after the Store: it waits for the
  // last compute-stream step before it, which follows the Detach, which waits for the Store.
  Plan implied = plan;
  RemoveWait(implied.steps[fetch], store);
  const ExecutionReport still_ok = Run(g.graph, implied);
  INFO(still_ok.violation);
  CHECK(still_ok.ok);
  // Without any wait nothing orders it: it reads the ddr copy before the Store allocated it or
  // unordered with it, or takes device bytes a compute step may still use; it is the step
  // refused either way (n4, which reads s, still waits for it).
  plan.steps[fetch].waits_for.clear();
  const ExecutionReport report = Run(g.graph, plan);
  REQUIRE_FALSE(report.ok);
  CHECK_THAT(report.violation, Catch::StartsWith(fmt::format(
                                   "step {} (prefetch 's' ddr->hbm), iteration 1: ", fetch)));
  CHECK_THAT(report.violation, Catch::Contains("does not wait for") ||
                                   Catch::Contains("before it is allocated") ||
                                   Catch::Contains("still holds"));
}

TEST_CASE("broken plan: a block freed before its last reader is caught") {
  const TwiceRead g;
  Plan plan = PlanAndVerify(g.graph, UnitProfile(), Budget(210)).plan;
  // a is written by n0 and read by n1: free it at n0's end instead.
  const int32_t n0 = ComputeStepOf(plan, 0);
  const int32_t n1 = ComputeStepOf(plan, 1);
  for (ResidentInterval& interval : plan.residency) {
    if (interval.value == g.a) interval.closed_by = n0;
  }
  const ExecutionReport report = Run(g.graph, plan);
  REQUIRE_FALSE(report.ok);
  CHECK_THAT(report.violation,
             Catch::StartsWith(fmt::format("step {} (compute 'n1'), iteration 1: reads 'a'", n1)));
  CHECK_THAT(report.violation, Catch::Contains("after step " + std::to_string(n0)));
}

TEST_CASE("broken plan: a weight freed before the iteration ends is caught at the next") {
  const TwiceRead g;
  // Budget 300 >= the 252 B peak: w stays on the device all iteration, one block from the run's
  // start to its end. Freeing it after its last reader (n3) breaks "ends as it began".
  Plan plan = PlanAndVerify(g.graph, UnitProfile(), Budget(300)).plan;
  const int32_t n3 = ComputeStepOf(plan, 3);
  int32_t blocks_of_w = 0;
  for (ResidentInterval& interval : plan.residency) {
    if (interval.value != g.w) continue;
    REQUIRE(interval.opened_by == -1);
    REQUIRE(interval.closed_by == -1);
    interval.closed_by = n3;
    ++blocks_of_w;
  }
  REQUIRE(blocks_of_w == 1);
  const ExecutionReport report = Run(g.graph, plan);
  REQUIRE_FALSE(report.ok);
  CHECK(report.iterations_run == 1);  // iteration 1 itself is fine
  CHECK_THAT(report.violation, Catch::StartsWith("before iteration 2: 'w' (device block"));
  CHECK_THAT(report.violation, Catch::Contains("is not where iteration 1 left it"));
  CHECK_THAT(report.violation, Catch::Contains("rule: an iteration ends as it began"));
}

TEST_CASE("clean: sampled checks run the same plan clean") {
  const TwiceRead g;
  const Plan plan = PlanAndVerify(g.graph, UnitProfile(), Budget(210)).plan;
  HostBackend backend(CheckMode::kSampled);
  ExecuteOptions options;
  options.iterations = 2;
  const ExecutionReport report = Execute(g.graph, UnitProfile(), plan, backend, options);
  INFO(report.violation);
  CHECK(report.ok);
  CHECK(report.inputs_checked == 2 * 6);
}

TEST_CASE("timed: no iteration is faster than the simulated makespan") {
  const TwiceRead g;
  const PlanResult plan_result = PlanAndVerify(g.graph, UnitProfile(), Budget(210));
  const Plan& plan = plan_result.plan;
  const PlanEvaluation& evaluation = plan_result.evaluation;
  REQUIRE(evaluation.summary.makespan_ns == 280);  // loop_test.cc: a 50 ns stall, then 230 ns
  HostBackend backend(CheckMode::kFull);
  ExecuteOptions options;
  options.iterations = 2;
  options.timed = true;
  options.time_scale = 20'000;  // 280 ns -> 5.6 ms of wall time
  const ExecutionReport report = Execute(g.graph, UnitProfile(), plan, backend, options);
  INFO(report.violation);
  REQUIRE(report.ok);
  REQUIRE(report.iteration_ns.size() == 2);
  // Every step holds its stream at least its planned time and starts no earlier than the
  // replay's start (its waits end no earlier), so the critical path is at least 280 ns. How
  // much longer is the benchmark's question (docs/benchmarks.md), not a test's.
  CHECK(report.iteration_ns[0] >= 280);
  CHECK(report.iteration_ns[1] >= 280);
}

TEST_CASE("broken plan: a wait on a later step is refused before any thread starts") {
  const TwiceRead g;
  Plan plan = PlanAndVerify(g.graph, UnitProfile(), Budget(210)).plan;
  const int32_t n0 = ComputeStepOf(plan, 0);
  const int32_t n1 = ComputeStepOf(plan, 1);
  // n0 waiting for n1, which runs after it on the same stream: it would wait forever.
  plan.steps[n0].waits_for.push_back(n1);
  const ExecutionReport report = Run(g.graph, plan);
  CHECK_FALSE(report.ok);
  CHECK(report.violation == fmt::format("step {}: waits for step {}, which is not earlier in the "
                                        "sequence (rule: a step waits only for steps before it "
                                        "in `steps`)",
                                        n0, n1));
}

TEST_CASE("clean: a two-hop route runs through its staging copy on ddr") {
  const TwiceRead g;
  // Weights home on nvme, which has no link to hbm: each fetch of w is nvme -> ddr (a staging
  // copy on ddr) then ddr -> hbm.
  const Plan plan = PlanAndVerify(g.graph, NvmeProfile(), Budget(210)).plan;
  const auto fetches = StepsOf(plan, StepKind::kPrefetch, g.w);
  REQUIRE(std::any_of(fetches.begin(), fetches.end(),
                      [&](int32_t s) { return plan.steps[s].src_tier == 2; }));
  HostBackend backend(CheckMode::kFull);
  ExecuteOptions options;
  options.iterations = 3;
  const ExecutionReport report = Execute(g.graph, NvmeProfile(), plan, backend, options);
  INFO(report.violation);
  REQUIRE(report.ok);
  CHECK(report.stream_count == 3);  // compute, nvme->ddr, ddr->hbm
  // Every hop moves w's 50 B.
  CHECK(report.bytes_copied == 50 * static_cast<int64_t>(fetches.size()) * 3);
}

TEST_CASE("clean: a link with two channels runs clean, whichever channel each copy takes") {
  const StoredThenFetched g;
  const HardwareProfile profile = UnitProfile(int64_t{1} << 40, 2);
  const Plan plan = PlanAndVerify(g.graph, profile, Budget(350)).plan;
  HostBackend backend(CheckMode::kFull);
  ExecuteOptions options;
  options.iterations = 3;
  const ExecutionReport report = Execute(g.graph, profile, plan, backend, options);
  INFO(report.violation);
  CHECK(report.ok);
  CHECK(report.iterations_run == 3);
  CHECK(report.bytes_copied == 3 * 200);  // the 100 B Store and the 100 B Prefetch
}

TEST_CASE("clean: outputs no node produces are read back as the caller placed them") {
  // x (10 B, fed each iteration) and w (20 B weight, placed once) are returned as they are;
  // n0 x, w -> y (1 B, output). Placed: x at the iteration's pattern, w at iteration 0's.
  Graph graph;
  const ValueId x = Input(graph, "x", 10);
  const ValueId w = Weight(graph, "w", 20);
  MarkOutput(graph, x);
  MarkOutput(graph, w);
  MarkOutput(graph, Work(graph, "n0", {x, w}, "y", 1, 10));
  const Plan plan = PlanAndVerify(graph, UnitProfile(), Budget(1000)).plan;
  const ExecutionReport report = Run(graph, plan, 2);
  INFO(report.violation);
  REQUIRE(report.ok);
  // x, w and y each iteration; w checked against iteration 0's pattern, x against this one's.
  CHECK(report.outputs_checked == 2 * 3);
}

TEST_CASE("clean: an update kept across the boundary runs when written back; without, caught") {
  // The verifier's verdicts on these three plans (tests/planner/loop_test.cc), checked here
  // by running real bytes: the executor never calls verify.
  const UpdatedWeight g;
  for (const WriteBack write_back : {WriteBack::kAfterTheWrite, WriteBack::kNextIteration}) {
    const ExecutionReport report = Run(g.graph, KeptAcrossTheBoundary(g, write_back).plan);
    INFO(report.violation);
    CHECK(report.ok);
    CHECK(report.iterations_run == 3);
  }
  // Iteration 1 starts from the cold start, where ddr and the device agree; its update never
  // reaches ddr, so iteration 2's n2 reads back the bytes from before it.
  const ExecutionReport report = Run(g.graph, KeptAcrossTheBoundary(g, WriteBack::kNever).plan);
  REQUIRE_FALSE(report.ok);
  INFO(report.violation);
  CHECK(report.iterations_run == 1);
  CHECK_THAT(report.violation, Catch::Contains("'w'"));
}

TEST_CASE("clean: the planner's own plan that writes an update back next iteration runs") {
  // tests/planner/loop_test.cc works this plan out: w stays on the device across the boundary
  // and each iteration's first step is the Store of the update the last one made. Run as the
  // planner made it, unedited: iteration 2's n2 must read iteration 1's update back from ddr.
  const UpdatedWeight g = UpdatedWeight::ReadOnlyByTheUpdate();
  const Plan plan = PlanAndVerify(g.graph, UnitProfile(), g.Options(210)).plan;
  const auto stores = StepsOf(plan, StepKind::kStore, g.w);
  REQUIRE(stores.size() == 1);
  REQUIRE(plan.steps[stores[0]].boundary == 0);
  const ExecutionReport report = Run(g.graph, plan);
  INFO(report.violation);
  CHECK(report.ok);
  CHECK(report.iterations_run == 3);
}

TEST_CASE("broken plan: a two-hop write-back split around the update loses it at the next") {
  // tests/planner/loop_test.cc: the verifier rejects this plan; here the executor, which never
  // calls verify, runs it with real bytes. NVMe never receives iteration 1's update, so
  // iteration 2's n2 reads back the bytes from before it.
  const UpdatedWeight g;
  HostBackend backend(CheckMode::kFull);
  ExecuteOptions options;
  options.iterations = 3;
  const ExecutionReport report =
      Execute(g.graph, NvmeProfile(), WriteBackSplitAroundTheWrite(g).plan, backend, options);
  REQUIRE_FALSE(report.ok);
  INFO(report.violation);
  CHECK(report.iterations_run == 1);
  CHECK_THAT(report.violation, Catch::Contains("'w'"));
}
