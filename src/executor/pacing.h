// Pacing: timing mode of the reference executor. A compute step holds its stream (the compute
// stream, or the host lane for a host step) for the node time the plan assumes on its unit
// (Plan::node_time_ns), a transfer for its channel's time on the link
// (ChannelTransferTimeNs: latency + B * channels / bandwidth), a Detach for nothing; the
// executor does the step's work first and then sleeps out the remainder, so a step never ends
// before its planned duration and ends later only when the work itself (or the OS) is slower.
// `time_scale` stretches every duration (2.0: a planned ns lasts 2 ns), so microsecond-scale
// models run long enough for the OS's sleep granularity, and the measured makespan is divided
// by it again before it is compared with the simulated one.
// Cost: one sleep per step. Limits: a sleep still overshoots by the wake-up latency (tens of us
// on a loaded box: docs/benchmarks.md measures it), so microsecond steps want a time_scale.
#pragma once

#include <chrono>
#include <cstdint>

#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::executor {

using Clock = std::chrono::steady_clock;

// The planned duration of step `step` of `plan` on `profile`, in planned ns.
int64_t PlannedDurationNs(const Plan& plan, const HardwareProfile& profile, int32_t step);

// Asks the OS to wake this thread's sleeps within 1 us of their deadline (Linux's timer slack
// is 50 us by default, as much as a whole small-model step). Call once per stream thread.
void TightenSleeps();

// Sleeps until `start + planned_ns * time_scale` (returns at once when that has passed).
void HoldStream(Clock::time_point start, int64_t planned_ns, double time_scale);

}  // namespace hyperplan::executor
