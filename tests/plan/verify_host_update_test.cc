// The verifier's rules for host steps that update persistent values in place (docs/design.md
// "Compute units"), on the plans of support/host_update_plan.h: the valid plan and one broken
// plan per rule, each asserting the rule's message.
#include <catch2/catch.hpp>

#include "support/host_update_plan.h"

using namespace hyperplan;
using namespace hyperplan::host_update_test;

TEST_CASE("verify host update: an optimizer step on the host, the weight fetched back, verifies") {
  const HostUpdateFixture f;
  const EvaluatedPlan planned = f.Finish(f.Valid());
  const VerifyResult result = f.Verify(planned);
  INFO(result.message);
  CHECK(result.ok);
  CHECK(CheckExplicitWaits(f.loop, f.profile, planned.plan).empty());
  const SimulationResult& replay = planned.evaluation.timeline;
  // Prefetch W 100 B at 1 B/ns [0, 100], n0 [100, 200], Store g [200, 300], n1 [300, 400],
  // n2 [400, 500], Prefetch W [500, 600], n3 [600, 700].
  CHECK(replay.steps[5].start_ns == 300);
  CHECK(replay.steps[6].end_ns == 500);
  CHECK(replay.steps[7].start_ns == 500);
  CHECK(replay.makespan_ns == 700);
  // ddr->hbm carries W twice (200 B), hbm->ddr g once (100 B); no write-back of W or M.
  CHECK(replay.total_bytes_moved() == 300);
  CHECK(replay.host_compute_ns == 200);
}

TEST_CASE("verify host update: a device read after the update from a copy fetched before it") {
  const HostUpdateFixture f;
  Breaks breaks;
  breaks.stale = true;
  const VerifyResult result = f.Verify(f.Finish(f.Valid(breaks)));
  CHECK_FALSE(result.ok);
  CHECK(result.invariant == 1);
  // Steps: 0 Prefetch W, 1 n0, 2 Store g, 3 Detach g, 4 n1, 5 n2, 6 n3: n3 at fault.
  CHECK(result.step == 6);
  CHECK_THAT(result.message,
             Catch::Contains("reads 'W' after step 5 (compute 'n2' on the host) updates it in "
                             "place, from a device copy opened by step 0 (prefetch 'W'"));
}

TEST_CASE("verify host update: a Prefetch racing the update for the home copy") {
  const HostUpdateFixture f;
  Breaks breaks;
  breaks.racing = true;
  const VerifyResult result = f.Verify(f.Finish(f.Valid(breaks)));
  CHECK_FALSE(result.ok);
  CHECK(result.invariant == 1);
  CHECK(result.step == 6);  // n2, the update
  CHECK_THAT(result.message, Catch::Contains("the host step updates 'W' in place while step 7 "
                                             "(prefetch 'W' ddr->hbm) may still read its home "
                                             "copy"));
}

TEST_CASE("verify host update: a device copy of a host-updated value across iterations") {
  const HostUpdateFixture f;
  Breaks breaks;
  breaks.carry = true;
  const VerifyResult result = f.Verify(f.Finish(f.Valid(breaks)));
  CHECK_FALSE(result.ok);
  CHECK(result.invariant == 1);
  // The first residency of W (from the run's start) names no step; the rule is about the loop.
  CHECK(result.step == -1);
  CHECK_THAT(result.message,
             Catch::Contains("'W', which step 5 (compute 'n2' on the host) updates in place, is "
                             "on the device when the iteration starts"));
}

TEST_CASE("verify host update: a Store over the home copy the host updated") {
  const HostUpdateFixture f;
  Breaks breaks;
  breaks.store_back = true;
  const VerifyResult result = f.Verify(f.Finish(f.Valid(breaks)));
  CHECK_FALSE(result.ok);
  CHECK(result.invariant == 1);
  CHECK(result.step == 9);  // the Store right after n3 (step 8)
  CHECK_THAT(result.message,
             Catch::Contains("writes the home copy of 'W' on ddr, which step 6 (compute 'n2' on "
                             "the host) updates in place"));
}

TEST_CASE("verify host update: a host update of a value whose home is not on the host tier") {
  HostUpdateFixture f;
  f.profile = NvmeProfile();
  f.profile.host_compute.memory_tier = 1;
  f.profile.host_compute.sockets = 1;
  f.profile.host_compute.peak_flops_per_s[DType::kFloat32] = kOneBytePerNs;
  Plan plan = f.Valid();
  for (TierCopy& copy : plan.tier_copies) {
    if (copy.value == f.m) copy.tier = 2;  // M's home on nvme, where the CPUs do not compute
  }
  const VerifyResult result = f.Verify(f.Finish(std::move(plan)));
  CHECK_FALSE(result.ok);
  CHECK(result.invariant == 1);
  CHECK(result.step == 5);  // n1, which updates M
  CHECK_THAT(result.message,
             Catch::Contains("the host step updates 'W.exp_avg' in place, but its home copy is "
                             "on nvme, not on ddr, the host compute tier"));
}
