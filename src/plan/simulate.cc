// Discrete-event replay of a plan (see simulate.h).
#include "hyperplan/plan/simulate.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "hyperplan/cost.h"
#include "hyperplan/error.h"

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

}  // namespace

StepClock::StepClock(const HardwareProfile& profile, const std::vector<int64_t>& node_time_ns)
    : profile_(profile), node_time_ns_(node_time_ns), channel_free_ns_(profile.links.size()) {
  for (size_t l = 0; l < profile.links.size(); ++l) {
    channel_free_ns_[l].assign(static_cast<size_t>(std::max(1, profile.links[l].channels)), 0);
  }
}

const StepTiming& StepClock::Add(const PlanStep& step) {
  int64_t ready_ns = 0;
  for (int32_t wait : step.waits_for) ready_ns = std::max(ready_ns, timings_[wait].end_ns);
  StepTiming timing;
  if (step.kind == StepKind::kCompute || step.kind == StepKind::kDetach) {
    timing.start_ns = std::max(ready_ns, stream_free_ns_);
    timing.end_ns =
        timing.start_ns + (step.kind == StepKind::kCompute ? node_time_ns_[step.node] : 0);
    stream_free_ns_ = timing.end_ns;
  } else {
    int64_t& channel_free = channel_free_ns_[step.link][step.channel];
    timing.start_ns = std::max(ready_ns, channel_free);
    timing.end_ns = timing.start_ns + ChannelTransferTimeNs(profile_.links[step.link], step.bytes);
    channel_free = timing.end_ns;
  }
  timings_.push_back(timing);
  return timings_.back();
}

SimulationResult Simulate(const Graph& graph, const HardwareProfile& profile, const Plan& plan) {
  SimulationResult result;
  const size_t step_total = plan.steps.size();
  result.stall_ns_per_node.assign(graph.nodes.size(), 0);
  result.bytes_moved_per_link.assign(profile.links.size(), 0);
  StepClock clock(profile, plan.node_time_ns);
  int64_t last_compute_end_ns = 0;
  for (size_t i = 0; i < step_total; ++i) {
    const PlanStep& step = plan.steps[i];
    for (int32_t wait : step.waits_for) {
      if (wait < 0 || static_cast<size_t>(wait) >= i) {
        throw Error(ErrorKind::kInternal, "plan step " + std::to_string(i) + " waits for step " +
                                              std::to_string(wait) + ", which is not before it");
      }
    }
    const bool transfer = step.kind != StepKind::kCompute && step.kind != StepKind::kDetach;
    if (transfer && (step.link < 0 || static_cast<size_t>(step.link) >= profile.links.size() ||
                     step.channel < 0 || step.channel >= clock.channel_count(step.link))) {
      throw Error(ErrorKind::kInternal,
                  "plan step " + std::to_string(i) + " names no valid link channel");
    }
    const StepTiming& timing = clock.Add(step);
    if (step.kind == StepKind::kCompute) {
      result.stall_ns_per_node[step.node] = timing.start_ns - last_compute_end_ns;
      result.stall_ns += timing.start_ns - last_compute_end_ns;
      result.compute_ns += plan.node_time_ns[step.node];
      last_compute_end_ns = timing.end_ns;
    }
    if (transfer) result.bytes_moved_per_link[step.link] += step.bytes;
    result.makespan_ns = std::max(result.makespan_ns, timing.end_ns);
  }
  result.steps = clock.TakeTimings();
  result.baseline_makespan_ns = result.compute_ns;

  // Memory per tier.
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
  result.bytes_per_tier.resize(tier_count);
  result.peak_bytes_per_tier.assign(tier_count, 0);
  for (size_t tier = 0; tier < tier_count; ++tier) {
    auto& tier_events = events[tier];
    std::sort(tier_events.begin(), tier_events.end(),
              [](const MemoryEvent& a, const MemoryEvent& b) {
                return std::tie(a.time_ns, a.phase, a.delta_bytes) <
                       std::tie(b.time_ns, b.phase, b.delta_bytes);
              });
    // Per instant: the level after the allocations (the instant's maximum) and, when a
    // zero-length residency ends there, the level after it as a second point.
    auto& curve = result.bytes_per_tier[tier];
    curve.push_back({0, 0});
    auto push = [&](int64_t time_ns, int64_t bytes) {
      if (curve.back().bytes == bytes) return;
      if (curve.back().time_ns == time_ns && curve.size() == 1) {
        curve.back().bytes = bytes;
      } else {
        curve.push_back({time_ns, bytes});
      }
    };
    int64_t bytes = 0;
    size_t e = 0;
    while (e < tier_events.size()) {
      const int64_t time_ns = tier_events[e].time_ns;
      for (;
           e < tier_events.size() && tier_events[e].time_ns == time_ns && tier_events[e].phase < 2;
           ++e) {
        bytes += tier_events[e].delta_bytes;
      }
      result.peak_bytes_per_tier[tier] = std::max(result.peak_bytes_per_tier[tier], bytes);
      push(time_ns, bytes);
      for (; e < tier_events.size() && tier_events[e].time_ns == time_ns; ++e) {
        bytes += tier_events[e].delta_bytes;
      }
      push(time_ns, bytes);
    }
  }
  return result;
}

std::vector<int64_t> ComputeStepStarts(const Plan& plan) {
  std::vector<int64_t> start_ns(plan.order.size() + 1, 0);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    if (step.kind != StepKind::kCompute) continue;
    start_ns[step.boundary] = plan.timeline.steps[i].start_ns;
    start_ns[step.boundary + 1] =
        std::max(start_ns[step.boundary + 1], plan.timeline.steps[i].end_ns);
  }
  return start_ns;
}

}  // namespace hyperplan
