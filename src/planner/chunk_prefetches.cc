// Chunks for the Prefetches that hold a later transfer back on its channel (see
// chunk_prefetches.h).
#include "planner/chunk_prefetches.h"

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "hyperplan/cost.h"
#include "hyperplan/error.h"
#include "hyperplan/plan/simulate.h"

namespace hyperplan::planner {
namespace {

bool IsTransfer(const PlanStep& step) {
  return step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore;
}

struct Replay {
  std::vector<StepTiming> timings;
  std::vector<int32_t> previous_on_stream;  // by step: the step before it on its stream; -1
  int64_t makespan_ns = 0;
};

Replay ReplaySteps(const HardwareProfile& profile, const std::vector<int64_t>& node_time_ns,
                   const std::vector<PlanStep>& steps) {
  StepClock clock(profile, node_time_ns);
  const StreamNumbering streams(profile);
  std::vector<int32_t> last_on_stream(static_cast<size_t>(streams.count()), -1);
  Replay replay;
  replay.previous_on_stream.reserve(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    replay.makespan_ns = std::max(replay.makespan_ns, clock.Add(steps[i]).end_ns);
    int32_t& last = last_on_stream[streams.Of(steps[i])];
    replay.previous_on_stream.push_back(last);
    last = static_cast<int32_t>(i);
  }
  replay.timings = clock.TakeTimings();
  return replay;
}

// One split: Prefetch `prefetch` keeps its first `kept_bytes`; the rest becomes a chunk issued
// right after the transfer `waiting` that queued behind it.
struct Split {
  int32_t prefetch = -1;
  int32_t waiting = -1;
  int64_t kept_bytes = 0;
};

class Chunker {
 public:
  Chunker(const HardwareProfile& profile, Plan& plan) : profile_(profile), plan_(plan) {}

  int32_t Run() {
    if (!HasSplittablePrefetch()) return 0;
    Replay replay = ReplaySteps(profile_, plan_.node_time_ns, plan_.steps);
    int32_t kept = 0;
    int64_t replayed_steps = 0;
    for (size_t i = 0; i < plan_.steps.size() && kept < kMaxChunkSplits &&
                       replayed_steps < kChunkReplayBudgetSteps;
         ++i) {
      const std::optional<Split> split = SplitFor(static_cast<int32_t>(i), replay);
      if (!split) continue;
      replayed_steps += static_cast<int64_t>(plan_.steps.size());
      // Most splits are not kept (1771 of 1849 on DeepSeek-V3 fp8 gather on rtx-4090-xeon-2s):
      // each is judged without building its steps; a kept one is built and replayed in full.
      const int64_t trial_makespan_ns = TrialMakespan(*split, replay);
      if (trial_makespan_ns >= replay.makespan_ns) continue;
      std::vector<PlanStep> steps = SplitSteps(*split);
      Replay trial = ReplaySteps(profile_, plan_.node_time_ns, steps);
      if (trial.makespan_ns != trial_makespan_ns) {
        throw Error(ErrorKind::kInternal, "chunk trial replay disagrees with the full replay");
      }
      plan_.steps = std::move(steps);
      RenumberMemory(*split);
      replay = std::move(trial);
      ++kept;
    }
    return kept;
  }

 private:
  bool HasSplittablePrefetch() const {
    return std::any_of(plan_.steps.begin(), plan_.steps.end(), [&](const PlanStep& step) {
      return IsDevicePrefetch(step) && step.bytes >= 2 * kMinChunkBytes;
    });
  }

  bool IsDevicePrefetch(const PlanStep& step) const {
    // A routed Prefetch (fetch after route) is not a byte range of its value: never split.
    return step.kind == StepKind::kPrefetch && step.dst_tier == profile_.device_tier &&
           step.routed_by == kNoNode;
  }

