// Steps per stream (see streams.h).
#include "report/streams.h"

#include <algorithm>

#include "hyperplan/names.h"

namespace hyperplan::report {

std::string LinkName(const HardwareProfile& profile, int32_t link) {
  if (link < 0 || static_cast<size_t>(link) >= profile.links.size()) return "?";
  return TierName(profile, profile.links[link].from) + "\u2192" +
         TierName(profile, profile.links[link].to);
}

std::string HostLaneName(const HardwareProfile& profile) {
  const int32_t sockets = profile.host_compute.sockets;
  return "host (" + std::to_string(sockets) + (sockets == 1 ? " socket)" : " sockets)");
}

PlanStreams CollectStreams(const HardwareProfile& profile, const Plan& plan) {
  PlanStreams streams;
  // Steps by stream number, so the copy streams come out by link then channel.
  const StreamNumbering numbering(profile);
  std::vector<std::vector<int32_t>> steps_of(static_cast<size_t>(numbering.count()));
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    const auto index = static_cast<int32_t>(i);
    switch (step.kind) {
      case StepKind::kCompute:
        // A host step in a profile without a host unit is numbered on the compute stream
        // (StreamNumbering::Of), where the verifier rejects it; it is drawn there too.
        (numbering.Of(step) == StreamNumbering::kComputeStream ? streams.compute_steps
                                                               : streams.host_steps)
            .push_back(index);
        break;
      case StepKind::kDetach:
        streams.detach_steps.push_back(index);
        break;
      case StepKind::kPrefetch:
      case StepKind::kStore: {
        // A transfer naming no valid channel is the verifier's to report; it is left out here.
        if (step.link < 0 || static_cast<size_t>(step.link) >= profile.links.size()) break;
        if (step.channel < 0 || step.channel >= numbering.channel_count(step.link)) break;
        steps_of[numbering.Of(step)].push_back(index);
        break;
      }
    }
  }
  for (size_t l = 0; l < profile.links.size(); ++l) {
    const auto link = static_cast<int32_t>(l);
    for (int32_t c = 0; c < numbering.channel_count(link); ++c) {
      std::vector<int32_t>& steps = steps_of[numbering.Of(link, c)];
      if (steps.empty()) {
        ++streams.idle_copy_streams;
        continue;
      }
      CopyStream stream;
      stream.link = link;
      stream.channel = c;
      stream.name = LinkName(profile, stream.link) + " ch " + std::to_string(c);
      stream.steps = std::move(steps);
      streams.copy_streams.push_back(std::move(stream));
    }
  }
  return streams;
}

std::vector<TimeInterval> StepIntervals(const PlanEvaluation& evaluation,
                                        const std::vector<int32_t>& steps) {
  std::vector<TimeInterval> intervals;
  intervals.reserve(steps.size());
  for (int32_t step : steps) {
    if (static_cast<size_t>(step) >= evaluation.timeline.steps.size()) continue;
    const StepTiming& timing = evaluation.timeline.steps[step];
    intervals.push_back({timing.start_ns, timing.end_ns});
  }
  return intervals;
}

Stalls CollectStalls(const Plan& plan, const PlanEvaluation& evaluation,
                     const std::vector<int32_t>& compute_steps) {
  Stalls stalls;
  for (int32_t step : compute_steps) {
    const NodeId node = plan.steps[step].node;
    if (static_cast<size_t>(step) >= evaluation.timeline.steps.size() || node < 0 ||
        static_cast<size_t>(node) >= evaluation.timeline.stall_ns_per_node.size()) {
      continue;
    }
    const int64_t stall_ns = evaluation.timeline.stall_ns_per_node[node];
    if (stall_ns <= 0) continue;
    const int64_t start_ns = evaluation.timeline.steps[step].start_ns;
    stalls.steps.push_back(step);
    stalls.intervals.push_back({start_ns - stall_ns, start_ns});
  }
  return stalls;
}

}  // namespace hyperplan::report
