// The reference executor runs a fetch-after-route plan of the gather form (routed_view.h): the
// routed Prefetch of an expert Gather's table reads the router's indices, copies only the
// picked experts no partial residency holds, and the Gather checks every picked expert's slice
// where it lies. The plans are support/routed_gather.h's: one token, top 2 of 8 experts, table
// [8, 32, 16] float32 (16384 B, one expert's slice 2048 B).
#include <catch2/catch.hpp>

#include "executor/executor.h"
#include "hyperplan/routing_samples.h"
#include "support/routed_gather.h"
#include "support/run_plan.h"

using namespace hyperplan;
using namespace hyperplan::executor;
using hyperplan::testing::RoutedGather;

TEST_CASE("routed executor: an expert Gather's two picked experts are all its table moves") {
  const RoutedGather f;
  const Plan plan = f.Finish(f.HandPlan(true, 4096, 4096)).plan;
  const ExecutionReport report = testing::RunFullyChecked(f.graph, f.profile, plan, 4);
  INFO(report.violation);
  REQUIRE(report.ok);
  // Each iteration's one token picks exactly k = 2 distinct experts: 2 slices of 2048 B =
  // 4096 B a routed Prefetch, not the table's 16384 B.
  CHECK(report.experts_fetched == 4 * 2);
  CHECK(report.bytes_copied == 4 * 4096);
}

TEST_CASE("routed executor: an expert Gather reads its resident experts in place") {
  const RoutedGather f;
  // Experts 0-5 resident (6 x 2048 B); the block reserves min(8 - 6, 2) = 2 slices; expected
  // 2048 * 2 * 2/8 = 1024 B (experts 6 and 7 at 2/8 each).
  const Plan plan = f.Finish(f.HandPlan(true, 1024, 4096, {0, 1, 2, 3, 4, 5})).plan;
  constexpr int32_t kIterations = 16;
  const ExecutionReport report = testing::RunFullyChecked(f.graph, f.profile, plan, kIterations);
  INFO(report.violation);
  REQUIRE(report.ok);
  // Iteration i draws routing i - 1 with seed 1: 2048 B per pick of expert 6 or 7.
  const MoeRouting routing = *MoeRoutingOf(f.graph, f.gather);
  int64_t picked_outside = 0;
  for (int32_t index = 0; index < kIterations; ++index) {
    const std::vector<char> touched = SampleTouchedExperts(routing, 1, index);
    picked_outside += touched[6] + touched[7];
  }
  CHECK(report.experts_fetched == picked_outside);
  CHECK(report.bytes_copied == picked_outside * 2048);
  CHECK(picked_outside > 0);  // P(neither in 16 routings) = (1 - 13/28)^16, under 1e-4
}

TEST_CASE("routed executor: an expert Gather's block reserving one expert is refused") {
  const RoutedGather f;
  const Plan plan = f.Finish(f.HandPlan(true, 2048, 2048)).plan;
  const ExecutionReport report = testing::RunFullyChecked(f.graph, f.profile, plan, 1);
  // 2048 B reserved, but one token picks 2 experts (4096 B) and none is resident.
  REQUIRE_FALSE(report.ok);
  CHECK_THAT(report.violation, Catch::Contains("picks 2 experts not resident (4096 bytes)"));
  CHECK_THAT(report.violation, Catch::Contains("room for 2048 bytes"));
}
