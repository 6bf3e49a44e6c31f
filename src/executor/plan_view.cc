// PlanView (see plan_view.h).
#include "executor/plan_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>

#include "hyperplan/plan/whole_link.h"
#include "plan/chunks.h"

namespace hyperplan::executor {
namespace {

bool IsHostCompute(const PlanStep& step) {
  return step.kind == StepKind::kCompute && step.unit == ComputeUnit::kHost;
}

int64_t TierBufferIndex(const Plan& plan, TierId tier) {
  for (size_t b = 0; b < plan.tier_buffers.size(); ++b) {
    if (plan.tier_buffers[b].tier == tier) return static_cast<int64_t>(b);
  }
  return -1;
}

class Builder {
 public:
  Builder(const Graph& loop, const HardwareProfile& profile, const Plan& plan)
      : loop_(loop), profile_(profile), plan_(plan) {}
  PlanView Build() {
    if (profile_.host_compute.present()) view_.host_tier = profile_.host_compute.memory_tier;
    AddBlocks();
    AssignStreams();
    view_.link_waits = WholeLinkWaits(profile_, plan_);
    FindStepBlocks();
    FindTransferRanges();
    return std::move(view_);
  }

 private:
  void AddBlocks();
  void AssignStreams();
  void FindStepBlocks();
  void FindTransferRanges();
  void FindComputeBlocks(int32_t step, StepBlocks& touched) const;
  int32_t ComputeBlockAt(ValueId value, const PlanStep& step, int32_t index, bool written) const;
  int32_t ResidencyAt(ValueId value, Step step) const;
  int32_t BlockAt(ValueId value, TierId tier, int32_t step, bool opened_here) const;

  const Graph& loop_;
  const HardwareProfile& profile_;
  const Plan& plan_;
  PlanView view_;
};

// Blocks: every residency (in the arena, buffer 0), then every tier copy (in its tier's
// buffer, 1 + its index in plan.tier_buffers).
void Builder::AddBlocks() {
  view_.buffers.push_back(
      {profile_.device_tier, true, plan_.layout.arena_bytes, plan_.layout.alignment_bytes});
  for (const TierBuffer& buffer : plan_.tier_buffers) {
    view_.buffers.push_back({buffer.tier, false, buffer.size_bytes, buffer.alignment_bytes});
  }
  for (size_t r = 0; r < plan_.residency.size(); ++r) {
    const ResidentInterval& interval = plan_.residency[r];
    const int64_t offset_bytes =
        r < plan_.layout.offset_bytes.size() ? plan_.layout.offset_bytes[r] : -1;
    const std::string what =
        interval.value != kNoValue
            ? fmt::format("'{}'", loop_.values[interval.value].name)
            : fmt::format("the scratch of '{}'", loop_.nodes[interval.scratch_node].name);
    view_.blocks.push_back({0, offset_bytes, interval.bytes,
                            fmt::format("{} (device block [{}, {}))", what, offset_bytes,
                                        offset_bytes + interval.bytes)});
    view_.block_info.push_back(
        {interval.value, profile_.device_tier, true, interval.opened_by, interval.closed_by});
  }
  for (const TierCopy& copy : plan_.tier_copies) {
    const int64_t buffer = TierBufferIndex(plan_, copy.tier);
    view_.blocks.push_back({static_cast<int32_t>(buffer + 1), copy.offset_bytes, copy.bytes,
                            fmt::format("'{}' ({} copy [{}, {}))", loop_.values[copy.value].name,
                                        profile_.tiers[copy.tier].name, copy.offset_bytes,
                                        copy.offset_bytes + copy.bytes)});
    view_.block_info.push_back({copy.value, copy.tier, false, copy.opened_by, copy.closed_by});
  }
  for (size_t b = 0; b < view_.blocks.size(); ++b) {
    if (view_.block_info[b].value != kNoValue)
      view_.blocks_of[view_.block_info[b].value].push_back(int32_t(b));
  }
}

// Stream 0 computes on the device (and detaches); each (link, channel) the plan uses is a copy
// stream, in ascending order; the host lane, when a step runs on the host, comes last.
void Builder::AssignStreams() {
  std::map<std::pair<int32_t, int32_t>, int32_t> channels;
  bool any_host_step = false;
  for (const PlanStep& step : plan_.steps) {
    if (step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore) {
      channels.emplace(std::make_pair(step.link, step.channel), 0);
    }
    any_host_step = any_host_step || IsHostCompute(step);
  }
  int32_t next = 1;
  for (auto& [channel, stream] : channels) stream = next++;
  if (any_host_step) view_.host_lane = next++;
  view_.stream_count = next;
  view_.steps_of_stream.resize(next);
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const PlanStep& step = plan_.steps[s];
    const bool copy = step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore;
    const int32_t stream = copy                  ? channels.at({step.link, step.channel})
                           : IsHostCompute(step) ? view_.host_lane
                                                 : 0;
    view_.stream_of.push_back(stream);
    view_.steps_of_stream[stream].push_back(int32_t(s));
  }
}

// The residency of `value` that a compute step at `step` reads or writes.
int32_t Builder::ResidencyAt(ValueId value, Step step) const {
  const auto found = view_.blocks_of.find(value);
  if (found == view_.blocks_of.end()) return -1;
  for (int32_t b : found->second) {
    if (!view_.block_info[b].device) continue;
    const ResidentInterval& interval = plan_.residency[b];
    // A partial residency (resident experts) never makes the value resident for a reader by
    // itself: the routed Prefetch's block is the one read (routed_view.h adds the partial one).
    if (!interval.experts.empty()) continue;
    if (interval.first_step <= step && step <= interval.last_step) return b;
  }
  return -1;
}

// The block of `value` on `tier` a transfer at `step` touches: the one it opens, else the one
// live at that point of the sequence (the latest opened).
int32_t Builder::BlockAt(ValueId value, TierId tier, int32_t step, bool opened_here) const {
  const auto found = view_.blocks_of.find(value);
  if (found == view_.blocks_of.end()) return -1;
  int32_t best = -1;
  for (int32_t b : found->second) {
    const BlockInfo& info = view_.block_info[b];
    if (info.tier != tier) continue;
    if (opened_here) {
      if (info.opened_by == step) return b;
      continue;
    }
    const bool live = info.opened_by < step && (info.closed_by < 0 || info.closed_by >= step);
    if (live && (best < 0 || info.opened_by > view_.block_info[best].opened_by)) best = b;
  }
  return best;
}

void Builder::FindStepBlocks() {
  view_.step_blocks.resize(plan_.steps.size());
  for (size_t b = 0; b < view_.block_info.size(); ++b) {
    if (view_.block_info[b].opened_by >= 0)
      view_.step_blocks[view_.block_info[b].opened_by].opens.push_back(b);
    if (view_.block_info[b].closed_by >= 0)
      view_.step_blocks[view_.block_info[b].closed_by].closes.push_back(b);
  }
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const PlanStep& step = plan_.steps[s];
    StepBlocks& touched = view_.step_blocks[s];
    const int32_t index = static_cast<int32_t>(s);
    switch (step.kind) {
      case StepKind::kCompute:
        FindComputeBlocks(index, touched);
        break;
      case StepKind::kPrefetch:
      case StepKind::kStore:
        touched.source = BlockAt(step.value, step.src_tier, index, false);
        touched.destination = BlockAt(step.value, step.dst_tier, index, true);
        if (touched.destination < 0) {
          touched.destination = BlockAt(step.value, step.dst_tier, index, false);
        }
        break;
      case StepKind::kDetach:
        for (int32_t b : touched.closes) {
          if (view_.block_info[b].device && view_.block_info[b].value == step.value)
            touched.dropped = b;
        }
        break;
    }
  }
}

