// Explicit waits: dependencies guaranteed by waits_for and stream order (see wait_check.h).
#include "planio/wait_check.h"

#include <algorithm>

#include "hyperplan/names.h"
#include "planio/profile_proto.h"

namespace hyperplan::planio {
namespace {

const char* KindName(StepKind kind) {
  switch (kind) {
    case StepKind::kCompute:
      return "compute";
    case StepKind::kPrefetch:
      return "prefetch";
    case StepKind::kStore:
      return "store";
    case StepKind::kDetach:
      return "detach";
  }
  return "?";
}

class WaitChecker {
 public:
  WaitChecker(const Graph& graph, const HardwareProfile& profile, const Plan& plan)
      : graph_(graph), profile_(profile), plan_(plan) {}

  std::string Run() {
    BuildClocks();
    residency_of_.resize(graph_.values.size());
    for (size_t r = 0; r < plan_.residency.size(); ++r) {
      if (plan_.residency[r].value != kNoValue) {
        residency_of_[plan_.residency[r].value].push_back(static_cast<int32_t>(r));
      }
    }
    copies_of_.resize(graph_.values.size());
    for (size_t c = 0; c < plan_.tier_copies.size(); ++c) {
      copies_of_[plan_.tier_copies[c].value].push_back(static_cast<int32_t>(c));
    }
    device_stores_of_.resize(graph_.values.size());
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const PlanStep& step = plan_.steps[i];
      if (step.kind == StepKind::kStore && step.src_tier == profile_.device_tier) {
        device_stores_of_[step.value].push_back(static_cast<int32_t>(i));
      }
    }
    int32_t last_compute_stream = -1;
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const auto index = static_cast<int32_t>(i);
      const PlanStep& step = plan_.steps[i];
      std::string problem;
      switch (step.kind) {
        case StepKind::kCompute:
          problem = CheckCompute(index);
          break;
        case StepKind::kPrefetch:
          if (step.dst_tier == profile_.device_tier && last_compute_stream >= 0 &&
              !HappensBefore(last_compute_stream, index)) {
            problem = "allocates its arena block without waiting for " +
                      Describe(last_compute_stream) +
                      ", the last compute-stream step before it, which may still use that memory";
          }
          if (problem.empty()) problem = CheckSource(index);
          break;
        case StepKind::kStore:
          problem = CheckSource(index);
          break;
        case StepKind::kDetach:
          problem = CheckDetach(index);
          break;
      }
      if (!problem.empty()) return Describe(index) + ": " + problem;
      if (step.kind == StepKind::kCompute || step.kind == StepKind::kDetach) {
        last_compute_stream = index;
      }
    }
    return "";
  }

 private:
  int32_t StreamOf(const PlanStep& step) const {
    if (step.kind == StepKind::kCompute || step.kind == StepKind::kDetach) return 0;
    return first_stream_[step.link] + step.channel;
  }

  void BuildClocks() {
    first_stream_ = FirstCopyStreams(profile_);
    streams_ = 1;
    for (const Link& link : profile_.links) streams_ += std::max<int32_t>(1, link.channels);
    const size_t count = plan_.steps.size();
    clock_.assign(count * static_cast<size_t>(streams_), -1);
    std::vector<int32_t> last_on_stream(static_cast<size_t>(streams_), -1);
    for (size_t i = 0; i < count; ++i) {
      int32_t* clock = &clock_[i * streams_];
      auto merge = [&](int32_t earlier) {
        const int32_t* other = &clock_[static_cast<size_t>(earlier) * streams_];
        for (int32_t s = 0; s < streams_; ++s) clock[s] = std::max(clock[s], other[s]);
        const int32_t stream = StreamOf(plan_.steps[earlier]);
        clock[stream] = std::max(clock[stream], earlier);
      };
      for (int32_t wait : plan_.steps[i].waits_for) merge(wait);
      const int32_t stream = StreamOf(plan_.steps[i]);
      if (last_on_stream[stream] >= 0) merge(last_on_stream[stream]);
      last_on_stream[stream] = static_cast<int32_t>(i);
    }
  }

