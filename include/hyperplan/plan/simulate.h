// Simulate: a discrete-event replay of a plan against the hardware profile.
//
// One compute stream (device compute steps and Detach steps in sequence order), one host
// lane (host compute steps, when the profile has a host unit) and one stream per link channel
// (its transfers in sequence order, FIFO). Because every step waits only for
// steps earlier in the sequence and for its stream predecessor, one pass in sequence order
// computes every start and end: start = max(end of stream predecessor, ends of waits_for).
// Memory: each ResidentInterval and TierCopy becomes an allocation at its opening step's start
// (or time 0) and a free at its closing step's end (or the makespan); at equal times frees
// come before allocations, except zero-length residencies, which count at their instant.
// Outputs: each step's start and end, bytes per tier over time and their peaks, the stall
// before each compute node, bytes moved per link, the makespan and the no-offload makespan
// (the compute stream alone). Cost: O(steps + waits + residencies log residencies).
// StepClock is that pass's timing rule on its own, one step at a time: Simulate runs it over
// a finished plan, and a plan under construction (contenders/plan_builder.h) runs it as it
// appends steps, so the two never disagree on when a step starts or which channel frees
// first.
// Limits: transfers are not preempted and a link's channels never borrow each other's
// bandwidth (see plan.h for the bandwidth rule).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "hyperplan/cost.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

// ChannelTransferTimeNs (hyperplan/cost.h): one transfer's time on one channel of a link.

// The streams' clocks: a step starts once every step it waits for has ended and its stream
// is free (the compute stream for a device Compute and a Detach, the host lane for a host
// Compute, its link channel for a transfer); a Compute takes its node time on its unit, a Detach no
// time, a transfer ChannelTransferTimeNs; a routed transfer on a link of several channels holds
// all of them and takes TransferTimeNs (whole_link.h).
class StepClock {
 public:
  // `node_time_ns` by NodeId (the plan's); both must outlive the clock.
  StepClock(const HardwareProfile& profile, const std::vector<int64_t>& node_time_ns);

  // Times the next step. Its waits index steps already timed and its link and channel exist
  // (the caller checks).
  const StepTiming& Add(const PlanStep& step);
  // The same for a step whose waits the caller resolved: `ready_ns`, the latest end among the
  // steps it waits for (0: none); step.waits_for is not read.
  const StepTiming& AddReady(const PlanStep& step, int64_t ready_ns);
  // Takes `steps` as timed already at `timings` (parallel, as this rule timed them from an
  // empty clock): the clock is then where it was after the last of them, at O(steps) without
  // timing any. A clock that has timed nothing only.
  void Resume(std::span<const PlanStep> steps, std::span<const StepTiming> timings);

  const std::vector<StepTiming>& timings() const { return timings_; }
  std::vector<StepTiming> TakeTimings() { return std::move(timings_); }
  // When each channel of `link` is next free.
  std::span<const int64_t> channel_free_ns(int32_t link) const {
    return {stream_free_ns_.data() + streams_.Of(link, 0),
            static_cast<size_t>(streams_.channel_count(link))};
  }
  int32_t channel_count(int32_t link) const { return streams_.channel_count(link); }

 private:
  const StepTiming& AddWholeLink(const PlanStep& step, int64_t ready_ns);

  const HardwareProfile& profile_;
  const std::vector<int64_t>& node_time_ns_;
  std::vector<StepTiming> timings_;
  StreamNumbering streams_;
  std::vector<int64_t> stream_free_ns_;  // by stream (StreamNumbering): when it is next free
};

// Replays `plan` (its steps, node times, residency and tier copies). Throws Error(kInternal)
// when a step waits for a later step (a malformed plan; VerifyPlan reports it precisely).
SimulationResult Simulate(const Graph& graph, const HardwareProfile& profile, const Plan& plan);

// The compute steps' start times in `plan`'s timeline (stalls included), by position in
// plan.order, then the last compute step's end: the axis the plan ran on. Never decreasing:
// a step that starts before the one before it ends (the other unit's lane) is taken to start
// when that one started, so every time maps to one boundary.
std::vector<int64_t> ComputeStepStarts(const Plan& plan, const SimulationResult& timeline);

}  // namespace hyperplan
