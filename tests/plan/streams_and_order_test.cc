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
