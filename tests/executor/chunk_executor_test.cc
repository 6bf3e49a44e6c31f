// The reference executor moves a chunked Prefetch's byte ranges (plan/chunks.h): the plan of
// support/chunk_plan.h, its 128 MiB weight split around the host crossing as the planner
// splits it, runs clean with every byte of the weight checked; a chunk moving the wrong range
// leaves bytes of the device copy unwritten, and the reader is refused.
#include <catch2/catch.hpp>

#include "executor/cuda_schedule.h"
#include "executor/executor.h"
#include "executor/host_backend.h"
#include "executor/plan_view.h"
#include "planner/chunk_prefetches.h"
#include "support/chunk_plan.h"
#include "support/run_plan.h"

using namespace hyperplan;
using namespace hyperplan::executor;
using namespace hyperplan::chunk_plan_test;

namespace {

ExecutionReport RunChecked(const ChunkFixture& f, const Plan& plan) {
  return testing::RunFullyChecked(f.graph, f.profile, plan, 2);
}

Plan Chunked(const ChunkFixture& f) {
  Plan plan = f.Whole();
  REQUIRE(planner::ChunkBlockingPrefetches(f.profile, plan) == 1);
  return f.Finish(std::move(plan)).plan;
}

}  // namespace

TEST_CASE("chunk executor: the two chunks of V land every byte before n3 reads it") {
  const ChunkFixture f;
  const Plan plan = Chunked(f);
  const ExecutionReport report = RunChecked(f, plan);
  INFO(report.violation);
  REQUIRE(report.ok);
  CHECK(report.iterations_run == 2);
  // Per iteration: V's two chunks, the Store of a and the Prefetch of h.
  CHECK(report.transfers == 2 * 4);
  // 134,217,728 bytes of V (77,463,552 + 56,754,176) and 16,384 each way for a and h.
  CHECK(report.bytes_copied == 2 * (kWeightBytes + 2 * kActivationBytes));
}

TEST_CASE("chunk executor: a later chunk copying the wrong range is caught at the reader") {
  const ChunkFixture f;
  Plan plan = Chunked(f);
  // The tail (step 6) copies V's first 56,754,176 bytes again instead of the rest: V's last
  // bytes on the device are never written.
  REQUIRE(plan.steps[6].chunk_of == 0);
  plan.steps[6].chunk_offset_bytes = 0;
  const ExecutionReport report = RunChecked(f, plan);
  REQUIRE_FALSE(report.ok);
  CHECK_THAT(report.violation, Catch::Contains("compute 'n3'"));
  CHECK_THAT(report.violation, Catch::Contains("'V'"));
}

TEST_CASE("chunk executor: each chunk copies its byte range, on the device as on the host") {
  const ChunkFixture f;
  const Plan plan = Chunked(f);
  const PlanView view = BuildPlanView(f.graph, f.profile, plan);
  // The first chunk: V's bytes [0, 77,463,552); the tail [77,463,552, 134,217,728).
  CHECK(view.step_blocks[0].begin_byte == 0);
  CHECK(view.step_blocks[0].bytes == 77'463'552);
  CHECK(view.step_blocks[6].begin_byte == 77'463'552);
  CHECK(view.step_blocks[6].bytes == kWeightBytes - 77'463'552);
  // A whole transfer (h's Prefetch, step 5) moves the value's last `bytes`: all 16,384.
  CHECK(view.step_blocks[5].begin_byte == 0);
  CHECK(view.step_blocks[5].bytes == kActivationBytes);
  // The CUDA schedule copies the tail from its offset in both blocks: the source is V's home
  // copy on ddr, the destination the device block the first chunk opened.
  const DeviceSchedule schedule = BuildDeviceSchedule(view, f.graph, f.profile, plan);
  const Block& home = view.blocks[view.step_blocks[6].source];
  const Block& device = view.blocks[view.step_blocks[6].destination];
  CHECK(view.step_blocks[6].destination == view.step_blocks[0].destination);
  CHECK(schedule.ops[6].bytes == kWeightBytes - 77'463'552);
  CHECK(schedule.ops[6].src_offset_bytes == home.offset_bytes + 77'463'552);
  CHECK(schedule.ops[6].dst_offset_bytes == device.offset_bytes + 77'463'552);
}
