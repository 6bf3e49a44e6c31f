// The verifier's explicit-waits check: dependencies guaranteed by waits_for and stream order,
// through HappensBefore (compute_bounds.h); see CheckExplicitWaits in verify.h.
#include <algorithm>
#include <vector>

#include "hyperplan/plan/verify.h"
#include "plan/chunks.h"
#include "plan/compute_bounds.h"
#include "plan/step_names.h"

namespace hyperplan {
namespace {

class WaitChecker {
 public:
  WaitChecker(const Graph& graph, const HardwareProfile& profile, const Plan& plan)
      : graph_(graph),
        profile_(profile),
        plan_(plan),
        happens_before_(plan, profile),
        last_chunk_(LastChunks(plan)) {}

  std::string Run() {
    IndexByValue();
    int32_t last_compute_stream = -1;
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const auto index = static_cast<int32_t>(i);
      const std::string problem = CheckStep(index, last_compute_stream);
      if (!problem.empty()) return Describe(index) + ": " + problem;
      if (happens_before_.stream_of(index) == StreamNumbering::kComputeStream) {
        last_compute_stream = index;
      }
    }
    return "";
  }

 private:
  void IndexByValue() {
    residency_of_.resize(graph_.values.size());
    for (size_t r = 0; r < plan_.residency.size(); ++r) {
      if (plan_.residency[r].value != kNoValue) {
        residency_of_[plan_.residency[r].value].push_back(static_cast<int32_t>(r));
      }
    }
    copies_of_.resize(graph_.values.size());
    copies_closed_by_.resize(plan_.steps.size());
    for (size_t c = 0; c < plan_.tier_copies.size(); ++c) {
      const TierCopy& copy = plan_.tier_copies[c];
      copies_of_[copy.value].push_back(static_cast<int32_t>(c));
      if (copy.closed_by >= 0) copies_closed_by_[copy.closed_by].push_back(static_cast<int32_t>(c));
    }
    device_stores_of_.resize(graph_.values.size());
    off_device_readers_of_.resize(graph_.values.size());
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const PlanStep& step = plan_.steps[i];
      const auto index = static_cast<int32_t>(i);
      if (step.kind == StepKind::kStore && step.src_tier == profile_.device_tier) {
        device_stores_of_[step.value].push_back(index);
      }
      if (IsHostCompute(step)) {
        for (ValueId input : graph_.nodes[step.node].inputs) {
          off_device_readers_of_[input].push_back(index);
        }
      } else if (step.kind != StepKind::kCompute && step.kind != StepKind::kDetach &&
                 step.src_tier != profile_.device_tier) {
        off_device_readers_of_[step.value].push_back(index);
      }
    }
  }

  static bool IsHostCompute(const PlanStep& step) {
    return step.kind == StepKind::kCompute && step.unit == ComputeUnit::kHost;
  }

  std::string CheckStep(int32_t index, int32_t last_compute_stream) const {
    const PlanStep& step = plan_.steps[index];
    switch (step.kind) {
      case StepKind::kCompute:
        if (step.unit == ComputeUnit::kHost) return CheckHostCompute(index);
        return CheckCompute(index);
      case StepKind::kPrefetch:
        // A later chunk writes into the block its first chunk allocated.
        if (step.dst_tier == profile_.device_tier && step.chunk_of < 0 &&
            last_compute_stream >= 0 && !happens_before_(last_compute_stream, index)) {
          return "allocates its arena block without waiting for " + Describe(last_compute_stream) +
                 ", the last compute-stream step before it, which may still use that memory";
        }
        return CheckSource(index);
      case StepKind::kStore:
        return CheckSource(index);
      case StepKind::kDetach:
        return CheckDetach(index);
    }
    return "";
  }

