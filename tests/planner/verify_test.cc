// The verifier catches broken plans, naming the invariant and the step.
#include "hyperplan/planner/verify.h"

#include <catch2/catch.hpp>

#include "hyperplan/planner/simulate.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

struct Fixture {
  Graph graph;
  ValueId s = kNoValue;
  HardwareProfile profile = UnitProfile();
  Plan plan;
  Fixture() {
    s = Work(graph, "n0", {}, "s", 100, 10);
    const ValueId a = Work(graph, "n1", {s}, "a", 1, 100);
    const ValueId b = Work(graph, "n2", {a}, "b", 1, 50, 200);
    const ValueId c = Work(graph, "n3", {b}, "c", 1, 100);
    MarkOutput(graph, Work(graph, "n4", {c, s}, "y", 1, 10));
    plan = PlanOffload(graph, profile, Budget(250)).plan;
  }
  int32_t Only(StepKind kind) const {
    const auto steps = StepsOf(plan, kind, s);
    REQUIRE(steps.size() == 1);
    return steps[0];
  }
  // Re-simulates after a mutation so only the mutated rule can fail.
  VerifyResult Check() {
    plan.timeline = Simulate(graph, profile, plan);
    plan.summary.peak_bytes = plan.timeline.peak_bytes_per_tier[0];
    return VerifyPlan(graph, profile, plan);
  }
};

}  // namespace

TEST_CASE("verify: a valid plan passes") {
  Fixture f;
  const VerifyResult result = f.Check();
  INFO(result.message);
  CHECK(result.ok);
}

TEST_CASE("verify: a compute step that does not wait for its Prefetch breaks invariant 1") {
  Fixture f;
  const int32_t prefetch = f.Only(StepKind::kPrefetch);
  // Make the Prefetch slow to start, and let n4 stop waiting for it.
  for (PlanStep& step : f.plan.steps) {
    if (step.kind == StepKind::kCompute) {
      auto& waits = step.waits_for;
      waits.erase(std::remove(waits.begin(), waits.end(), prefetch), waits.end());
    }
  }
  f.profile.links[1].latency_ns = 1000;
  const VerifyResult result = f.Check();
  CHECK(!result.ok);
  CHECK(result.invariant == 1);
  CHECK_THAT(result.message, Catch::Contains("before the Prefetch of 's'"));
}

TEST_CASE("verify: reading a value after its Detach breaks invariant 1") {
  Fixture f;
  // Drop the Prefetch's residency: s is Detached before step 2 and never comes back.
  const int32_t prefetch = f.Only(StepKind::kPrefetch);
  for (size_t r = 0; r < f.plan.residency.size(); ++r) {
    if (f.plan.residency[r].opened_by == prefetch) {
      f.plan.residency.erase(f.plan.residency.begin() + static_cast<long>(r));
      f.plan.layout.offset_bytes.erase(f.plan.layout.offset_bytes.begin() + static_cast<long>(r));
      break;
    }
  }
  const VerifyResult result = f.Check();
  CHECK(!result.ok);
  CHECK(result.invariant == 1);
}

TEST_CASE("verify: a Prefetch that starts before its Store completes breaks invariant 4") {
  Fixture f;
  const int32_t prefetch = f.Only(StepKind::kPrefetch);
  // Waiting for nothing, the Prefetch starts at time 0, long before the Store ends.
  f.plan.steps[prefetch].waits_for.clear();
  const VerifyResult result = f.Check();
  CHECK(!result.ok);
  CHECK(result.invariant == 4);
  CHECK(result.step == prefetch);
  CHECK_THAT(result.message, Catch::Contains("no complete copy"));
}

TEST_CASE("verify: overlapping arena blocks break invariant 3") {
  Fixture f;
  for (auto& offset : f.plan.layout.offset_bytes) offset = 0;
  const VerifyResult result = f.Check();
  CHECK(!result.ok);
  CHECK(result.invariant == 3);
}

TEST_CASE("verify: a tier over its capacity breaks invariant 2") {
  Fixture f;
  f.profile.tiers[1].capacity_bytes = 50;  // ddr cannot hold the stored 100 B
  const VerifyResult result = f.Check();
  CHECK(!result.ok);
  CHECK(result.invariant == 2);
  CHECK_THAT(result.message, Catch::Contains("ddr"));
}

TEST_CASE("verify: a reported peak that is not the timeline's breaks invariant 2") {
  Fixture f;
  f.plan.timeline = Simulate(f.graph, f.profile, f.plan);
  f.plan.summary.peak_bytes = 1;
  const VerifyResult result = VerifyPlan(f.graph, f.profile, f.plan);
  CHECK(!result.ok);
  CHECK(result.invariant == 2);
}

TEST_CASE("verify: a non-topological order breaks invariant 4") {
  Fixture f;
  std::swap(f.plan.order[0], f.plan.order[1]);
  const VerifyResult result = VerifyPlan(f.graph, f.profile, f.plan);
  CHECK(!result.ok);
  CHECK(result.invariant == 4);
}

TEST_CASE("verify: cache ops with offloading off break invariant 6") {
  Fixture f;
  f.plan.offload_enabled = false;
  const VerifyResult result = f.Check();
  CHECK(!result.ok);
  CHECK(result.invariant == 6);
}

TEST_CASE("verify: a stored timeline that differs from the replay is caught") {
  Fixture f;
  f.plan.timeline.makespan_ns += 1;
  const VerifyResult result = VerifyPlan(f.graph, f.profile, f.plan);
  CHECK(!result.ok);
  CHECK_THAT(result.message, Catch::Contains("replay"));
}
