// Discrete-event replay of a plan (see simulate.h).
#include "hyperplan/plan/simulate.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "hyperplan/cost.h"
#include "hyperplan/error.h"
#include "hyperplan/plan/whole_link.h"

namespace hyperplan {
namespace {

// One change of bytes on a tier. Phase orders events at one instant: frees of residencies
// that began earlier, then allocations, then frees of zero-length residencies (which thus
// count at their instant).
struct MemoryEvent {
  int64_t time_ns = 0;
  int phase = 0;
  int64_t delta_bytes = 0;
};

void AddResidency(std::vector<MemoryEvent>& events, int64_t alloc_ns, int64_t free_ns,
                  int64_t bytes) {
  if (bytes <= 0) return;
  events.push_back({alloc_ns, 1, bytes});
  events.push_back({free_ns, free_ns > alloc_ns ? 0 : 2, -bytes});
}

// A step that waits for a later step, or a transfer on no valid link channel: a malformed
// plan, which the clock cannot time.
void CheckTimeable(const HardwareProfile& profile, const StepClock& clock, const PlanStep& step,
                   size_t index) {
  for (int32_t wait : step.waits_for) {
    if (wait < 0 || static_cast<size_t>(wait) >= index) {
      throw Error(ErrorKind::kInternal, "plan step " + std::to_string(index) + " waits for step " +
                                            std::to_string(wait) + ", which is not before it");
    }
  }
  const bool transfer = step.kind != StepKind::kCompute && step.kind != StepKind::kDetach;
  if (transfer && (step.link < 0 || static_cast<size_t>(step.link) >= profile.links.size() ||
                   step.channel < 0 || step.channel >= clock.channel_count(step.link))) {
    throw Error(ErrorKind::kInternal,
                "plan step " + std::to_string(index) + " names no valid link channel");
  }
}

// Each step's start and end in sequence order, with the stalls, compute total, bytes per link
// and makespan they add up to. A compute step's stall is its wait after the compute steps
// before it in sequence, of either unit, have ended: a host step waiting for the device step
// whose output it reads is not stalled, one waiting for a transfer is; a step that starts
// while the other unit still computes stalls not at all.
void TimeSteps(const HardwareProfile& profile, const Plan& plan, SimulationResult& result) {
  StepClock clock(profile, plan.node_time_ns);
  int64_t last_compute_end_ns = 0;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    CheckTimeable(profile, clock, step, i);
    const StepTiming& timing = clock.Add(step);
    if (step.kind == StepKind::kCompute) {
      const int64_t stall_ns = std::max<int64_t>(0, timing.start_ns - last_compute_end_ns);
      result.stall_ns_per_node[step.node] = stall_ns;
      result.stall_ns += stall_ns;
      result.compute_ns += plan.node_time_ns[step.node];
      if (step.unit == ComputeUnit::kHost) result.host_compute_ns += plan.node_time_ns[step.node];
      result.baseline_makespan_ns +=
          step.unit == ComputeUnit::kHost ? step.device_time_ns : plan.node_time_ns[step.node];
      last_compute_end_ns = std::max(last_compute_end_ns, timing.end_ns);
    } else if (step.kind != StepKind::kDetach) {
      result.bytes_moved_per_link[step.link] += step.bytes;
    }
    result.makespan_ns = std::max(result.makespan_ns, timing.end_ns);
  }
  result.steps = clock.TakeTimings();
}

// Per tier: an allocation and a free for every residency (the device) and tier copy on it.
std::vector<std::vector<MemoryEvent>> MemoryEvents(const HardwareProfile& profile, const Plan& plan,
                                                   const SimulationResult& result) {
  const size_t tier_count = profile.tiers.size();
  std::vector<std::vector<MemoryEvent>> events(tier_count);
  auto open_ns = [&](int32_t step) { return step < 0 ? 0 : result.steps[step].start_ns; };
  auto close_ns = [&](int32_t step) {
    return step < 0 ? result.makespan_ns : result.steps[step].end_ns;
  };
  if (profile.device_tier >= 0 && static_cast<size_t>(profile.device_tier) < tier_count) {
    for (const ResidentInterval& interval : plan.residency) {
      AddResidency(events[profile.device_tier], open_ns(interval.opened_by),
                   close_ns(interval.closed_by), interval.bytes);
    }
  }
  for (const TierCopy& copy : plan.tier_copies) {
    if (copy.tier < 0 || static_cast<size_t>(copy.tier) >= tier_count) continue;
    AddResidency(events[copy.tier], open_ns(copy.opened_by), close_ns(copy.closed_by), copy.bytes);
  }
  return events;
}

// One tier's bytes over time from its events; returns its peak. Per instant: the level after
// the allocations (the instant's maximum) and, when a zero-length residency ends there, the
// level after it as a second point.
int64_t TierCurve(std::vector<MemoryEvent>& tier_events, std::vector<TierUsagePoint>& curve) {
  std::sort(tier_events.begin(), tier_events.end(), [](const MemoryEvent& a, const MemoryEvent& b) {
    return std::tie(a.time_ns, a.phase, a.delta_bytes) <
           std::tie(b.time_ns, b.phase, b.delta_bytes);
  });
  curve.push_back({0, 0});
  auto push = [&](int64_t time_ns, int64_t bytes) {
    if (curve.back().bytes == bytes) return;
    if (curve.back().time_ns == time_ns && curve.size() == 1) {
      curve.back().bytes = bytes;
    } else {
      curve.push_back({time_ns, bytes});
    }
  };
  int64_t peak_bytes = 0;
  int64_t bytes = 0;
  size_t e = 0;
  while (e < tier_events.size()) {
    const int64_t time_ns = tier_events[e].time_ns;
    for (; e < tier_events.size() && tier_events[e].time_ns == time_ns && tier_events[e].phase < 2;
         ++e) {
      bytes += tier_events[e].delta_bytes;
    }
    peak_bytes = std::max(peak_bytes, bytes);
    push(time_ns, bytes);
    for (; e < tier_events.size() && tier_events[e].time_ns == time_ns; ++e) {
      bytes += tier_events[e].delta_bytes;
    }
    push(time_ns, bytes);
  }
  return peak_bytes;
}

}  // namespace

