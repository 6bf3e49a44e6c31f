// Streams: which plan steps run on which stream, in the order the report and the trace show
// them. One compute stream (the device's compute steps; Detach steps, which take no time,
// listed apart), the host lane (compute steps on the host, issue 30; shown beside the compute
// stream, though it is numbered after the copy streams) and one copy stream per link channel
// that carries at least one transfer, by link then channel.
// Also the stall before each compute step as a time interval, from the simulated timeline.
// Cost: O(steps + links x channels).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "report/time_columns.h"

namespace hyperplan::report {

struct CopyStream {
  int32_t link = -1;
  int32_t channel = -1;
  std::string name;            // "ddr→hbm ch 0"
  std::vector<int32_t> steps;  // transfers on this channel, indices into Plan::steps, ascending
};

struct PlanStreams {
  std::vector<int32_t> compute_steps;  // the device's, ascending
  std::vector<int32_t> host_steps;     // compute steps on the host lane, ascending
  std::vector<int32_t> detach_steps;   // ascending
  std::vector<CopyStream> copy_streams;
  int32_t idle_copy_streams = 0;  // link channels with no transfer (not listed)
};

PlanStreams CollectStreams(const HardwareProfile& profile, const Plan& plan);

// "host (2 sockets)": the host lane's name, as plan files write it (HostLane.name).
std::string HostLaneName(const HardwareProfile& profile);

// "ddr→hbm" (tier names, or "?" for an index outside the profile).
std::string LinkName(const HardwareProfile& profile, int32_t link);

// The simulated interval of each of `steps` (PlanEvaluation::timeline.steps).
std::vector<TimeInterval> StepIntervals(const PlanEvaluation& evaluation,
                                        const std::vector<int32_t>& steps);

// The wait before each compute step that stalled: [start - stall, start), in step order.
struct Stalls {
  std::vector<int32_t> steps;           // the compute steps that waited
  std::vector<TimeInterval> intervals;  // parallel to steps
};
Stalls CollectStalls(const Plan& plan, const PlanEvaluation& evaluation,
                     const std::vector<int32_t>& compute_steps);

}  // namespace hyperplan::report
