// Timed comparison: a plan's step timings measured on a device (cuda_schedule.h, issued by the
// CUDA backend) against the simulator's, in the same terms for both: the makespan (the latest
// step end), the stall before compute steps (each compute step's start minus the end of the
// step before it on its lane, the compute stream or the host lane, or 0 for the first; summed
// over both lanes, as the simulator sums them), and each link's busy time (the union of its
// transfers' [start, end) intervals, so channels running at once count once). Measured iterations
// are compared by their fastest one (the least disturbed by the host); every time is in integer ns
// from the iteration's start. Cost: O(steps log steps) per timeline. Limits: it compares what it is
// given; event timing on a GPU resolves about 0.5 us, which bounds how small a difference means
// anything.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::executor {

// One timeline, simulated or measured, reduced to the compared figures.
struct TimelineFigures {
  int64_t makespan_ns = 0;
  int64_t stall_ns = 0;
  std::vector<int64_t> link_busy_ns;  // by link index
};

struct LinkComparison {
  int32_t link = -1;
  int64_t transfers = 0;  // per iteration
  int64_t bytes = 0;      // per iteration
  int64_t simulated_busy_ns = 0;
  int64_t measured_busy_ns = 0;
};

struct TimedComparison {
  int32_t iterations = 0;
  int32_t fastest_iteration = 0;  // 1-based
  int64_t simulated_makespan_ns = 0;
  int64_t measured_makespan_ns = 0;  // the fastest iteration's
  int64_t measured_mean_makespan_ns = 0;
  int64_t simulated_stall_ns = 0;
  int64_t measured_stall_ns = 0;
  std::vector<LinkComparison> links;  // the links the plan uses, ascending
  // measured / simulated makespan; 0 when the simulated one is 0.
  double ratio() const {
    return simulated_makespan_ns > 0
               ? static_cast<double>(measured_makespan_ns) / simulated_makespan_ns
               : 0.0;
  }
};

// The figures of `timings` (parallel to plan.steps) for `plan` on `profile`.
TimelineFigures FiguresOf(const Plan& plan, const HardwareProfile& profile,
                          const std::vector<StepTiming>& timings);

// `simulated`: Simulate's step timings; `measured`: one timeline per iteration (non-empty).
TimedComparison CompareTimings(const Plan& plan, const HardwareProfile& profile,
                               const std::vector<StepTiming>& simulated,
                               const std::vector<std::vector<StepTiming>>& measured);

// The comparison as indented text lines for `hyperplan run --timed`, each number with its unit.
std::string FormatTimedComparison(const TimedComparison& comparison,
                                  const HardwareProfile& profile);

}  // namespace hyperplan::executor
