// The verifier catches broken plans, naming the invariant and the step.
#include "hyperplan/plan/verify.h"

#include <catch2/catch.hpp>

#include "hyperplan/plan/simulate.h"
#include "planner/planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

struct Fixture {
  Graph graph;
  ValueId s = kNoValue;
  HardwareProfile profile = UnitProfile();
  Plan plan;
  PlanEvaluation evaluation;
  Fixture() {
    s = Work(graph, "n0", {}, "s", 100, 10);
    const ValueId a = Work(graph, "n1", {s}, "a", 1, 100);
    const ValueId b = Work(graph, "n2", {a}, "b", 1, 50, 200);
    const ValueId c = Work(graph, "n3", {b}, "c", 1, 100);
    MarkOutput(graph, Work(graph, "n4", {c, s}, "y", 1, 10));
    PlanResult result = PlanOffload(graph, profile, Budget(250));
    plan = std::move(result.plan);
    evaluation = std::move(result.evaluation);
  }
  int32_t Only(StepKind kind) const {
    const auto steps = StepsOf(plan, kind, s);
    REQUIRE(steps.size() == 1);
    return steps[0];
  }
  // Re-evaluates after a mutation so only the mutated rule can fail (the summary's peak is a
  // claim the verifier checks against its replay).
  VerifyResult Check() {
    evaluation.timeline = Simulate(graph, profile, plan);
    evaluation.summary.peak_bytes = evaluation.timeline.peak_bytes_per_tier[0];
    return VerifyPlan(graph, profile, plan, evaluation);
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
  f.evaluation.timeline = Simulate(f.graph, f.profile, f.plan);
  f.evaluation.summary.peak_bytes = 1;
  const VerifyResult result = VerifyPlan(f.graph, f.profile, f.plan, f.evaluation);
  CHECK(!result.ok);
  CHECK(result.invariant == 2);
}

TEST_CASE("verify: a non-topological order breaks invariant 4") {
  Fixture f;
  std::swap(f.plan.order[0], f.plan.order[1]);
  const VerifyResult result = VerifyPlan(f.graph, f.profile, f.plan, f.evaluation);
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

TEST_CASE("verify: the rules are checked on the verifier's own replay, not on the evaluation") {
  Fixture f;
  // An evaluation with no timeline at all: a verifier reading it would index past its end.
  // Whether a recorded timeline is the plan's replay is plan_check's to report
  // (tests/planio/plan_check_test.cc).
  f.evaluation.timeline = {};
  CHECK(VerifyPlan(f.graph, f.profile, f.plan, f.evaluation).ok);
  // The claims it reads are still checked: the summary's peak against that replay.
  f.evaluation.summary.peak_bytes += 1;
  const VerifyResult result = VerifyPlan(f.graph, f.profile, f.plan, f.evaluation);
  CHECK_FALSE(result.ok);
  CHECK(result.invariant == 2);
}

TEST_CASE("verify: an arena aligned below the device tier's alignment breaks invariant 3") {
  Fixture f;  // planned on a profile with no alignment (1 byte)
  f.profile.tiers[0].alignment_bytes = 64;
  const VerifyResult result = f.Check();
  CHECK(!result.ok);
  CHECK(result.invariant == 3);
  CHECK_THAT(result.message,
             Catch::Contains("the arena is aligned to 1 bytes, but device tier 'hbm' needs 64"));
}

TEST_CASE("verify: an arena offset off its alignment breaks invariant 3, naming the block") {
  Fixture f;
  f.profile.tiers[0].alignment_bytes = 64;
  f.plan = PlanOffload(f.graph, f.profile, Budget(1000)).plan;
  REQUIRE(f.Check().ok);
  REQUIRE(f.plan.layout.alignment_bytes == 64);
  // The block highest in the arena moves up by one byte: still inside its own 64-byte padded
  // slot, so nothing overlaps, but its offset is no multiple of 64.
  size_t top = 0;
  for (size_t r = 0; r < f.plan.residency.size(); ++r) {
    if (f.plan.layout.offset_bytes[r] > f.plan.layout.offset_bytes[top]) top = r;
  }
  REQUIRE(f.plan.residency[top].bytes % 64 != 0);
  const int64_t moved = ++f.plan.layout.offset_bytes[top];
  const VerifyResult result = f.Check();
  CHECK(!result.ok);
  CHECK(result.invariant == 3);
  CHECK_THAT(result.message, Catch::Contains("residency " + std::to_string(top) + " ("));
  CHECK_THAT(result.message, Catch::Contains("is at offset " + std::to_string(moved) +
                                             ", not a multiple of the arena's 64-byte alignment"));
}

TEST_CASE("verify: tier copies overlapping in their buffer break invariant 3, naming both") {
  Fixture f;
  REQUIRE(f.plan.tier_copies.size() == 1);  // s stored on ddr
  // A second copy of s on ddr from the run's start to its end, at the stored copy's offset.
  TierCopy extra = f.plan.tier_copies[0];
  extra.opened_by = -1;
  extra.closed_by = -1;
  f.plan.tier_copies.push_back(extra);
  const VerifyResult result = f.Check();
  CHECK(!result.ok);
  CHECK(result.invariant == 3);
  // The stored copy exists from after n0 (its Store waits for it) until n4, which waits for
  // the Prefetch that reads it: compute steps 1..4; the extra one 0..5 (the whole axis).
  CHECK_THAT(result.message,
             Catch::Contains("tier copy 0 ('s' on ddr, 100 bytes at offset 0, compute steps "
                             "1..4) overlaps tier copy 1 ('s' on ddr, 100 bytes at offset 0, "
                             "compute steps 0..5)"));
}

TEST_CASE("verify: a tier copy outside its buffer or without one breaks invariant 3") {
  Fixture f;
  REQUIRE(f.plan.tier_buffers.size() == 1);
  CHECK(f.plan.tier_buffers[0].size_bytes == 100);  // one 100 B copy, byte-aligned
  f.plan.tier_copies[0].offset_bytes = 1;
  VerifyResult result = f.Check();
  CHECK(!result.ok);
  CHECK(result.invariant == 3);
  CHECK_THAT(result.message, Catch::Contains("inside the tier's buffer of 100 bytes"));

  f.plan.tier_copies[0].offset_bytes = 0;
  f.plan.tier_buffers.clear();
  result = f.Check();
  CHECK(!result.ok);
  CHECK_THAT(result.message, Catch::Contains("has no buffer on its tier"));
}

TEST_CASE("verify: a tier buffer over the tier's capacity breaks invariant 2") {
  Fixture f;
  // The copies still fit in 150 bytes at any instant, but the buffer claims 200.
  f.profile.tiers[1].capacity_bytes = 150;
  f.plan.tier_buffers[0].size_bytes = 200;
  const VerifyResult result = f.Check();
  CHECK(!result.ok);
  CHECK(result.invariant == 2);
  CHECK_THAT(result.message,
             Catch::Contains("the buffer of tier 'ddr' (200 bytes) exceeds its capacity of 150"));
}
