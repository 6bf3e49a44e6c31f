// ChunkBlockingPrefetches (planner/chunk_prefetches.h): a host crossing that waits behind a
// whole 128 MiB Prefetch on the FIFO channel runs between two chunks of it instead; times by
// hand from 25 GB/s and 5 us per transfer (support/chunk_plan.h).
#include "planner/chunk_prefetches.h"

#include <catch2/catch.hpp>

#include "support/chunk_plan.h"

using namespace hyperplan;
using namespace hyperplan::chunk_plan_test;

TEST_CASE("chunk prefetches: the crossing waits behind the whole Prefetch") {
  const ChunkFixture f;
  const EvaluatedPlan planned = f.Finish(f.Whole());
  const VerifyResult verdict = f.Verify(planned);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  const SimulationResult& replay = planned.evaluation.timeline;
  // V: 5000 + 134,217,728 / 25 = 5,373,710 ns on the channel from 0.
  CHECK(replay.steps[0].end_ns == 5'373'710);
  // h is ready when n1 ends (105,656 + 3,000,000) but starts behind V.
  CHECK(replay.steps[4].end_ns == 3'105'656);
  CHECK(replay.steps[5].start_ns == 5'373'710);
  // n2 [5,379,366, 8,379,366], n3 100,000 ns after it.
  CHECK(replay.makespan_ns == 8'479'366);
}

TEST_CASE("chunk prefetches: the crossing runs between two chunks, by hand") {
  const ChunkFixture f;
  Plan plan = f.Whole();
  REQUIRE(planner::ChunkBlockingPrefetches(f.profile, plan) == 1);
  // The first chunk keeps what moves before h is ready at 3,105,656: (3,105,656 - 5000) * 25 =
  // 77,516,400 bytes, rounded down to 64 KiB: 1182 * 65,536 = 77,463,552.
  REQUIRE(plan.steps.size() == 9);
  CHECK(plan.steps[0].bytes == 77'463'552);
  CHECK(plan.steps[0].chunk_of == -1);
  // The rest, 134,217,728 - 77,463,552 = 56,754,176 bytes, right after h (step 5), at its
  // boundary, and n3 (now step 8) waits for it instead of the first chunk.
  const PlanStep& tail = plan.steps[6];
  CHECK(tail.kind == StepKind::kPrefetch);
  CHECK(tail.value == f.v);
  CHECK(tail.bytes == 56'754'176);
  CHECK(tail.chunk_offset_bytes == 77'463'552);
  CHECK(tail.chunk_of == 0);
  CHECK(tail.boundary == 2);
  CHECK(plan.steps[8].waits_for == std::vector<int32_t>{6});
  CHECK(plan.residency[0].opened_by == 0);  // the first chunk allocates V's block

  const EvaluatedPlan planned = f.Finish(std::move(plan));
  const VerifyResult verdict = f.Verify(planned);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  CHECK(CheckExplicitWaits(f.graph, f.profile, planned.plan).empty());
  const SimulationResult& replay = planned.evaluation.timeline;
  // First chunk: 5000 + ceil(77,463,552 / 25) = 5000 + 3,098,543 = 3,103,543.
  CHECK(replay.steps[0].end_ns == 3'103'543);
  // h starts when ready: [3,105,656, 3,105,656 + 5000 + 656 = 3,111,312].
  CHECK(replay.steps[5].start_ns == 3'105'656);
  CHECK(replay.steps[5].end_ns == 3'111'312);
  // The tail: 5000 + ceil(56,754,176 / 25) = 2,275,168 after h: ends 5,386,480.
  CHECK(replay.steps[6].start_ns == 3'111'312);
  CHECK(replay.steps[6].end_ns == 5'386'480);
  // n2 [3,111,312, 6,111,312]; n3 after n2 (V complete at 5,386,480): 6,211,312.
  CHECK(replay.steps[7].start_ns == 3'111'312);
  CHECK(replay.makespan_ns == 6'211'312);
  // The stall saved is h's wait behind the rest of V: 8,479,366 - 6,211,312 = 2,268,054.
  CHECK(8'479'366 - replay.makespan_ns == 2'268'054);
  // Every byte still crosses once: 134,217,728 of V and 16 KiB of h on ddr->hbm.
  CHECK(replay.bytes_moved_per_link[1] == kWeightBytes + kActivationBytes);
}

TEST_CASE("chunk prefetches: a split that would not shorten the run is not kept") {
  const ChunkFixture f;
  Plan plan = f.Whole();
  // n1 takes 5.5 ms: h is ready at 105,656 + 5,500,000, after V's 5,373,710; nothing waits.
  plan.node_time_ns[f.n1] = 5'500'000;
  CHECK(planner::ChunkBlockingPrefetches(f.profile, plan) == 0);
  CHECK(plan.steps.size() == 8);
}