StepClock::StepClock(const HardwareProfile& profile, const std::vector<int64_t>& node_time_ns)
    : profile_(profile),
      node_time_ns_(node_time_ns),
      streams_(profile),
      stream_free_ns_(static_cast<size_t>(streams_.count()), 0) {}

const StepTiming& StepClock::Add(const PlanStep& step) {
  int64_t ready_ns = 0;
  for (int32_t wait : step.waits_for) ready_ns = std::max(ready_ns, timings_[wait].end_ns);
  return AddReady(step, ready_ns);
}

const StepTiming& StepClock::AddReady(const PlanStep& step, int64_t ready_ns) {
  if (HoldsWholeLink(profile_, step)) return AddWholeLink(step, ready_ns);
  int64_t& stream_free_ns = stream_free_ns_[streams_.Of(step)];
  StepTiming timing;
  timing.start_ns = std::max(ready_ns, stream_free_ns);
  if (step.kind == StepKind::kCompute || step.kind == StepKind::kDetach) {
    timing.end_ns =
        timing.start_ns + (step.kind == StepKind::kCompute ? node_time_ns_[step.node] : 0);
  } else {
    timing.end_ns = timing.start_ns + ChannelTransferTimeNs(profile_.links[step.link], step.bytes);
  }
  stream_free_ns = timing.end_ns;
  timings_.push_back(timing);
  return timings_.back();
}

// A stream's clock is the end of the last step timed on it (a whole-link step: on each of its
// link's channels), as AddReady and AddWholeLink set it.
void StepClock::Resume(std::span<const PlanStep> steps, std::span<const StepTiming> timings) {
  if (!timings_.empty() || steps.size() != timings.size()) {
    throw Error(ErrorKind::kInternal, "StepClock::Resume on a clock that has timed steps");
  }
  timings_.assign(timings.begin(), timings.end());
  for (size_t i = 0; i < steps.size(); ++i) {
    const PlanStep& step = steps[i];
    if (HoldsWholeLink(profile_, step)) {
      const int32_t first = streams_.Of(step.link, 0);
      const int32_t count = streams_.channel_count(step.link);
      for (int32_t c = 0; c < count; ++c) stream_free_ns_[first + c] = timings[i].end_ns;
    } else {
      stream_free_ns_[streams_.Of(step)] = timings[i].end_ns;
    }
  }
}

// A routed transfer that holds its whole link (whole_link.h): it starts once every channel of
// the link is free, moves at the link's whole bandwidth, and keeps every channel until it ends.
const StepTiming& StepClock::AddWholeLink(const PlanStep& step, int64_t ready_ns) {
  const int32_t first = streams_.Of(step.link, 0);
  const int32_t count = streams_.channel_count(step.link);
  StepTiming timing;
  timing.start_ns = ready_ns;
  for (int32_t c = 0; c < count; ++c) {
    timing.start_ns = std::max(timing.start_ns, stream_free_ns_[first + c]);
  }
  timing.end_ns = timing.start_ns + TransferTimeNs(profile_.links[step.link], step.bytes);
  for (int32_t c = 0; c < count; ++c) stream_free_ns_[first + c] = timing.end_ns;
  timings_.push_back(timing);
  return timings_.back();
}

SimulationResult Simulate(const Graph& graph, const HardwareProfile& profile, const Plan& plan) {
  SimulationResult result;
  result.stall_ns_per_node.assign(graph.nodes.size(), 0);
  result.bytes_moved_per_link.assign(profile.links.size(), 0);
  TimeSteps(profile, plan, result);
  std::vector<std::vector<MemoryEvent>> events = MemoryEvents(profile, plan, result);
  result.bytes_per_tier.resize(events.size());
  result.peak_bytes_per_tier.assign(events.size(), 0);
  for (size_t tier = 0; tier < events.size(); ++tier) {
    result.peak_bytes_per_tier[tier] = TierCurve(events[tier], result.bytes_per_tier[tier]);
  }
  return result;
}

std::vector<int64_t> ComputeStepStarts(const Plan& plan, const SimulationResult& timeline) {
  std::vector<int64_t> start_ns(plan.order.size() + 1, 0);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    if (step.kind != StepKind::kCompute) continue;
    start_ns[step.boundary] = timeline.steps[i].start_ns;
    start_ns[step.boundary + 1] = std::max(start_ns[step.boundary + 1], timeline.steps[i].end_ns);
  }
  for (size_t k = 1; k < start_ns.size(); ++k) start_ns[k] = std::max(start_ns[k], start_ns[k - 1]);
  return start_ns;
}

}  // namespace hyperplan
