// A chunked Prefetch (support/chunk_plan.h, split as the planner splits it) through the plan
// file: the later chunk keeps its offset and its first chunk, the plan reads as format 1.3,
// and read back it replays and verifies as written.
#include <catch2/catch.hpp>

#include "planio/plan_file.h"
#include "planio/plan_from_proto.h"
#include "planio/profile_proto.h"
#include "planio_fixture.h"
#include "planner/chunk_prefetches.h"
#include "support/chunk_plan.h"

using namespace hyperplan;
namespace pb = hyperplan::plan::v1;

TEST_CASE("plan file: a chunked Prefetch keeps its ranges, and the plan reads as format 1.3") {
  const chunk_plan_test::ChunkFixture f;
  Plan plan = f.Whole();
  REQUIRE(planner::ChunkBlockingPrefetches(f.profile, plan) == 1);
  PlanResult planned;
  static_cast<EvaluatedPlan&>(planned) = f.Finish(std::move(plan));
  const pb::Plan message = planio::PlanToProto(f.graph, f.profile, planned,
                                               planio_test::SingleRunProvenance("chunks.onnx"));
  CHECK(message.format().minor() == 3);
  REQUIRE(message.steps_size() == 9);
  // The first chunk (step 0) leaves both fields out; the tail (step 6) starts at byte
  // 77,463,552 (1182 * 64 KiB) and names step 0.
  CHECK(message.steps(0).chunk_offset_bytes() == 0);
  CHECK(message.steps(0).bytes() == 77'463'552);
  CHECK(message.steps(6).chunk_offset_bytes() == 77'463'552);
  CHECK(message.steps(6).chunk_of() == 0);
  CHECK(message.steps(6).bytes() == chunk_plan_test::kWeightBytes - 77'463'552);

  const pb::Plan decoded =
      planio::DecodePlan(planio::EncodePlan(message, planio::PlanEncoding::kBinary), "chunks.pb");
  const planio::ProfileMapping mapping = planio::MapProfile(decoded, "chunks.pb", f.profile);
  const EvaluatedPlan back =
      planio::PlanFromProto(decoded, "chunks.pb", f.graph, f.profile, mapping);
  REQUIRE(back.plan.steps.size() == 9);
  CHECK(back.plan.steps[0].chunk_of == -1);
  CHECK(back.plan.steps[6].chunk_of == 0);
  CHECK(back.plan.steps[6].chunk_offset_bytes == 77'463'552);
  // Every other step reads as a whole transfer or a compute step.
  for (size_t i = 0; i < back.plan.steps.size(); ++i) {
    if (i == 6) continue;
    INFO("step " << i);
    CHECK(back.plan.steps[i].chunk_of == -1);
  }
  // The replay written: 6,211,312 ns (tests/planner/chunk_prefetches_test.cc, by hand).
  CHECK(back.evaluation.timeline.makespan_ns == 6'211'312);
  const VerifyResult result = VerifyPlan(f.graph, f.profile, back.plan, back.evaluation);
  INFO(result.message);
  CHECK(result.ok);
}
