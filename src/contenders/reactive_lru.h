// Reactive offloading: what a runtime does with no plan (PyTorch-style on-demand paging, the
// "runtime prefetching" HyperOffload measures as up to 2.7x slower).
//
// Before each node, the inputs not on the device are fetched (first touch); when the node's
// inputs, outputs and scratch do not fit the target, the least recently used values that the
// node does not read leave the device (a Detach when a copy exists off the device, else a
// Store then a Detach). Every transfer is synchronous with compute: each Store, Detach and
// Prefetch waits for the step issued before it, so compute stops while data moves. Dead
// values are freed after their last use, as any runtime does; weights and other owned values
// stay cached until evicted. The run starts warm: with the values the same policy leaves on
// the device at the end of an identical previous run (the steady state of repeated steps),
// trimmed so step 0 fits. The budget applies to the arena: FitToBudget lowers the live-bytes
// target by the fragmentation.
// Cost: two passes of O((steps + evictions) log values), then layout and simulation, up to
// kFitRounds times.
// Limits: one LRU list for all classes; no prefetching at all (that is the point).
#pragma once

#include <cstdint>
#include <optional>

#include "contenders/context.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::contenders {

// `budget_bytes` (clamped to the device capacity; unset: the capacity) bounds the arena.
EvaluatedPlan ReactiveLruPlan(const ContenderContext& context, std::optional<int64_t> budget_bytes);

}  // namespace hyperplan::contenders