  // The split that lets transfer `waiting` start when it is ready, if it waits behind a
  // Prefetch to the device that can keep what it moves by then.
  std::optional<Split> SplitFor(int32_t waiting, const Replay& replay) const {
    const PlanStep& step = plan_.steps[waiting];
    if (!IsTransfer(step)) return std::nullopt;
    int64_t ready_ns = 0;
    for (int32_t wait : step.waits_for) ready_ns = std::max(ready_ns, replay.timings[wait].end_ns);
    if (ready_ns >= replay.timings[waiting].start_ns) return std::nullopt;
    // The transfer running on the channel when `waiting` became ready.
    int32_t running = replay.previous_on_stream[waiting];
    while (running >= 0 && replay.timings[running].start_ns > ready_ns) {
      running = replay.previous_on_stream[running];
    }
    if (running < 0 || replay.timings[running].end_ns <= ready_ns) return std::nullopt;
    if (!Splittable(running, waiting)) return std::nullopt;
    const PlanStep& prefetch = plan_.steps[running];
    // A small transfer behind a large one; between transfers of like size only the order
    // would change, which the refine already chose.
    if (step.bytes > prefetch.bytes / kChunkSmallTransferRatio) return std::nullopt;
    const int64_t kept_bytes =
        BytesWithin(prefetch.link, ready_ns - replay.timings[running].start_ns);
    if (kept_bytes < kMinChunkBytes || prefetch.bytes - kept_bytes < kMinChunkBytes) {
      return std::nullopt;
    }
    return Split{running, waiting, kept_bytes};
  }

  // A Prefetch to the device, the last chunk of its transfer, that no step up to `waiting`
  // waits for (those would have to wait for the chunk after `waiting`).
  bool Splittable(int32_t prefetch, int32_t waiting) const {
    if (!IsDevicePrefetch(plan_.steps[prefetch])) return false;
    const int32_t first = FirstChunk(prefetch);
    for (int32_t s = prefetch + 1; s <= waiting; ++s) {
      const PlanStep& step = plan_.steps[s];
      if (step.chunk_of == first) return false;  // a later chunk already
      if (std::find(step.waits_for.begin(), step.waits_for.end(), prefetch) !=
          step.waits_for.end()) {
        return false;
      }
    }
    for (size_t s = static_cast<size_t>(waiting) + 1; s < plan_.steps.size(); ++s) {
      if (plan_.steps[s].chunk_of == first) return false;
    }
    return true;
  }

  int32_t FirstChunk(int32_t step) const {
    return plan_.steps[step].chunk_of >= 0 ? plan_.steps[step].chunk_of : step;
  }

