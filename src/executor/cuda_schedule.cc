// DeviceSchedule (see cuda_schedule.h).
#include "executor/cuda_schedule.h"

#include <algorithm>
#include <map>

#include "executor/pacing.h"

namespace hyperplan::executor {
namespace {

// The latest step of each other stream among `waits`, ascending.
std::vector<int32_t> CrossStreamWaits(const std::vector<int32_t>& waits,
                                      const std::vector<int32_t>& stream_of, int32_t stream) {
  std::map<int32_t, int32_t> latest;  // stream -> step
  for (int32_t wait : waits) {
    if (stream_of[wait] == stream) continue;
    int32_t& step = latest[stream_of[wait]];
    step = std::max(step, wait);
  }
  std::vector<int32_t> steps;
  for (const auto& [other, step] : latest) steps.push_back(step);
  std::sort(steps.begin(), steps.end());
  return steps;
}

}  // namespace

// The loop graph's value sizes are in `view` already (StepBlocks::bytes).
DeviceSchedule BuildDeviceSchedule(const PlanView& view, const Graph& /*loop*/,
                                   const HardwareProfile& profile, const Plan& plan) {
  DeviceSchedule schedule;
  schedule.buffers = view.buffers;
  schedule.stream_count = view.stream_count;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const PlanStep& step = plan.steps[s];
    DeviceOp op;
    op.stream = view.stream_of[s];
    std::vector<int32_t> waits = step.waits_for;
    if (s < view.link_waits.size()) {
      waits.insert(waits.end(), view.link_waits[s].begin(), view.link_waits[s].end());
    }
    op.wait_steps = CrossStreamWaits(waits, view.stream_of, op.stream);
    switch (step.kind) {
      case StepKind::kCompute:
        op.kind = DeviceOpKind::kHold;
        op.hold_ns = PlannedDurationNs(plan, profile, static_cast<int32_t>(s));
        break;
      case StepKind::kPrefetch:
      case StepKind::kStore: {
        op.kind = DeviceOpKind::kCopy;
        op.link = step.link;
        const StepBlocks& touched = view.step_blocks[s];
        if (touched.source < 0 || touched.destination < 0) break;
        // The byte range PlanView found, at the same place in both blocks (executor.cc).
        op.bytes = touched.bytes;
        const int64_t begin_byte = touched.begin_byte;
        const Block& source = view.blocks[touched.source];
        const Block& destination = view.blocks[touched.destination];
        if (step.routed_by != kNoNode) {
          // Routed: the expected bytes (what the replay times) from both blocks' starts.
          op.bytes = std::min({step.bytes, source.bytes, destination.bytes});
          op.src_buffer = source.buffer;
          op.src_offset_bytes = source.offset_bytes;
          op.dst_buffer = destination.buffer;
          op.dst_offset_bytes = destination.offset_bytes;
          break;
        }
        op.src_buffer = source.buffer;
        op.src_offset_bytes = source.offset_bytes + begin_byte;
        op.dst_buffer = destination.buffer;
        op.dst_offset_bytes = destination.offset_bytes + begin_byte;
        break;
      }
      case StepKind::kDetach:
        op.kind = DeviceOpKind::kNone;
        break;
    }
    schedule.ops.push_back(std::move(op));
  }
  return schedule;
}

}  // namespace hyperplan::executor
