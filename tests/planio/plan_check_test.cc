// Re-checking plans read from files: the chain's plan passes; hand edits that break a rule
// are reported as that rule, naming the step.
#include "planio/plan_check.h"

#include <catch2/catch.hpp>

#include "hyperplan/plan/verify.h"
#include "planio/plan_from_proto.h"
#include "planio_fixture.h"

using namespace hyperplan;
using namespace hyperplan::planio_test;
namespace pb = hyperplan::plan::v1;

namespace {

// The plan in `message` and the evaluation it records.
EvaluatedPlan Core(const ChainFixture& chain, const pb::Plan& message) {
  const planio::ProfileMapping mapping = planio::MapProfile(message, "plan.pb", chain.profile);
  return planio::PlanFromProto(message, "plan.pb", chain.graph, chain.profile, mapping);
}

planio::LoadedPlanCheck Check(const ChainFixture& chain, const pb::Plan& message) {
  const EvaluatedPlan read = Core(chain, message);
  return planio::CheckLoadedPlan(chain.graph, chain.profile, read.plan, read.evaluation);
}

// The chain's plan with n3 no longer waiting for the Prefetch of W.
pb::Plan WithoutConsumerWait(const ChainFixture& chain, int& prefetch, int& consumer) {
  pb::Plan message = chain.Message();
  prefetch = StepIndex(message, pb::STEP_KIND_PREFETCH, chain.w);
  consumer = ComputeIndex(message, chain.n3);
  REQUIRE(prefetch >= 0);
  auto* waits = message.mutable_steps(consumer)->mutable_waits_for();
  const auto it = std::find(waits->begin(), waits->end(), prefetch);
  REQUIRE(it != waits->end());
  waits->erase(it);
  return message;
}

}  // namespace

TEST_CASE("plan check: the planner's plan passes every check") {
  const ChainFixture chain;
  const planio::LoadedPlanCheck check = Check(chain, chain.Message());
  INFO(check.message);
  CHECK(check.ok);
  CHECK(check.replay.makespan_ns == 5000);  // planio_fixture.h
}

TEST_CASE("plan check: a consumer that no longer waits for its Prefetch runs before it") {
  const ChainFixture chain;
  int prefetch = -1;
  int consumer = -1;
  const pb::Plan edited = WithoutConsumerWait(chain, prefetch, consumer);
  // Replayed, n3 starts when n2 ends (3000 ns) while the Prefetch runs 3000..4000 ns.
  const planio::LoadedPlanCheck check = Check(chain, edited);
  CHECK_FALSE(check.ok);
  CHECK_THAT(check.message, Catch::StartsWith("invariant 1: step " + std::to_string(consumer) +
                                              " (compute 'n3'): starts at 3000 ns before the "
                                              "Prefetch of 'W' (step " +
                                              std::to_string(prefetch) + ") completes at 4000 ns"));
}

TEST_CASE("plan check: a missing wait is found from waits and streams alone") {
  // The wait check reads no times: it would find this edit even on a machine where the
  // Prefetch happened to finish first.
  const ChainFixture chain;
  int prefetch = -1;
  int consumer = -1;
  const pb::Plan edited = WithoutConsumerWait(chain, prefetch, consumer);
  const std::string problem =
      CheckExplicitWaits(chain.graph, chain.profile, Core(chain, edited).plan);
  CHECK(problem == "step " + std::to_string(consumer) +
                       " (compute 'n3'): reads 'W' but does not wait for step " +
                       std::to_string(prefetch) +
                       " (prefetch 'W' ddr->hbm), directly or through other waits: a runtime may "
                       "start it before the value arrives");
}

TEST_CASE("plan check: a Prefetch that allocates before the compute stream frees is found") {
  const ChainFixture chain;
  pb::Plan message = chain.Message();
  const int prefetch = StepIndex(message, pb::STEP_KIND_PREFETCH, chain.w);
  REQUIRE(prefetch >= 0);
  message.mutable_steps(prefetch)->clear_waits_for();
  const std::string problem =
      CheckExplicitWaits(chain.graph, chain.profile, Core(chain, message).plan);
  CHECK_THAT(problem, Catch::StartsWith("step " + std::to_string(prefetch) +
                                        " (prefetch 'W' ddr->hbm): allocates its arena block "
                                        "without waiting for step "));
  CHECK_THAT(problem, Catch::Contains("(compute 'n2')"));
}

TEST_CASE("plan check: predictions that are not the replay are reported") {
  const ChainFixture chain;
  pb::Plan message = chain.Message();
  const int consumer = ComputeIndex(message, chain.n3);
  message.mutable_steps(consumer)->set_end_ns(4500);  // the replay says 5000
  const planio::LoadedPlanCheck check = Check(chain, message);
  CHECK_FALSE(check.ok);
  CHECK_THAT(check.message, Catch::Contains("step " + std::to_string(consumer) +
                                            ": the plan predicts 4000..4500 ns, a replay gives "
                                            "4000..5000 ns"));
}

TEST_CASE("plan check: a recorded evaluation whose numbers are not the replay's is reported") {
  // The plan's decisions are untouched; only the evaluation recorded beside them is edited.
  const ChainFixture chain;
  pb::Plan message = chain.Message();
  pb::Summary& summary = *message.mutable_summary();
  summary.set_stall_ns(summary.stall_ns() + 7);  // the replay's stall, plus 7 ns
  const planio::LoadedPlanCheck check = Check(chain, message);
  CHECK_FALSE(check.ok);
  CHECK_THAT(
      check.message,
      Catch::Contains("stall (ns): the plan predicts " + std::to_string(check.replay.stall_ns + 7) +
                      ", a replay gives " + std::to_string(check.replay.stall_ns)));
}

TEST_CASE("plan check: a wait on a later step is refused before replaying") {
  const ChainFixture chain;
  pb::Plan message = chain.Message();
  message.mutable_steps(0)->add_waits_for(2);
  const planio::LoadedPlanCheck check = Check(chain, message);
  CHECK_FALSE(check.ok);
  CHECK(check.message == "invariant 4: step 0: waits for step 2, which does not come before it");
}
