// Timed comparison (see timed_report.h).
#include "executor/timed_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "hyperplan/error.h"
#include "hyperplan/units.h"

namespace hyperplan::executor {
namespace {

bool IsTransfer(const PlanStep& step) {
  return step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore;
}

// The length of the union of [start, end) intervals.
int64_t UnionNs(std::vector<std::pair<int64_t, int64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  int64_t total_ns = 0;
  int64_t covered_to = INT64_MIN;
  for (const auto& [start, end] : intervals) {
    const int64_t from = std::max(start, covered_to);
    if (end > from) total_ns += end - from;
    covered_to = std::max(covered_to, end);
  }
  return total_ns;
}

}  // namespace

TimelineFigures FiguresOf(const Plan& plan, const HardwareProfile& profile,
                          const std::vector<StepTiming>& timings) {
  if (timings.size() != plan.steps.size()) {
    throw Error(ErrorKind::kInternal, "FiguresOf: one timing per plan step");
  }
  TimelineFigures figures;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> busy(profile.links.size());
  int64_t lane_free_ns[2] = {0, 0};  // the compute stream, the host lane
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const PlanStep& step = plan.steps[s];
    const StepTiming& timing = timings[s];
    figures.makespan_ns = std::max(figures.makespan_ns, timing.end_ns);
    if (IsTransfer(step)) {
      busy[step.link].emplace_back(timing.start_ns, timing.end_ns);
      continue;
    }
    // Device compute and Detach share the compute stream, host compute steps the host lane,
    // each in sequence order: a compute step stalls after its own lane's previous step.
    int64_t& free_ns = lane_free_ns[step.unit == ComputeUnit::kHost ? 1 : 0];
    if (step.kind == StepKind::kCompute) {
      figures.stall_ns += std::max<int64_t>(0, timing.start_ns - free_ns);
    }
    free_ns = std::max(free_ns, timing.end_ns);
  }
  for (auto& intervals : busy) figures.link_busy_ns.push_back(UnionNs(std::move(intervals)));
  return figures;
}

TimedComparison CompareTimings(const Plan& plan, const HardwareProfile& profile,
                               const std::vector<StepTiming>& simulated,
                               const std::vector<std::vector<StepTiming>>& measured) {
  if (measured.empty()) throw Error(ErrorKind::kInternal, "CompareTimings: no iteration");
  TimedComparison comparison;
  comparison.iterations = static_cast<int32_t>(measured.size());
  const TimelineFigures planned = FiguresOf(plan, profile, simulated);
  std::vector<TimelineFigures> runs;
  int64_t total_ns = 0;
  for (size_t i = 0; i < measured.size(); ++i) {
    runs.push_back(FiguresOf(plan, profile, measured[i]));
    total_ns += runs.back().makespan_ns;
    if (runs.back().makespan_ns < runs[comparison.fastest_iteration].makespan_ns) {
      comparison.fastest_iteration = static_cast<int32_t>(i);
    }
  }
  const TimelineFigures& fastest = runs[comparison.fastest_iteration];
  comparison.fastest_iteration += 1;
  comparison.simulated_makespan_ns = planned.makespan_ns;
  comparison.measured_makespan_ns = fastest.makespan_ns;
  comparison.measured_mean_makespan_ns = total_ns / static_cast<int64_t>(measured.size());
  comparison.simulated_stall_ns = planned.stall_ns;
  comparison.measured_stall_ns = fastest.stall_ns;
  std::vector<LinkComparison> links(profile.links.size());
  for (const PlanStep& step : plan.steps) {
    if (!IsTransfer(step)) continue;
    links[step.link].link = step.link;
    links[step.link].transfers += 1;
    links[step.link].bytes += step.bytes;
  }
  for (LinkComparison& link : links) {
    if (link.link < 0) continue;
    link.simulated_busy_ns = planned.link_busy_ns[link.link];
    link.measured_busy_ns = fastest.link_busy_ns[link.link];
    comparison.links.push_back(link);
  }
  return comparison;
}

std::string FormatTimedComparison(const TimedComparison& comparison,
                                  const HardwareProfile& profile) {
  std::string out = fmt::format(
      "  measured makespan {} (fastest of {} iterations, #{}; mean {}), simulated {}, "
      "measured/simulated {:.3f}\n",
      FormatDuration(comparison.measured_makespan_ns), comparison.iterations,
      comparison.fastest_iteration, FormatDuration(comparison.measured_mean_makespan_ns),
      FormatDuration(comparison.simulated_makespan_ns), comparison.ratio());
  out += fmt::format("  stall before compute: measured {}, simulated {}\n",
                     FormatDuration(comparison.measured_stall_ns),
                     FormatDuration(comparison.simulated_stall_ns));
  for (const LinkComparison& link : comparison.links) {
    const Link& planned = profile.links[link.link];
    out +=
        fmt::format("  link {}->{}: {} transfers moving {}, busy measured {}, simulated {}\n",
                    profile.tiers[planned.from].name, profile.tiers[planned.to].name,
                    link.transfers, FormatBytes(link.bytes), FormatDuration(link.measured_busy_ns),
                    FormatDuration(link.simulated_busy_ns));
  }
  return out;
}

}  // namespace hyperplan::executor
