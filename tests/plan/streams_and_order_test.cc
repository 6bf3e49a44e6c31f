// The one stream numbering (plan.h) and the one happens-before relation (compute_bounds.h),
// by hand.
#include <catch2/catch.hpp>

#include "hyperplan/plan/plan.h"
#include "plan/compute_bounds.h"
#include "planner/planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

TEST_CASE("stream numbering: the compute stream, then each link's channels in turn") {
  HardwareProfile profile = UnitProfile();
  profile.links[0].channels = 2;
  profile.links[1].channels = 0;  // declares none: one channel all the same
  profile.links.push_back({1, 0, kOneBytePerNs, 0, 3});
  const StreamNumbering streams(profile);
  // 1 (compute) + 2 + 1 + 3 = 7 streams; link 0 from 1, link 1 at 3, link 2 from 4.
  CHECK(streams.count() == 7);
  CHECK(streams.channel_count(1) == 1);
  CHECK(streams.Of(0, 1) == 2);
  CHECK(streams.Of(1, 0) == 3);
  CHECK(streams.Of(2, 2) == 6);
  CHECK(streams.Of(ComputeStep(0)) == StreamNumbering::kComputeStream);
  CHECK(streams.Of(DetachStep()) == StreamNumbering::kComputeStream);
  CHECK(streams.Of(TransferStep(StepKind::kPrefetch, 2, 1)) == 5);
}

TEST_CASE("happens-before: through waits and stream order, never through timing") {
  // 0 compute n0; 1 Store (link 0 ch 0) waits 0; 2 Store (link 0 ch 1); 3 Prefetch (link 1)
  // waits 1; 4 compute n1; 5 Store (link 0 ch 0) waits 4.
  Plan plan;
  plan.order = {0, 1};
  plan.steps = {ComputeStep(0),
                TransferStep(StepKind::kStore, 0, 0, {0}),
                TransferStep(StepKind::kStore, 0, 1),
                TransferStep(StepKind::kPrefetch, 1, 0, {1}),
                ComputeStep(1),
                TransferStep(StepKind::kStore, 0, 0, {4})};
  const planner::HappensBefore before(plan, UnitProfile(int64_t{1} << 40, 2));
  CHECK(before(0, 1));        // a wait
  CHECK(before(0, 3));        // 0 -> 1 -> 3
  CHECK_FALSE(before(2, 3));  // another channel, no wait
  CHECK(before(1, 5));        // its channel's order
  CHECK(before(0, 4));        // the compute stream's order
  CHECK_FALSE(before(3, 4));  // the timing may put 3 first, but nothing says so
  CHECK_FALSE(before(4, 4));
  // On the compute steps: step 3 knows n0 ended (through 1); step 5 knows n1 (its wait). No
  // compute step waits for 1, 2, 3 or 5: the order's size, 2.
  const planner::ComputeBounds bounds =
      planner::BoundByCompute(plan, UnitProfile(int64_t{1} << 40, 2));
  CHECK(bounds.ended_before == std::vector<Step>{-1, 0, -1, 0, 0, 1});
  CHECK(bounds.starts_after == std::vector<Step>{1, 2, 2, 2, 2, 2});
}

TEST_CASE("compute bounds: the host lane's steps count only once its own order says so") {
  HardwareProfile profile = UnitProfile();
  profile.host_compute.memory_tier = 1;
  profile.host_compute.sockets = 1;
  auto host = [](Step position, std::vector<int32_t> waits = {}) {
    PlanStep step = ComputeStep(position, std::move(waits));
    step.unit = ComputeUnit::kHost;
    return step;
  };
  SECTION("a device step ending says nothing of a host step before it in the order") {
    // 0 n0 on the host (position 0); 1 n1 on the device (position 1); 2 Store waits 1.
    Plan plan;
    plan.order = {0, 1};
    plan.steps = {host(0), ComputeStep(1), TransferStep(StepKind::kStore, 0, 0, {1})};
    const planner::ComputeBounds bounds = planner::BoundByCompute(plan, profile);
    // The Store knows n1 ended, not n0 (nothing orders the host lane before it): -1, not 1.
    CHECK(bounds.ended_before[2] == -1);
    // No compute step is ordered after n0 or the Store: the order's size.
    CHECK(bounds.starts_after[0] == 2);
    CHECK(bounds.starts_after[2] == 2);
  }
  SECTION("a host step waiting says nothing of a device step after it in the order") {
    // 0 Store; 1 n0 on the device (position 0); 2 n1 on the host (position 1) waits 0;
    // 3 n2 on the device (position 2).
    Plan plan;
    plan.order = {0, 1, 2};
    plan.steps = {TransferStep(StepKind::kStore, 0, 0), ComputeStep(0), host(1, {0}),
                  ComputeStep(2)};
    const planner::ComputeBounds bounds = planner::BoundByCompute(plan, profile);
    // n1 starts after the Store, but n2 (position 2, the device) need not: no position from
    // which every compute step follows it, the order's size 3 (not 1).
    CHECK(bounds.starts_after[0] == 3);
    // n2 knows n0 ended (the device's order) but not n1: 0.
    CHECK(bounds.ended_before[3] == 0);
    // n1 knows the Store ended but no compute step: -1.
    CHECK(bounds.ended_before[2] == -1);
  }
}
