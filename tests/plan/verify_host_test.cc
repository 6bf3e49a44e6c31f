// The verifier knows compute units (docs/design.md "Compute units", invariants 1, 4, 5 and 6,
// and the explicit-waits rows of the host lane), on the plans of support/host_plan.h.
#include <catch2/catch.hpp>
#include <string>

#include "support/host_plan.h"

using namespace hyperplan;
using namespace hyperplan::host_plan_test;

namespace {

int32_t StepOfNode(const Plan& plan, NodeId node) {
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (plan.steps[i].kind == StepKind::kCompute && plan.steps[i].node == node) {
      return static_cast<int32_t>(i);
    }
  }
  return -1;
}

}  // namespace

TEST_CASE("verify host: a host node fed by a Store, its output Prefetched back, verifies") {
  const HostFixture f;
  const EvaluatedPlan planned = f.Finish(f.Valid());
  const VerifyResult result = f.Verify(planned);
  INFO(result.message);
  CHECK(result.ok);
  CHECK(CheckExplicitWaits(f.graph, f.profile, planned.plan).empty());
  const SimulationResult& replay = planned.evaluation.timeline;
  // n1 starts when the Store of a ends: n0 100 ns + Store 100 B at 1 B/ns = 200 ns.
  CHECK(replay.steps[2].start_ns == 200);
  // n2 runs on the device meanwhile: right after n0, [100, 300].
  CHECK(replay.steps[3].start_ns == 100);
  // Prefetch h after n1 (200 + 300 = 500) for 10 ns; n3 then 100 ns: 500 + 10 + 100 = 610.
  CHECK(replay.makespan_ns == 610);
  CHECK(replay.host_compute_ns == 300);
}

TEST_CASE("verify host: the makespan is bounded by each unit's compute, not their sum") {
  const HostFixture f;
  const EvaluatedPlan planned = f.Finish(f.Valid());
  // Device 100 + 200 + 100 = 400 ns, host 300 ns: 610 is over each but under 400 + 300 = 700,
  // because n1 on the host overlaps n2 on the device (200..300).
  CHECK(planned.evaluation.timeline.makespan_ns < 400 + 300);
  CHECK(planned.evaluation.timeline.makespan_ns >= 400);
  const VerifyResult result = f.Verify(planned);
  INFO(result.message);
  CHECK(result.ok);
}

TEST_CASE("verify host: a host node reading a device-only value breaks invariant 1") {
  const HostFixture f;
  const EvaluatedPlan planned = f.Finish(f.NoStore());
  const VerifyResult result = f.Verify(planned);
  CHECK_FALSE(result.ok);
  CHECK(result.invariant == 1);
  CHECK(result.step == 1);  // n1, right after n0: there is no Store between them
  CHECK_THAT(result.message, Catch::Contains("step 1 (compute 'n1' on the host)"));
  CHECK_THAT(result.message, Catch::Contains("reads 'a' on ddr"));
  CHECK_THAT(result.message, Catch::Contains("no copy of it is there"));
}

TEST_CASE("verify host: a host step must wait for the Store that writes its input") {
  const HostFixture f;
  Plan plan = f.Valid();
  plan.steps[2].waits_for.clear();  // n1 no longer waits for the Store of a (step 1)
  const VerifyResult result = f.Verify(f.Finish(std::move(plan)));
  CHECK_FALSE(result.ok);
  CHECK(result.invariant == 1);
  CHECK(result.step == 2);
  CHECK_THAT(result.message, Catch::Contains("does not wait"));
  CHECK_THAT(result.message, Catch::Contains("step 1 (store 'a' hbm->ddr)"));
}

TEST_CASE("verify host: a host step in a profile without a host unit breaks invariant 1") {
  HostFixture f;
  const EvaluatedPlan planned = f.Finish(f.Valid());
  f.profile.host_compute = HostComputeSpec{};  // sockets 0: no host unit
  const VerifyResult result = f.Verify(planned);
  CHECK_FALSE(result.ok);
  CHECK(result.invariant == 1);
  CHECK(result.step == 2);
  CHECK_THAT(result.message, Catch::Contains("no host_compute"));
}

TEST_CASE("verify host: a host step with offloading off breaks invariant 6") {
  const HostFixture f;
  Plan plan = f.Valid();
  plan.offload_enabled = false;
  const VerifyResult result = f.Verify(f.Finish(std::move(plan)));
  CHECK_FALSE(result.ok);
  CHECK(result.invariant == 6);
  CHECK(result.step == 2);
  CHECK_THAT(result.message, Catch::Contains("runs on the host"));
}

