// The reference executor runs fetch-after-route plans (routed_view.h): per iteration it draws
// each MoE node's routing with the simulator's sampler, a routed Prefetch copies only the
// picked experts no partial residency holds, and the MoE node checks every picked expert's
// slice where it lies. The plans are support/routed_moe.h's: one token, top 2 of 8 experts,
// fc1 [8, 32, 16] float32 (16384 B, one expert's slice 2048 B).
#include <algorithm>
#include <catch2/catch.hpp>

#include "executor/executor.h"
#include "executor/host_backend.h"
#include "executor/pacing.h"
#include "hyperplan/routing_samples.h"
#include "support/routed_moe.h"
#include "support/run_plan.h"

using namespace hyperplan;
using namespace hyperplan::executor;
using hyperplan::testing::RoutedMoe;

namespace {

ExecutionReport RunChecked(const RoutedMoe& f, const Plan& plan, int32_t iterations) {
  return testing::RunFullyChecked(f.graph, f.profile, plan, iterations);
}

}  // namespace

TEST_CASE("routed executor: one token's two picked experts are all fc1 moves") {
  const RoutedMoe f;
  const Plan plan = f.Finish(f.HandPlan(true, 4096, 4096)).plan;
  const ExecutionReport report = RunChecked(f, plan, 4);
  INFO(report.violation);
  REQUIRE(report.ok);
  CHECK(report.iterations_run == 4);
  // No expert resident: each iteration's one token picks exactly k = 2 distinct experts, so
  // the routed Prefetch copies 2 slices of 2048 B = 4096 B (not fc1's 16384 B): 4 x 4096.
  CHECK(report.experts_fetched == 4 * 2);
  CHECK(report.transfers == 4);
  CHECK(report.bytes_copied == 4 * 4096);
}

TEST_CASE("routed executor: resident experts are read in place, only the others move") {
  const RoutedMoe f;
  // Experts 0-5 resident (6 x 2048 = 12288 B); the routed block reserves min(8 - 6, 2) = 2
  // slices; expected bytes 2048 * 2 * (1 - 6/8) = 1024 (uniform, one token).
  const Plan plan = f.Finish(f.HandPlan(true, 1024, 4096, {0, 1, 2, 3, 4, 5})).plan;
  constexpr int32_t kIterations = 16;
  const ExecutionReport report = RunChecked(f, plan, kIterations);
  INFO(report.violation);
  REQUIRE(report.ok);
  // Iteration i draws routing i - 1 with seed 1 (plan --routing-seed's default): the bytes
  // moved are 2048 per picked expert among 6 and 7, the only ones not resident.
  const MoeRouting routing = *MoeRoutingOf(f.graph, f.moe);
  int64_t picked_outside = 0;
  int64_t picked_total = 0;
  for (int32_t index = 0; index < kIterations; ++index) {
    const std::vector<char> touched = SampleTouchedExperts(routing, 1, index);
    picked_outside += touched[6] + touched[7];
    picked_total += std::count(touched.begin(), touched.end(), 1);
  }
  CHECK(picked_total == 2 * kIterations);  // k = 2 distinct per token, every routing
  CHECK(report.experts_fetched == picked_outside);
  CHECK(report.bytes_copied == picked_outside * 2048);
  // Over 16 routings with P(expert 6 or 7 picked) = 2/8 each, some pick one: the run moved
  // something, and less than fc1's whole 16384 B per iteration.
  CHECK(picked_outside > 0);
  CHECK(report.bytes_copied < kIterations * 4096);
}

TEST_CASE("routed executor: a block reserving one expert is refused when two are picked") {
  const RoutedMoe f;
  // 2048 B reserved, but one token picks 2 experts (4096 B) and none is resident.
  const Plan plan = f.Finish(f.HandPlan(true, 2048, 2048)).plan;
  const ExecutionReport report = RunChecked(f, plan, 1);
  REQUIRE_FALSE(report.ok);
  CHECK_THAT(report.violation, Catch::Contains("picks 2 experts not resident (4096 bytes)"));
  CHECK_THAT(report.violation, Catch::Contains("room for 2048 bytes"));
}

TEST_CASE("routed executor: a routed Prefetch that does not wait for its router is refused") {
  const RoutedMoe f;
  Plan plan = f.Finish(f.HandPlan(true, 4096, 4096)).plan;
  plan.steps[1].waits_for.clear();  // the routed Prefetch no longer waits for route
  const ExecutionReport report = RunChecked(f, plan, 1);
  REQUIRE_FALSE(report.ok);
  // Whichever runs first (the Prefetch reading, or route writing), the problem names both.
  CHECK_THAT(report.violation, Catch::Contains("prefetch 'fc1'"));
  CHECK_THAT(report.violation, Catch::Contains("'router'"));
}

TEST_CASE("routed executor: both hops of an NVMe-homed operand move the picked experts") {
  RoutedMoe f;
  const Plan plan = f.Finish(f.TwoHopPlan(4096)).plan;
  const ExecutionReport report = RunChecked(f, plan, 3);
  INFO(report.violation);
  REQUIRE(report.ok);
  // Per iteration 2 picked experts over each hop: nvme -> ddr 4096 B into the staging copy,
  // then ddr -> hbm the same 4096 B from it: 3 x 2 x 4096 B, 3 x 4 slices.
  CHECK(report.transfers == 3 * 2);
  CHECK(report.experts_fetched == 3 * 4);
  CHECK(report.bytes_copied == 3 * 2 * 4096);
}

TEST_CASE("routed executor: a routed hop on a drive's four channels holds them all") {
  RoutedMoe f;
  Plan two_hop = f.TwoHopPlan(4096);
  f.profile.links[2].channels = 4;  // nvme -> ddr, 1 byte/ns over 4 channels
  const Plan plan = f.Finish(std::move(two_hop)).plan;
  // Step 1, the routed nvme -> ddr hop of 4096 expected bytes, holds the 4 channels and moves
  // at the link's whole 1 byte/ns: 4096 ns, not the 4 x 4096 ns of one channel's quarter.
  REQUIRE(plan.steps[1].link == 2);
  CHECK(PlannedDurationNs(plan, f.profile, 1) == 4096);
  const ExecutionReport report = RunChecked(f, plan, 2);
  INFO(report.violation);
  REQUIRE(report.ok);
  CHECK(report.transfers == 2 * 2);
  CHECK(report.bytes_copied == 2 * 2 * 4096);
}
