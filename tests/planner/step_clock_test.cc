// StepClock: the replay's timing rule one step at a time (simulate.h), which Simulate and the
// contenders' PlanBuilder share. Unit rates (planner_support.h): a link moves 1 byte/ns over
// all its channels, so with 2 channels a transfer moves 1/2 byte/ns on its channel (a routed one
// holds both and moves 1 byte/ns: whole_link.h).
#include <catch2/catch.hpp>

#include "hyperplan/plan/simulate.h"
#include "hyperplan/plan/whole_link.h"
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

TEST_CASE("step clock: a routed hop holds its whole link, at its whole bandwidth") {
  // Both links have 2 channels at 1/2 byte/ns each, 1 byte/ns together.
  const HardwareProfile profile = UnitProfile(int64_t{1} << 40, 2);
  const std::vector<int64_t> node_time_ns;  // no compute step
  StepClock clock(profile, node_time_ns);
  Plan plan;
  auto add = [&](PlanStep step) {
    plan.steps.push_back(step);
    return clock.Add(step);
  };
  auto routed = [](PlanStep step) {
    step.routed_by = 0;  // MoE node 0's picked experts
    return step;
  };
  // 0: prefetch 100 B on link 1 channel 1 at 1/2 byte/ns -> [0, 200).
  CHECK(add(TransferStep(StepKind::kPrefetch, 1, 1, {}, 100)).end_ns == 200);
  // 1: a routed prefetch of 100 B on channel 0 holds both channels: it starts when channel 1
  // frees, at 200, and moves at 1 byte/ns -> [200, 300).
  const StepTiming hop = add(routed(TransferStep(StepKind::kPrefetch, 1, 0, {}, 100)));
  CHECK(hop.start_ns == 200);
  CHECK(hop.end_ns == 300);
  // 2: prefetch 10 B on channel 1: held by step 1 until 300 -> [300, 320).
  const StepTiming after = add(TransferStep(StepKind::kPrefetch, 1, 1, {}, 10));
  CHECK(after.start_ns == 300);
  CHECK(after.end_ns == 320);
  // 3: a routed store of 40 B on link 0, idle: [0, 40) at 1 byte/ns.
  CHECK(add(routed(TransferStep(StepKind::kStore, 0, 0, {}, 40))).end_ns == 40);
  CHECK(std::vector<int64_t>(clock.channel_free_ns(1).begin(), clock.channel_free_ns(1).end()) ==
        std::vector<int64_t>{300, 320});
  CHECK(std::vector<int64_t>(clock.channel_free_ns(0).begin(), clock.channel_free_ns(0).end()) ==
        std::vector<int64_t>{40, 40});
  // The same order as waits (the executor's): step 1 waits for step 0 (channel 1's last), step 2
  // for step 1 (the holder, before channel 1's next); steps 0 and 3 for nothing more (step 3's
  // link had no earlier step).
  const std::vector<std::vector<int32_t>> waits = WholeLinkWaits(profile, plan);
  CHECK(waits == std::vector<std::vector<int32_t>>{{}, {0}, {1}, {}});
}

TEST_CASE("step clock: on a one-channel link a routed hop is an ordinary transfer") {
  const HardwareProfile profile = UnitProfile(int64_t{1} << 40, 1);
  const std::vector<int64_t> node_time_ns;
  StepClock clock(profile, node_time_ns);
  PlanStep step = TransferStep(StepKind::kPrefetch, 1, 0, {}, 100);
  step.routed_by = 0;
  CHECK_FALSE(HoldsWholeLink(profile, step));
  CHECK(clock.Add(step).end_ns == 100);  // 100 B at 1 byte/ns
}

// The chunker's trials (chunk_prefetches.h) resume a clock at a step instead of replaying from
// the start: the same timings as the full replay at every resume point, a whole-link hop, the
// compute stream and both links included, and AddReady with the waits resolved by the caller
// times a step as Add does.
TEST_CASE("step clock: resumed at any step, times the rest as the full replay does") {
  const HardwareProfile profile = UnitProfile(int64_t{1} << 40, 2);
  const std::vector<int64_t> node_time_ns = {30, 5, 70};
  PlanStep routed = TransferStep(StepKind::kPrefetch, 1, 0, {}, 100);
  routed.routed_by = 0;
  const std::vector<PlanStep> steps = {
      TransferStep(StepKind::kPrefetch, 1, 1, {}, 100),  // [0, 200) on channel 1
      ComputeStep(0, {}),                                // [0, 30)
      routed,                                            // both channels: [200, 300)
      TransferStep(StepKind::kStore, 0, 0, {1}, 40),     // after n0: [30, 110)
      ComputeStep(1, {2}),                               // after the hop: [300, 305)
      TransferStep(StepKind::kPrefetch, 1, 0, {}, 10),   // channel 0 after the hop: [300, 320)
      DetachStep({3}),                                   // compute stream free at 305: [305, 305)
      ComputeStep(2, {5}),                               // [320, 390)
  };
  StepClock full(profile, node_time_ns);
  for (const PlanStep& step : steps) full.Add(step);
  const std::vector<StepTiming>& timings = full.timings();
  REQUIRE(timings.size() == steps.size());
  // The hand times above, so the comparisons below compare against a replay that is right.
  const std::vector<int64_t> ends_ns = {200, 30, 300, 110, 305, 320, 305, 390};
  for (size_t s = 0; s < steps.size(); ++s) CHECK(timings[s].end_ns == ends_ns[s]);
  for (size_t k = 0; k <= steps.size(); ++k) {
    INFO("resumed after " << k << " steps");
    StepClock resumed(profile, node_time_ns);
    resumed.Resume(std::span<const PlanStep>(steps).first(k),
                   std::span<const StepTiming>(timings).first(k));
    for (size_t s = k; s < steps.size(); ++s) {
      int64_t ready_ns = 0;
      for (const int32_t wait : steps[s].waits_for) {
        ready_ns = std::max(ready_ns, resumed.timings()[wait].end_ns);
      }
      const StepTiming timing =
          s % 2 == 0 ? resumed.Add(steps[s]) : resumed.AddReady(steps[s], ready_ns);
      CHECK(timing.start_ns == timings[s].start_ns);
      CHECK(timing.end_ns == timings[s].end_ns);
    }
    for (const int32_t link : {0, 1}) {
      CHECK(std::vector<int64_t>(resumed.channel_free_ns(link).begin(),
                                 resumed.channel_free_ns(link).end()) ==
            std::vector<int64_t>(full.channel_free_ns(link).begin(),
                                 full.channel_free_ns(link).end()));
    }
  }
}
