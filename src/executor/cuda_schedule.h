// DeviceSchedule: a plan as the work a CUDA runtime issues, one entry per plan step, built from
// the same PlanView the reference executor runs (plan_view.h), so both put every step on the
// same stream and every copy at the same offsets.
//
// Mapping: stream 0 (the compute stream) runs compute steps as a kernel that holds the device
// for the node's planned time, and Detach steps as nothing (they only end a block's life);
// each (link, channel) the plan uses is a copy stream running its transfers in sequence order
// as cudaMemcpyAsync from the source block to the destination block (the last `bytes` of the
// value, as the executor copies them); a routed Prefetch (fetch after route) copies its
// expected bytes (PlanStep::bytes, what the simulator times) from the start of the source block
// to the start of the block it opens: the timed pass draws no routing, so it times the
// expectation and the check pass (the executor) moves each drawn routing's experts. A host compute
// step is a hold of its planned host time on a stream of its own (the view's host lane, last), so
// the GPU's timeline has the host's durations and waits; the host's own work is not run on the GPU.
// Buffer 0 is the device arena (one cudaMalloc), each other buffer a pinned host buffer
// (cudaHostAlloc). A wait on a step of another stream is a cudaStreamWaitEvent on that step's end
// event; of several waits on one stream only the latest is kept (stream order implies the rest),
// and waits on the step's own stream are dropped. Cost: O(steps + waits). Limits: it maps; it
// checks nothing (the executor's ledger does), and a transfer whose block is missing (-1 in the
// view) is left a no-op copy of 0 bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "executor/backend.h"
#include "executor/plan_view.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::executor {

enum class DeviceOpKind : uint8_t {
  kHold,  // compute: a kernel that holds the device for hold_ns
  kCopy,  // Prefetch or Store: cudaMemcpyAsync on the step's copy stream
  kNone,  // Detach: nothing to issue
};

struct DeviceOp {
  DeviceOpKind kind = DeviceOpKind::kNone;
  int32_t stream = 0;
  int64_t hold_ns = 0;  // kHold: the node's planned time
  // kCopy: bytes [offset, offset + bytes) of buffer src_buffer to the same count at dst.
  int32_t src_buffer = -1;
  int64_t src_offset_bytes = 0;
  int32_t dst_buffer = -1;
  int64_t dst_offset_bytes = 0;
  int64_t bytes = 0;
  int32_t link = -1;                // kCopy: index into HardwareProfile::links
  std::vector<int32_t> wait_steps;  // steps on other streams whose end this one waits for
};

struct DeviceSchedule {
  std::vector<BufferSpec> buffers;  // 0: the arena (device), then the pinned tier buffers
  int32_t stream_count = 1;
  std::vector<DeviceOp> ops;  // parallel to Plan::steps
};

// `loop`: the graph one iteration sees (as for BuildPlanView); `view` built from the same plan.
DeviceSchedule BuildDeviceSchedule(const PlanView& view, const Graph& loop,
                                   const HardwareProfile& profile, const Plan& plan);

}  // namespace hyperplan::executor