// A compute step's inputs (each once), the alias state it updates in place, and its outputs.
void Builder::FindComputeBlocks(int32_t index, StepBlocks& touched) const {
  const PlanStep& step = plan_.steps[index];
  const Node& node = loop_.nodes[step.node];
  std::vector<ValueId> inputs = node.inputs;
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  for (ValueId value : inputs) {
    if (loop_.values[value].bytes <= 0) continue;
    const int32_t block = ComputeBlockAt(value, step, index, false);
    touched.reads.emplace_back(value, block);
    if (loop_.values[value].written_by == step.node) touched.updates.emplace_back(value, block);
  }
  for (ValueId value : node.outputs) {
    if (loop_.values[value].bytes <= 0) continue;
    touched.writes.emplace_back(value, ComputeBlockAt(value, step, index, true));
  }
}

// A device step touches the residency of its boundary; a host step the copy on H live before
// it (an input) or the one it opens (an output).
int32_t Builder::ComputeBlockAt(ValueId value, const PlanStep& step, int32_t index,
                                bool written) const {
  if (!IsHostCompute(step)) return ResidencyAt(value, step.boundary);
  if (view_.host_tier == kNoTier) return -1;
  return BlockAt(value, view_.host_tier, index, written);
}

}  // namespace

void Builder::FindTransferRanges() {
  const std::vector<int32_t> last_chunk = LastChunks(plan_);
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const PlanStep& step = plan_.steps[s];
    if (step.kind != StepKind::kPrefetch && step.kind != StepKind::kStore) continue;
    StepBlocks& touched = view_.step_blocks[s];
    const int64_t value_bytes = loop_.values[step.value].bytes;
    const bool chunk = step.chunk_of >= 0 || last_chunk[s] != static_cast<int32_t>(s);
    if (chunk) {
      touched.begin_byte = std::clamp<int64_t>(step.chunk_offset_bytes, 0, value_bytes);
      touched.bytes = std::min(step.bytes, value_bytes - touched.begin_byte);
    } else {
      touched.bytes = std::min(step.bytes, value_bytes);
      touched.begin_byte = value_bytes - touched.bytes;
    }
  }
}

PlanView BuildPlanView(const Graph& loop, const HardwareProfile& profile, const Plan& plan) {
  return Builder(loop, profile, plan).Build();
}

}  // namespace hyperplan::executor
