// Simulate: a discrete-event replay of a plan against the hardware profile.
//
// One compute stream (compute steps and Detach steps in sequence order) and one stream per
// link channel (its transfers in sequence order, FIFO). Because every step waits only for
// steps earlier in the sequence and for its stream predecessor, one pass in sequence order
// computes every start and end: start = max(end of stream predecessor, ends of waits_for).
// Memory: each ResidentInterval and TierCopy becomes an allocation at its opening step's start
// (or time 0) and a free at its closing step's end (or the makespan); at equal times frees
// come before allocations, except zero-length residencies, which count at their instant.
// Outputs: each step's start and end, bytes per tier over time and their peaks, the stall
// before each compute node, bytes moved per link, the makespan and the no-offload makespan
// (the compute stream alone). Cost: O(steps + waits + residencies log residencies).
// Limits: transfers are not preempted and a link's channels never borrow each other's
// bandwidth (see plan.h for the bandwidth rule).
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/cost.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/planner/plan.h"

namespace hyperplan {

// ChannelTransferTimeNs (hyperplan/cost.h): one transfer's time on one channel of a link.

// Replays `plan` (its steps, node times, residency and tier copies). Throws Error(kInternal)
// when a step waits for a later step (a malformed plan; VerifyPlan reports it precisely).
SimulationResult Simulate(const Graph& graph, const HardwareProfile& profile, const Plan& plan);

// The compute steps' start times in `plan`'s timeline (stalls included), by position in
// plan.order, then the last compute step's end: the axis the plan ran on.
std::vector<int64_t> ComputeStepStarts(const Plan& plan);

}  // namespace hyperplan
