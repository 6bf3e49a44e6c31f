// PlanView: the static view of a plan a runtime builds once before running it: the buffers
// (the device arena, then one buffer per off-device tier), every block in them (each device
// residency at its arena offset, each tier copy at its offset in its tier's buffer), the stream
// of each step (stream 0 computes and detaches; each (link, channel) the plan uses is a copy
// stream, in ascending order; when a step runs on the host, the host lane is the last
// stream), and which blocks each step opens, closes, reads and writes: a device compute step
// its residencies, a host compute step its TierCopies on the host compute tier H
// (HostComputeSpec::memory_tier): each input's copy live there, each output's copy it opens.
// The reference executor (executor.h) runs over it, and the CUDA backend maps it onto CUDA
// streams and events (cuda_schedule.h), so the two agree on every stream and offset.
// Cost: O(steps + blocks x blocks of one value). Limits: a step whose value has no block where
// it needs one gets -1 there (as does every value of a host step when the profile has no host
// unit); the executor reports it when the step runs (kRulePlaced).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "executor/backend.h"
#include "executor/ledger.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::executor {

// Where a block comes from in the plan: a residency, or a tier copy.
struct BlockInfo {
  ValueId value = kNoValue;
  TierId tier = kNoTier;
  bool device = false;
  int32_t opened_by = -1;
  int32_t closed_by = -1;
};

// What one step touches, found once from the plan.
struct StepBlocks {
  std::vector<int32_t> opens;   // blocks allocated at its start
  std::vector<int32_t> closes;  // blocks freed at its end
  // Compute: (value, block) read, written whole, and updated in place (alias state): device
  // blocks for a device step, copies on the host compute tier for a host step.
  std::vector<std::pair<ValueId, int32_t>> reads, writes, updates;
  int32_t source = -1;       // transfers: the block read
  int32_t destination = -1;  // transfers: the block written
  // Transfers: the value's bytes [begin_byte, begin_byte + bytes) it copies, at the same place
  // in both blocks: a chunk's range (plan/chunks.h), else the value's last `bytes` (all of it,
  // or the part an in-place update changed).
  int64_t begin_byte = 0;
  int64_t bytes = 0;
  int32_t dropped = -1;  // Detach: the device block freed
};

struct PlanView {
  std::vector<BufferSpec> buffers;    // 0: the device arena, then the tier buffers
  std::vector<Block> blocks;          // residencies (parallel to plan.residency), then tier copies
  std::vector<BlockInfo> block_info;  // parallel to blocks
  std::map<ValueId, std::vector<int32_t>> blocks_of;
  int32_t stream_count = 1;
  int32_t host_lane = -1;          // the stream of host compute steps; -1: no step runs there
  TierId host_tier = kNoTier;      // H, where host steps read and write; kNoTier: no host unit
  std::vector<int32_t> stream_of;  // by step
  std::vector<std::vector<int32_t>> steps_of_stream;
  std::vector<StepBlocks> step_blocks;  // by step
  // By step: what it waits for besides its waits_for, for a routed hop that holds its whole
  // link (plan/whole_link.h WholeLinkWaits).
  std::vector<std::vector<int32_t>> link_waits;
};

// The view of `plan` over `loop` (the graph one iteration sees: loop.h LoopGraph for a
// periodic plan, the model itself for a one-shot one) on `profile`.
PlanView BuildPlanView(const Graph& loop, const HardwareProfile& profile, const Plan& plan);

}  // namespace hyperplan::executor
