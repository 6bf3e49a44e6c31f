// A routed Prefetch (fetch after route, support/routed_moe.h's hand plan) through the plan file:
// it keeps its MoE node and its reservation, the plan reads as format 1.4, and read back it
// replays and verifies as written; a plan without one stays at its own minor.
#include <catch2/catch.hpp>

#include "hyperplan/plan/verify.h"
#include "hyperplan/planner/planner.h"
#include "planio/plan_file.h"
#include "planio/plan_from_proto.h"
#include "planio/plan_to_proto.h"
#include "planio/profile_proto.h"
#include "planio_fixture.h"
#include "support/routed_moe.h"

using namespace hyperplan;
namespace pb = hyperplan::plan::v1;

namespace {

pb::Plan ToProto(const testing::RoutedMoe& f, Plan plan) {
  PlanResult planned;
  static_cast<EvaluatedPlan&>(planned) = f.Finish(std::move(plan));
  return planio::PlanToProto(f.graph, f.profile, planned,
                             planio_test::SingleRunProvenance("routed.onnx"));
}

}  // namespace

TEST_CASE("plan file: a routed Prefetch keeps its node and reservation, format 1.4") {
  const testing::RoutedMoe f;
  // Top 2 of 8 experts of 2048 B for one token: 4096 B expected and reserved
  // (tests/plan/routed_fetch_test.cc works it out).
  const pb::Plan message = ToProto(f, f.HandPlan(true, 4096, 4096));
  CHECK(message.format().minor() == 4);
  REQUIRE(message.steps_size() > 1);
  CHECK(message.steps(1).routed_by() == f.moe);
  CHECK(message.steps(1).reserved_bytes() == 4096);
  CHECK(message.steps(1).bytes() == 4096);

  const pb::Plan decoded =
      planio::DecodePlan(planio::EncodePlan(message, planio::PlanEncoding::kBinary), "routed.pb");
  const planio::ProfileMapping mapping = planio::MapProfile(decoded, "routed.pb", f.profile);
  const EvaluatedPlan back =
      planio::PlanFromProto(decoded, "routed.pb", f.graph, f.profile, mapping);
  CHECK(back.plan.steps[1].routed_by == f.moe);
  CHECK(back.plan.steps[1].reserved_bytes == 4096);
  // route [0, 5000], the fetch 5000 + 1000 latency + 4096 B at 1 B/ns, moe 3000 ns: 13096.
  CHECK(back.evaluation.timeline.makespan_ns == 13096);
  const VerifyResult result = VerifyPlan(f.graph, f.profile, back.plan, back.evaluation);
  INFO(result.message);
  CHECK(result.ok);

  // The same operand fetched whole: no routed step, so the plan stays at format 1.1.
  const pb::Plan whole = ToProto(f, f.HandPlan(false, 16384, 16384));
  CHECK(whole.format().minor() == 1);
  CHECK(whole.steps(1).reserved_bytes() == 0);
}