  // Whether step `earlier` has ended whenever step `later` starts, whatever the timing: a
  // later step of its stream, or itself, is reachable through waits and stream order.
  bool HappensBefore(int32_t earlier, int32_t later) const {
    if (earlier >= later) return false;
    const int32_t stream = StreamOf(plan_.steps[earlier]);
    return clock_[static_cast<size_t>(later) * streams_ + stream] >= earlier;
  }

  std::string ValueName(ValueId value) const { return QuotedValueName(graph_, value); }

  std::string Describe(int32_t index) const {
    const PlanStep& step = plan_.steps[index];
    std::string text = "step " + std::to_string(index) + " (" + KindName(step.kind) + " ";
    if (step.kind == StepKind::kCompute) return text + "'" + graph_.nodes[step.node].name + "')";
    text += ValueName(step.value);
    if (step.kind != StepKind::kDetach) {
      text += " " + profile_.tiers[step.src_tier].name + "->" + profile_.tiers[step.dst_tier].name;
    }
    return text + ")";
  }

  std::string NotWaiting(int32_t needed, const std::string& consequence) const {
    return "does not wait for " + Describe(needed) +
           ", directly or through other waits: " + consequence;
  }

  std::string CheckCompute(int32_t index) const {
    const PlanStep& step = plan_.steps[index];
    for (ValueId input : graph_.nodes[step.node].inputs) {
      for (int32_t r : residency_of_[input]) {
        const ResidentInterval& interval = plan_.residency[r];
        if (interval.first_step > step.boundary || step.boundary > interval.last_step) continue;
        const int32_t opener = interval.opened_by;
        if (opener >= 0 && plan_.steps[opener].kind == StepKind::kPrefetch &&
            !HappensBefore(opener, index)) {
          return "reads " + ValueName(input) + " but " +
                 NotWaiting(opener, "a runtime may start it before the value arrives");
        }
      }
    }
    return "";
  }

  // The step that wrote the copy a transfer reads must have ended before it starts.
  std::string CheckSource(int32_t index) const {
    const PlanStep& step = plan_.steps[index];
    int32_t writer = -1;
    if (step.src_tier == profile_.device_tier) {
      // The device copy resident in the step before the boundary (or at step 0).
      const Step before = std::max(step.boundary - 1, 0);
      Step best_first = -1;
      for (int32_t r : residency_of_[step.value]) {
        const ResidentInterval& interval = plan_.residency[r];
        if (interval.first_step <= before && interval.first_step > best_first) {
          best_first = interval.first_step;
          writer = interval.opened_by;
        }
      }
    } else {
      for (int32_t c : copies_of_[step.value]) {
        const TierCopy& copy = plan_.tier_copies[c];
        if (copy.tier == step.src_tier && copy.opened_by < index && copy.opened_by > writer) {
          writer = copy.opened_by;
        }
      }
    }
    if (writer < 0 || HappensBefore(writer, index)) return "";
    return "copies " + ValueName(step.value) + " from " + profile_.tiers[step.src_tier].name +
           " but " + NotWaiting(writer, "it may read the copy before it is complete");
  }

  std::string CheckDetach(int32_t index) const {
    const PlanStep& step = plan_.steps[index];
    int32_t opener = -1;
    for (int32_t r : residency_of_[step.value]) {
      if (plan_.residency[r].closed_by == index) opener = plan_.residency[r].opened_by;
    }
    for (int32_t j : device_stores_of_[step.value]) {
      if (j > opener && j < index && !HappensBefore(j, index)) {
        return "drops the device copy of " + ValueName(step.value) + " but " +
               NotWaiting(j, "the copy may be dropped while it is still being stored");
      }
    }
    return "";
  }

  const Graph& graph_;
  const HardwareProfile& profile_;
  const Plan& plan_;
  std::vector<int32_t> first_stream_;
  int32_t streams_ = 1;
  std::vector<int32_t> clock_;  // steps x streams
  std::vector<std::vector<int32_t>> residency_of_;
  std::vector<std::vector<int32_t>> copies_of_;
  std::vector<std::vector<int32_t>> device_stores_of_;  // Stores reading the device copy
};

}  // namespace

std::string CheckExplicitWaits(const Graph& graph, const HardwareProfile& profile,
                               const Plan& plan) {
  return WaitChecker(graph, profile, plan).Run();
}

}  // namespace hyperplan::planio