  std::string ValueName(ValueId value) const { return QuotedValueName(graph_, value); }
  std::string Describe(int32_t index) const { return DescribeStep(graph_, profile_, plan_, index); }

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
        if (opener < 0 || plan_.steps[opener].kind != StepKind::kPrefetch) continue;
        const int32_t complete = last_chunk_[opener];  // a chunked Prefetch's last chunk
        if (!happens_before_(complete, index)) {
          return "reads " + ValueName(input) + " but " +
                 NotWaiting(complete, "a runtime may start it before the value arrives");
        }
      }
    }
    return "";
  }

  // A host step: the Store or host step that wrote each input's copy on the host tier ended
  // before it starts, and every reader of a copy it frees ended before it does.
  std::string CheckHostCompute(int32_t index) const {
    const TierId host_tier = profile_.host_compute.memory_tier;
    for (ValueId input : graph_.nodes[plan_.steps[index].node].inputs) {
      const int32_t writer = CopyWriter(input, host_tier, index);
      if (writer >= 0 && !happens_before_(writer, index)) {
        return "reads " + ValueName(input) + " on " + profile_.tiers[host_tier].name + " but " +
               NotWaiting(writer, "it may read the copy before it is complete");
      }
    }
    for (int32_t c : copies_closed_by_[index]) {
      const TierCopy& copy = plan_.tier_copies[c];
      for (int32_t reader : off_device_readers_of_[copy.value]) {
        if (reader <= copy.opened_by || reader >= index || !Reads(reader, copy)) continue;
        if (!happens_before_(reader, index)) {
          return "frees the copy of " + ValueName(copy.value) + " on " +
                 profile_.tiers[copy.tier].name + " but " +
                 NotWaiting(reader, "it may free the copy while that step still reads it");
        }
      }
    }
    return "";
  }

  // Whether off-device reader `reader` (a host step or a transfer) reads from `copy`'s tier.
  bool Reads(int32_t reader, const TierCopy& copy) const {
    const PlanStep& step = plan_.steps[reader];
    if (IsHostCompute(step)) return copy.tier == profile_.host_compute.memory_tier;
    return step.src_tier == copy.tier;
  }

  // The step that wrote the copy a transfer reads must have ended before it starts.
  std::string CheckSource(int32_t index) const {
    const PlanStep& step = plan_.steps[index];
    const int32_t writer = SourceWriter(step, index);
    if (writer < 0 || happens_before_(writer, index)) return "";
    return "copies " + ValueName(step.value) + " from " + profile_.tiers[step.src_tier].name +
           " but " + NotWaiting(writer, "it may read the copy before it is complete");
  }

  // The step that wrote the copy `step` reads: the opener of the device copy resident in the
  // step before its boundary (or at step 0), or the last transfer before it into its source
  // tier; -1 when none (a home copy, an input).
  int32_t SourceWriter(const PlanStep& step, int32_t index) const {
    int32_t writer = -1;
    if (step.src_tier == profile_.device_tier) {
      const Step before = std::max(step.boundary - 1, 0);
      Step best_first = -1;
      for (int32_t r : residency_of_[step.value]) {
        const ResidentInterval& interval = plan_.residency[r];
        if (interval.first_step <= before && interval.first_step > best_first) {
          best_first = interval.first_step;
          writer = interval.opened_by;
        }
      }
      return writer;
    }
    return CopyWriter(step.value, step.src_tier, index);
  }

  // The last step before `index` that opened a copy of `value` on off-device `tier` (a
  // transfer, or a host step writing its output); -1 when none (a home copy, an input).
  int32_t CopyWriter(ValueId value, TierId tier, int32_t index) const {
    int32_t writer = -1;
    for (int32_t c : copies_of_[value]) {
      const TierCopy& copy = plan_.tier_copies[c];
      if (copy.tier == tier && copy.opened_by < index && copy.opened_by > writer) {
        writer = copy.opened_by;
      }
    }
    return writer;
  }

  std::string CheckDetach(int32_t index) const {
    const PlanStep& step = plan_.steps[index];
    int32_t opener = -1;
    for (int32_t r : residency_of_[step.value]) {
      if (plan_.residency[r].closed_by == index) opener = plan_.residency[r].opened_by;
    }
    for (int32_t j : device_stores_of_[step.value]) {
      if (j > opener && j < index && !happens_before_(j, index)) {
        return "drops the device copy of " + ValueName(step.value) + " but " +
               NotWaiting(j, "the copy may be dropped while it is still being stored");
      }
    }
    return "";
  }

  const Graph& graph_;
  const HardwareProfile& profile_;
  const Plan& plan_;
  const planner::HappensBefore happens_before_;
  const std::vector<int32_t> last_chunk_;  // by step: the step completing its transfer
  std::vector<std::vector<int32_t>> residency_of_;
  std::vector<std::vector<int32_t>> copies_of_;
  std::vector<std::vector<int32_t>> copies_closed_by_;  // by step: the tier copies it frees
  std::vector<std::vector<int32_t>> device_stores_of_;  // Stores reading the device copy
  // By value: the host steps and transfers reading an off-device copy of it.
  std::vector<std::vector<int32_t>> off_device_readers_of_;
};

}  // namespace

std::string CheckExplicitWaits(const Graph& graph, const HardwareProfile& profile,
                               const Plan& plan) {
  return WaitChecker(graph, profile, plan).Run();
}

}  // namespace hyperplan
