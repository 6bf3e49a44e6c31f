// A plan with a host compute step (support/host_plan.h) through the plan file: each step keeps
// its unit, and only such a plan is written as format 1.2 with its HostLane; a device-only plan
// stays 1.1, byte for byte what it was before host compute.
#include <catch2/catch.hpp>

#include "planio/plan_file.h"
#include "planio/plan_from_proto.h"
#include "planio/profile_proto.h"
#include "planio_fixture.h"
#include "support/host_plan.h"

using namespace hyperplan;
namespace pb = hyperplan::plan::v1;

TEST_CASE("plan file: a host step keeps its unit, and the plan reads as format 1.2") {
  const host_plan_test::HostFixture f;
  PlanResult planned;
  static_cast<EvaluatedPlan&>(planned) = f.Finish(f.Valid());
  const pb::Plan message = planio::PlanToProto(f.graph, f.profile, planned,
                                               planio_test::SingleRunProvenance("host.onnx"));
  CHECK(message.format().major() == 1);
  CHECK(message.format().minor() == 2);
  // Streams: 0 compute, 1 hbm->ddr#0, 2 ddr->hbm#0, then the host lane: 3.
  REQUIRE(message.has_host_lane());
  CHECK(message.host_lane().stream() == 3);
  CHECK(message.host_lane().memory_tier() == 1);  // ddr
  CHECK(message.host_lane().name() == "host (1 socket)");
  // Step 2 is n1 on the host lane; the device's compute steps stay on stream 0.
  REQUIRE(message.steps_size() == 6);
  CHECK(message.steps(2).unit() == pb::COMPUTE_UNIT_HOST);
  CHECK(message.steps(2).stream() == 3);
  CHECK(message.steps(3).unit() == pb::COMPUTE_UNIT_DEVICE);
  CHECK(message.steps(3).stream() == 0);

  // Binary and back, then to the core plan: the same units, and it still verifies.
  const pb::Plan decoded =
      planio::DecodePlan(planio::EncodePlan(message, planio::PlanEncoding::kBinary), "host.pb");
  const planio::ProfileMapping mapping = planio::MapProfile(decoded, "host.pb", f.profile);
  const EvaluatedPlan back = planio::PlanFromProto(decoded, "host.pb", f.graph, f.profile, mapping);
  REQUIRE(back.plan.steps.size() == planned.plan.steps.size());
  for (size_t i = 0; i < back.plan.steps.size(); ++i) {
    INFO("step " << i);
    CHECK(back.plan.steps[i].unit == planned.plan.steps[i].unit);
  }
  CHECK(back.plan.steps[2].unit == ComputeUnit::kHost);
  // The host step's copies on ddr keep their ends: it opens h's and frees a's.
  bool opens_h = false;
  bool frees_a = false;
  for (const TierCopy& copy : back.plan.tier_copies) {
    opens_h |= copy.value == f.h && copy.opened_by == 2;
    frees_a |= copy.value == f.a && copy.closed_by == 2;
  }
  CHECK(opens_h);
  CHECK(frees_a);
  // Read back, the replay is the one written: n1 on the host lane, 610 ns in all.
  CHECK(back.evaluation.timeline.makespan_ns == 610);
  const VerifyResult result = VerifyPlan(f.graph, f.profile, back.plan, back.evaluation);
  INFO(result.message);
  CHECK(result.ok);
}

TEST_CASE("plan file: a device-only plan stays format 1.1, with no host lane") {
  const planio_test::ChainFixture chain;
  const pb::Plan message = chain.Message();
  CHECK(message.format().minor() == 1);
  CHECK_FALSE(message.has_host_lane());
  for (const pb::Step& step : message.steps()) CHECK(step.unit() == pb::COMPUTE_UNIT_DEVICE);
}

TEST_CASE("plan file: a host step is refused against a profile with no host unit") {
  const host_plan_test::HostFixture f;
  PlanResult planned;
  static_cast<EvaluatedPlan&>(planned) = f.Finish(f.Valid());
  const pb::Plan message = planio::PlanToProto(f.graph, f.profile, planned,
                                               planio_test::SingleRunProvenance("host.onnx"));
  HardwareProfile no_host = f.profile;
  no_host.host_compute = HostComputeSpec{};
  const planio::ProfileMapping mapping = planio::MapProfile(message, "host.pb", no_host);
  CHECK_THROWS_WITH(
      planio::PlanFromProto(message, "host.pb", f.graph, no_host, mapping),
      Catch::Contains("runs steps[2] on the host") && Catch::Contains("no host_compute"));
}
