// Chunked Prefetches: which step completes a transfer, and the chunk rules (see chunks.h).
#include "plan/chunks.h"

#include <fmt/format.h>

#include <unordered_map>

namespace hyperplan {
namespace {

class ChunkChecker {
 public:
  ChunkChecker(const Graph& graph, const HardwareProfile& profile, const Plan& plan)
      : graph_(graph), profile_(profile), plan_(plan), moved_bytes_(plan.steps.size(), 0) {
    for (const ResidentInterval& interval : plan.residency) {
      if (interval.value != kNoValue && interval.opened_by >= 0) {
        last_step_of_opener_.emplace(interval.opened_by, interval.last_step);
      }
    }
  }

  std::optional<ChunkFailure> Run() {
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const auto index = static_cast<int32_t>(i);
      std::string problem = CheckStep(index);
      if (!problem.empty()) return ChunkFailure{index, std::move(problem)};
    }
    return CheckEveryByteMoved();
  }

 private:
  std::string CheckStep(int32_t index) {
    const PlanStep& step = plan_.steps[index];
    if (!IsChunk(graph_, step)) {
      return step.chunk_offset_bytes == 0 ? "" : "a whole transfer moves its value from byte 0";
    }
    if (step.kind != StepKind::kPrefetch || step.dst_tier != profile_.device_tier) {
      return "only a Prefetch to the device is moved in chunks";
    }
    if (step.bytes <= 0) return "a chunk moves no bytes";
    if (step.chunk_of < 0) {
      if (step.chunk_offset_bytes != 0) return "the first chunk must start at byte 0";
      moved_bytes_[index] = step.bytes;
      return "";
    }
    return CheckLaterChunk(index);
  }

  // A later chunk continues its first chunk's transfer where the chunk before it ended, before
  // the residency that first chunk opened is over.
  std::string CheckLaterChunk(int32_t index) {
    const PlanStep& step = plan_.steps[index];
    const int32_t first = step.chunk_of;
    if (first >= index) return fmt::format("names step {}, not an earlier first chunk", first);
    const PlanStep& head = plan_.steps[first];
    if (head.chunk_of >= 0 || !IsChunk(graph_, head) || head.value != step.value ||
        head.link != step.link || head.channel != step.channel) {
      return fmt::format("is not a chunk of step {}'s value on its link channel", first);
    }
    if (step.chunk_offset_bytes != moved_bytes_[first]) {
      return fmt::format(
          "starts at byte {} where the chunk before it ended at byte {} (chunks go in order, "
          "without gap or overlap)",
          step.chunk_offset_bytes, moved_bytes_[first]);
    }
    moved_bytes_[first] += step.bytes;
    if (moved_bytes_[first] > graph_.values[step.value].bytes) {
      return fmt::format("ends at byte {} of a {}-byte value", moved_bytes_[first],
                         graph_.values[step.value].bytes);
    }
    const auto residency = last_step_of_opener_.find(first);
    if (residency != last_step_of_opener_.end() && step.boundary > residency->second) {
      return fmt::format("is issued before step {}, after the residency step {} opened ends",
                         step.boundary, first);
    }
    return "";
  }

  std::optional<ChunkFailure> CheckEveryByteMoved() const {
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const PlanStep& step = plan_.steps[i];
      if (step.chunk_of >= 0 || !IsChunk(graph_, step)) continue;
      const int64_t value_bytes = graph_.values[step.value].bytes;
      if (moved_bytes_[i] != value_bytes) {
        return ChunkFailure{static_cast<int32_t>(i),
                            fmt::format("its chunks move {} of the value's {} bytes",
                                        moved_bytes_[i], value_bytes)};
      }
    }
    return std::nullopt;
  }

  const Graph& graph_;
  const HardwareProfile& profile_;
  const Plan& plan_;
  std::vector<int64_t> moved_bytes_;  // by first chunk: bytes its chunks so far cover
  std::unordered_map<int32_t, Step> last_step_of_opener_;
};

}  // namespace

bool IsChunk(const Graph& graph, const PlanStep& step) {
  if (step.chunk_of >= 0) return true;
  // A routed Prefetch moves fewer bytes too: a routing's experts, not a byte range.
  if (step.routed_by != kNoNode) return false;
  if (step.kind != StepKind::kPrefetch || step.value < 0 ||
      static_cast<size_t>(step.value) >= graph.values.size()) {
    return false;
  }
  return step.bytes < graph.values[step.value].bytes;
}

std::vector<int32_t> LastChunks(const Plan& plan) {
  const auto count = static_cast<int32_t>(plan.steps.size());
  std::vector<int32_t> last(plan.steps.size());
  for (int32_t i = 0; i < count; ++i) last[i] = i;
  // Chunks come in sequence order, so the last one naming a first chunk is its transfer's end.
  for (int32_t i = 0; i < count; ++i) {
    const int32_t first = plan.steps[i].chunk_of;
    if (first >= 0 && first < i) last[first] = i;
  }
  for (int32_t i = 0; i < count; ++i) {
    const int32_t first = plan.steps[i].chunk_of;
    if (first >= 0 && first < i) last[i] = last[first];
  }
  return last;
}

std::optional<ChunkFailure> CheckChunks(const Graph& graph, const HardwareProfile& profile,
                                        const Plan& plan) {
  return ChunkChecker(graph, profile, plan).Run();
}

}  // namespace hyperplan
