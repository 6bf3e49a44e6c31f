// The verifier's chunk rules (plan/chunks.h): a chunked Prefetch moves every byte, in order,
// on one channel, and its value is readable once the last chunk has landed. Plans from
// support/chunk_plan.h, chunked by hand as ChunkBlockingPrefetches would.
#include <catch2/catch.hpp>

#include "support/chunk_plan.h"

using namespace hyperplan;
using namespace hyperplan::chunk_plan_test;

namespace {

constexpr int64_t kFirstChunkBytes = 77'463'552;  // 1182 * 64 KiB

// V in two chunks, the second after h (step 5), as tests/planner/chunk_prefetches_test.cc
// derives by hand: steps 0 (first chunk), 6 (second), n3 at 8 waiting for 6.
Plan TwoChunks(const ChunkFixture& f) {
  Plan plan = f.Whole();
  plan.steps[0].bytes = kFirstChunkBytes;
  PlanStep tail = plan.steps[0];
  tail.bytes = kWeightBytes - kFirstChunkBytes;
  tail.chunk_offset_bytes = kFirstChunkBytes;
  tail.chunk_of = 0;
  tail.boundary = 2;
  plan.steps.insert(plan.steps.begin() + 6, tail);
  plan.steps[7].waits_for = {5};  // n2 waits for h
  plan.steps[8].waits_for = {6};  // n3 for the last chunk
  for (ResidentInterval& interval : plan.residency) {
    if (interval.opened_by >= 6) ++interval.opened_by;
    if (interval.closed_by >= 6) ++interval.closed_by;
  }
  return plan;
}

}  // namespace

TEST_CASE("verify chunks: two chunks in order covering every byte verify") {
  const ChunkFixture f;
  const EvaluatedPlan planned = f.Finish(TwoChunks(f));
  const VerifyResult verdict = f.Verify(planned);
  INFO(verdict.message);
  CHECK(verdict.ok);
  CHECK(CheckExplicitWaits(f.graph, f.profile, planned.plan).empty());
}

TEST_CASE("verify chunks: a gap between chunks breaks invariant 1") {
  const ChunkFixture f;
  Plan plan = TwoChunks(f);
  plan.steps[6].chunk_offset_bytes += 65'536;  // skips 64 KiB of V
  plan.steps[6].bytes -= 65'536;
  const VerifyResult verdict = f.Verify(f.Finish(std::move(plan)));
  CHECK_FALSE(verdict.ok);
  CHECK(verdict.invariant == 1);
  CHECK(verdict.step == 6);
  // The first chunk ended at byte 77,463,552; the second starts 65,536 later.
  CHECK_THAT(verdict.message, Catch::Contains("starts at byte 77529088"));
  CHECK_THAT(verdict.message, Catch::Contains("ended at byte 77463552"));
}

TEST_CASE("verify chunks: chunks that leave bytes unmoved break invariant 1") {
  const ChunkFixture f;
  Plan plan = TwoChunks(f);
  plan.steps[6].bytes -= 65'536;  // the last 64 KiB never cross
  const VerifyResult verdict = f.Verify(f.Finish(std::move(plan)));
  CHECK_FALSE(verdict.ok);
  CHECK(verdict.invariant == 1);
  CHECK(verdict.step == 0);
  // 134,217,728 - 65,536 = 134,152,192 bytes moved.
  CHECK_THAT(verdict.message, Catch::Contains("move 134152192 of the value's 134217728 bytes"));
}

TEST_CASE("verify chunks: a chunk on another channel breaks invariant 1") {
  ChunkFixture f;
  f.profile.links[1].channels = 2;
  Plan plan = TwoChunks(f);
  plan.steps[6].channel = 1;
  const VerifyResult verdict = f.Verify(f.Finish(std::move(plan)));
  CHECK_FALSE(verdict.ok);
  CHECK(verdict.step == 6);
  CHECK_THAT(verdict.message, Catch::Contains("not a chunk of step 0's value on its link channel"));
}

TEST_CASE("verify chunks: a reader waiting for the first chunk only is refused") {
  const ChunkFixture f;
  SECTION("the explicit waits name the last chunk") {
    // n3 waits for the first chunk: it still starts after the tail in this replay (behind n2,
    // 6,111,312 > 5,386,480), but a runtime may run it before the rest of V lands.
    Plan plan = TwoChunks(f);
    plan.steps[8].waits_for = {0};
    const EvaluatedPlan planned = f.Finish(std::move(plan));
    const std::string problem = CheckExplicitWaits(f.graph, f.profile, planned.plan);
    CHECK_THAT(problem, Catch::Contains("reads 'V'"));
    CHECK_THAT(problem, Catch::Contains("does not wait for step 6"));
  }
  SECTION("a reader starting before the last chunk lands breaks invariant 1") {
    // n2 takes 1 ms: [3,111,312, 4,111,312]; n3 then starts at 4,111,312, before the tail
    // ends at 5,386,480.
    Plan plan = TwoChunks(f);
    plan.node_time_ns[f.n2] = 1'000'000;
    plan.steps[8].waits_for = {0};
    const VerifyResult verdict = f.Verify(f.Finish(std::move(plan)));
    CHECK_FALSE(verdict.ok);
    CHECK(verdict.invariant == 1);
    CHECK(verdict.step == 8);
    CHECK_THAT(verdict.message, Catch::Contains("starts at 4111312 ns before the Prefetch of 'V'"));
    CHECK_THAT(verdict.message, Catch::Contains("completes at 5386480 ns"));
  }
}
