// Chunked Prefetches (PlanStep::chunk_offset_bytes, chunk_of; schemas/plan.proto Step fields
// 20-21): a Prefetch to the device that moves its value in byte ranges, each range a step on
// the same link channel, so that a small transfer queued on that FIFO channel (a host
// crossing) can run between two ranges instead of waiting behind the whole value. This is
// what a runtime does on one copy engine: the engine runs copies first in, first out, blind to
// stream priority, and splitting a large copy is how small ones get between (torchrec's
// chunked_copy_, meta-pytorch/torchrec PRs 4303 and 4339; cudf issue 15620).
//
// Rules (VerifyPlan checks them through CheckChunks): only a Prefetch to the device is
// chunked; its first chunk has offset 0, chunk_of -1 and opens the value's residency; each
// later chunk names the first in `chunk_of`, is a Prefetch of the same value on the same link
// and channel, starts where the chunk before it in the sequence ended (in order, no overlap)
// and is issued no later than the residency's last step; the chunks cover every byte. The
// device copy is readable only once the last chunk has ended (LastChunks).
// Cost: O(steps) for LastChunks; O(steps + residency) for CheckChunks.
// Limits: Stores and Prefetches to an off-device tier are never chunked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

// Whether `step` is one chunk of a chunked transfer (first or later).
bool IsChunk(const Graph& graph, const PlanStep& step);

// By step: the step whose end completes the transfer it belongs to (the last chunk of a
// chunked Prefetch; the step itself for every other step). Expects chunk_of indices that point
// back (CheckChunks); a bad one is ignored.
std::vector<int32_t> LastChunks(const Plan& plan);

struct ChunkFailure {
  int32_t step = -1;
  std::string message;
};

// The first chunk rule (above) the plan breaks, or none. Expects a plan whose other shapes
// VerifyPlan has checked (indices in range).
std::optional<ChunkFailure> CheckChunks(const Graph& graph, const HardwareProfile& profile,
                                        const Plan& plan);

}  // namespace hyperplan
