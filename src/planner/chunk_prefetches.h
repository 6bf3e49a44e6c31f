// ChunkBlockingPrefetches: splits a Prefetch to the device into chunks (plan/chunks.h) where a
// later transfer on the same first-in first-out link channel, ready while the Prefetch still
// runs, waits behind it: the part that fits before that transfer is ready stays where it was,
// the rest becomes a later chunk issued right after it. The transfers that gain are host
// crossings (a layer's activation Prefetched back from its host MLP: 16 KiB at 70B decode)
// queued behind a weight's 128 MiB Prefetch, which no window between two crossings holds.
//
// Greedy over the sequence, each waiting transfer once, in order: a split is kept only when
// the replay's makespan drops (so a plan never gets slower), and a chunk's tail may be split
// again for the next crossing. Steps, residency openers and tier-copy closers are renumbered;
// whatever read the Prefetch's value waits for its last chunk. Layout, simulation and summary
// are left to the caller (FinishPlan).
// Cost: O(steps) per replay, one replay per waiting transfer tried (at most kMaxChunkSplits
// kept, and trials while their replayed steps stay within kChunkReplayBudgetSteps); a trial
// resumes the last replay's clock at the Prefetch and builds no steps, a kept split is built
// and replayed in full.
// Limits: only the last chunk of a Prefetch to the device is split, only for a waiting
// transfer at most 1/kChunkSmallTransferRatio its size, only when none of the steps between
// the two waits for it, and into chunks of at least kMinChunkBytes; Stores and off-device
// hops are never split.
#pragma once

#include <cstdint>

#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::planner {

inline constexpr int64_t kMinChunkBytes = int64_t{1} << 20;  // the latency a chunk pays stays small
inline constexpr int64_t kChunkAlignBytes = int64_t{64} << 10;  // chunk offsets are multiples
inline constexpr int32_t kMaxChunkSplits = 4096;
// Only a transfer at most 1/8 of the Prefetch's bytes gets past it.
inline constexpr int64_t kChunkSmallTransferRatio = 8;
// Trials times steps replayed: about half a second of CPU, whatever the plan's size.
inline constexpr int64_t kChunkReplayBudgetSteps = int64_t{32} << 20;

// Splits in place; returns the number of splits kept.
int32_t ChunkBlockingPrefetches(const HardwareProfile& profile, Plan& plan);

}  // namespace hyperplan::planner