  // The bytes a transfer on one channel of `link` moves in `window_ns`, latency paid, rounded
  // down to kChunkAlignBytes.
  int64_t BytesWithin(int32_t link, int64_t window_ns) const {
    const Link& spec = profile_.links[link];
    const int64_t moving_ns = window_ns - spec.latency_ns;
    if (moving_ns <= 0 || spec.bandwidth_bytes_per_s <= 0) return 0;
    const int64_t channels = std::max(1, spec.channels);
    const auto bytes = static_cast<int64_t>(static_cast<__int128>(moving_ns) *
                                            spec.bandwidth_bytes_per_s / channels / 1'000'000'000);
    return bytes / kChunkAlignBytes * kChunkAlignBytes;
  }

  // The Prefetch's two chunks: the head it keeps in place and the tail issued after `waiting`.
  std::pair<PlanStep, PlanStep> Chunks(const Split& split) const {
    const PlanStep& original = plan_.steps[split.prefetch];
    const PlanStep& waiting = plan_.steps[split.waiting];
    const Link& link = profile_.links[original.link];
    PlanStep head = original;
    head.bytes = split.kept_bytes;
    head.planned_end_ns = head.planned_start_ns + ChannelTransferTimeNs(link, head.bytes);
    PlanStep tail = original;
    tail.bytes = original.bytes - split.kept_bytes;
    tail.chunk_offset_bytes = original.chunk_offset_bytes + split.kept_bytes;
    tail.chunk_of = FirstChunk(split.prefetch);
    tail.boundary = waiting.boundary;
    tail.waits_for.clear();  // it follows `waiting` on the channel; the first chunk allocated
    tail.planned_start_ns = std::max(waiting.planned_end_ns, head.planned_end_ns);
    tail.planned_end_ns = tail.planned_start_ns + ChannelTransferTimeNs(link, tail.bytes);
    return {std::move(head), std::move(tail)};
  }

  // The makespan SplitSteps(split) replays to, without building them. A step is timed from
  // the steps before it alone, so the steps before the Prefetch keep `replay`'s timings (the
  // clock resumes there); after the tail, each wait is renumbered as SplitSteps renumbers it.
  // O(steps) simple passes, no step copied but the two chunks.
  int64_t TrialMakespan(const Split& split, const Replay& replay) const {
    const auto [head, tail] = Chunks(split);
    const std::span<const PlanStep> steps(plan_.steps);
    const auto prefix = static_cast<size_t>(split.prefetch);
    StepClock clock(profile_, plan_.node_time_ns);
    clock.Resume(steps.first(prefix), std::span<const StepTiming>(replay.timings).first(prefix));
    int64_t makespan_ns = 0;
    for (size_t s = 0; s < prefix; ++s) {
      makespan_ns = std::max(makespan_ns, replay.timings[s].end_ns);
    }
    makespan_ns = std::max(makespan_ns, clock.Add(head).end_ns);
    // Between the chunks no step waits for the Prefetch (Splittable) nor for a later step.
    for (int32_t s = split.prefetch + 1; s <= split.waiting; ++s) {
      makespan_ns = std::max(makespan_ns, clock.Add(steps[s]).end_ns);
    }
    makespan_ns = std::max(makespan_ns, clock.Add(tail).end_ns);
    const int32_t tail_index = split.waiting + 1;
    for (size_t s = static_cast<size_t>(tail_index); s < steps.size(); ++s) {
      int64_t ready_ns = 0;
      for (const int32_t wait : steps[s].waits_for) {
        const int32_t renumbered =
            wait == split.prefetch ? tail_index : (wait >= tail_index ? wait + 1 : wait);
        ready_ns = std::max(ready_ns, clock.timings()[renumbered].end_ns);
      }
      makespan_ns = std::max(makespan_ns, clock.AddReady(steps[s], ready_ns).end_ns);
    }
    return makespan_ns;
  }

  // The steps with the split applied: the tail chunk inserted right after `waiting`, at its
  // boundary, and every later step that waited for the Prefetch waiting for the tail instead.
  std::vector<PlanStep> SplitSteps(const Split& split) const {
    std::vector<PlanStep> steps;
    steps.reserve(plan_.steps.size() + 1);
    const auto [head, tail] = Chunks(split);
    const int32_t tail_index = split.waiting + 1;
    for (size_t s = 0; s < plan_.steps.size(); ++s) {
      steps.push_back(static_cast<int32_t>(s) == split.prefetch ? head : plan_.steps[s]);
      if (static_cast<int32_t>(s) == split.waiting) steps.push_back(tail);
    }
    for (size_t s = static_cast<size_t>(tail_index) + 1; s < steps.size(); ++s) {
      for (int32_t& wait : steps[s].waits_for) {
        if (wait == split.prefetch) {
          wait = tail_index;
        } else if (wait >= tail_index) {
          ++wait;
        }
      }
      std::sort(steps[s].waits_for.begin(), steps[s].waits_for.end());
      steps[s].waits_for.erase(std::unique(steps[s].waits_for.begin(), steps[s].waits_for.end()),
                               steps[s].waits_for.end());
    }
    return steps;
  }

  // Residency and tier copies name steps: those after the inserted tail move up by one, and a
  // staging copy the Prefetch read until its end is read until the tail's.
  void RenumberMemory(const Split& split) {
    const int32_t tail_index = split.waiting + 1;
    const auto renumber = [&](int32_t& step) {
      if (step >= tail_index) ++step;
    };
    for (ResidentInterval& interval : plan_.residency) {
      renumber(interval.opened_by);
      renumber(interval.closed_by);
    }
    for (TierCopy& copy : plan_.tier_copies) {
      renumber(copy.opened_by);
      if (copy.closed_by == split.prefetch) {
        copy.closed_by = tail_index;
      } else {
        renumber(copy.closed_by);
      }
    }
  }

  const HardwareProfile& profile_;
  Plan& plan_;
};

}  // namespace

int32_t ChunkBlockingPrefetches(const HardwareProfile& profile, Plan& plan) {
  return Chunker(profile, plan).Run();
}

}  // namespace hyperplan::planner