TEST_CASE("verify host: a Prefetch of a host output must follow the host step") {
  const HostFixture f;
  SECTION("started before the host step ends: invariant 4 on the replay") {
    Plan plan = f.Valid();
    plan.steps[4].waits_for = {3};  // Prefetch h waits for n2 only: starts at 300, n1 ends 500
    const VerifyResult result = f.Verify(f.Finish(std::move(plan)));
    CHECK_FALSE(result.ok);
    CHECK(result.invariant == 4);
    CHECK(result.step == 4);
    CHECK_THAT(result.message, Catch::Contains("no complete copy of 'h' on ddr"));
  }
  SECTION("after it only by luck: the explicit-waits check names the host step") {
    // n1 takes 100 ns: [200, 300]; the Prefetch, waiting for n2 only, starts at 300 too, so
    // the replay is fine, but a runtime may start it before n1 has written h.
    Plan plan = f.Valid(100);
    plan.steps[4].waits_for = {3};
    const EvaluatedPlan planned = f.Finish(std::move(plan));
    CHECK(planned.evaluation.timeline.steps[2].end_ns == 300);
    CHECK(planned.evaluation.timeline.steps[4].start_ns == 300);
    const VerifyResult result = f.Verify(planned);
    INFO(result.message);
    REQUIRE(result.ok);
    const std::string waits = CheckExplicitWaits(f.graph, f.profile, planned.plan);
    CHECK_THAT(waits, Catch::StartsWith("step 4 (prefetch 'h' ddr->hbm)"));
    CHECK_THAT(waits, Catch::Contains("does not wait for step 2 (compute 'n1' on the host)"));
  }
}

TEST_CASE("verify host: a host step that frees a copy follows every reader of it") {
  const HostFixture f;
  // Replay with n1 waiting for the Store only: the Prefetch of a back reads the copy over
  // [200, 300] (100 B), n1 runs [200, 500] and frees it at 500, so the replay is fine.
  const EvaluatedPlan lucky = f.Finish(f.PrefetchBeside({}));
  CHECK(lucky.evaluation.timeline.steps[3].end_ns == 300);
  CHECK(lucky.evaluation.timeline.steps[4].end_ns == 500);
  const VerifyResult result = f.Verify(lucky);
  INFO(result.message);
  REQUIRE(result.ok);
  const std::string waits = CheckExplicitWaits(f.graph, f.profile, lucky.plan);
  CHECK_THAT(waits, Catch::StartsWith("step 4 (compute 'n1' on the host)"));
  CHECK_THAT(waits, Catch::Contains("frees the copy of 'a' on ddr"));
  CHECK_THAT(waits, Catch::Contains("does not wait for step 3 (prefetch 'a' ddr->hbm)"));
  // Waiting for that Prefetch too, the free is ordered after every read.
  const EvaluatedPlan ordered = f.Finish(f.PrefetchBeside({3}));
  const VerifyResult ordered_result = f.Verify(ordered);
  INFO(ordered_result.message);
  CHECK(ordered_result.ok);
  CHECK(CheckExplicitWaits(f.graph, f.profile, ordered.plan).empty());
}

TEST_CASE("verify host: a host step opens no device residency") {
  const HostFixture f;
  Plan plan = f.Valid();
  // h's device block opened by n1 itself instead of the Prefetch from ddr.
  const int32_t host = StepOfNode(plan, f.n1);
  for (ResidentInterval& interval : plan.residency) {
    if (interval.value == f.h) interval.opened_by = host;
  }
  const VerifyResult result = f.Verify(f.Finish(std::move(plan)));
  CHECK_FALSE(result.ok);
  CHECK(result.invariant == 1);
  CHECK(result.step == host);
  CHECK_THAT(result.message, Catch::Contains("opened by a Prefetch"));
}

TEST_CASE("verify host: a host step writes each output into a copy on the host tier") {
  const HostFixture f;
  Plan plan = f.Valid();
  // h's copy on ddr opened by nobody (as if loaded before the run): n1 writes h nowhere.
  for (TierCopy& copy : plan.tier_copies) {
    if (copy.value == f.h) copy.opened_by = -1;
  }
  const VerifyResult result = f.Verify(f.Finish(std::move(plan)));
  CHECK_FALSE(result.ok);
  CHECK(result.invariant == 1);
  CHECK(result.step == 2);
  CHECK_THAT(result.message, Catch::Contains("writes 'h' with no copy on ddr"));
}

TEST_CASE("verify host: a host step updates a weight's home copy in place, no write-back") {
  HostFixture f;
  // As a loop graph says of an optimizer step: n1 rewrites W in place (all 1000 bytes), in
  // its home copy on ddr (docs/design.md "Compute units"); no device step reads W, and no
  // Store writes it back, so the plan is the valid one unchanged.
  f.graph.values[f.w].written_by = f.n1;
  f.graph.values[f.w].written_bytes = 1000;
  const EvaluatedPlan planned = f.Finish(f.Valid());
  const VerifyResult result = f.Verify(planned);
  INFO(result.message);
  CHECK(result.ok);
  // The Store of a (100 B) and the Prefetch of h (10 B) only: W never moves.
  CHECK(planned.evaluation.timeline.total_bytes_moved() == 110);
}

TEST_CASE("verify host: a host step frees no device residency") {
  const HostFixture f;
  Plan plan = f.Valid();
  // a's device block ended by n1 (position 1), its last reader on the host, instead of n2:
  // n2 on the device does not wait for n1, so the block could be reused while n1 runs.
  const int32_t host = StepOfNode(plan, f.n1);
  for (ResidentInterval& interval : plan.residency) {
    if (interval.value == f.a) {
      interval.last_step = 1;
      interval.closed_by = host;
    }
  }
  const VerifyResult result = f.Verify(f.Finish(std::move(plan)));
  CHECK_FALSE(result.ok);
  CHECK(result.invariant == 1);
  CHECK(result.step == host);
  CHECK_THAT(result.message, Catch::Contains("is freed by a host step"));
}
