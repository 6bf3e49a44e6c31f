// StepClock: the replay's timing rule one step at a time (simulate.h), which Simulate and the
// contenders' PlanBuilder share. Unit rates (planner_support.h): a link moves 1 byte/ns over
// all its channels, so with 2 channels a transfer moves 1/2 byte/ns on its channel.
#include <catch2/catch.hpp>

#include "hyperplan/plan/simulate.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

TEST_CASE("step clock: streams, channels and waits, timed by hand") {
  // Link 1 (ddr -> hbm) has 2 channels at 1/2 byte/ns each; link 0 (hbm -> ddr) likewise.
  const HardwareProfile profile = UnitProfile(int64_t{1} << 40, 2);
  const std::vector<int64_t> node_time_ns = {30, 5};  // n0 30 ns, n1 5 ns
  StepClock clock(profile, node_time_ns);
  // 0: prefetch 100 B on link 1 channel 0: 100 B at 1/2 B/ns = 200 ns -> [0, 200).
  CHECK(clock.Add(TransferStep(StepKind::kPrefetch, 1, 0, {}, 100)).end_ns == 200);
  // 1: prefetch 50 B on channel 1: its own channel is idle -> [0, 100).
  CHECK(clock.Add(TransferStep(StepKind::kPrefetch, 1, 1, {}, 50)).end_ns == 100);
  // 2: compute 30 ns, waiting for step 1 -> [100, 130).
  const StepTiming compute = clock.Add(ComputeStep(0, {1}));
  CHECK(compute.start_ns == 100);
  CHECK(compute.end_ns == 130);
  // 3: prefetch 10 B on channel 0, no waits: FIFO behind step 0 -> [200, 220).
  const StepTiming queued = clock.Add(TransferStep(StepKind::kPrefetch, 1, 0, {}, 10));
  CHECK(queued.start_ns == 200);
  CHECK(queued.end_ns == 220);
  // 4: a Detach takes no time on the compute stream, after step 2 -> [130, 130).
  const StepTiming detach = clock.Add(DetachStep());
  CHECK(detach.start_ns == 130);
  CHECK(detach.end_ns == 130);
  // 5: a store on link 0, waiting for steps 2 and 3: starts at max(130, 220) = 220, 40 B at
  // 1/2 B/ns -> [220, 300).
  CHECK(clock.Add(TransferStep(StepKind::kStore, 0, 0, {2, 3}, 40)).end_ns == 300);
  // 6: compute 5 ns, waiting for step 0: the stream is free at 130, step 0 ends at 200 ->
  // [200, 205).
  CHECK(clock.Add(ComputeStep(1, {0})).start_ns == 200);
  // Channels of link 1 next free: channel 0 at 220 (step 3), channel 1 at 100 (step 1).
  CHECK(std::vector<int64_t>(clock.channel_free_ns(1).begin(), clock.channel_free_ns(1).end()) ==
        std::vector<int64_t>{220, 100});
  CHECK(clock.channel_count(1) == 2);
  CHECK(clock.timings().size() == 7);
}
