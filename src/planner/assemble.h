// Assemble: turn a Selection into a Plan (steps, residency, tier copies, decisions), then lay
// out the arena, simulate and summarise it.
//
// Sequence: for each boundary k = 0..n, the Store hops issued there, then the Detaches, then
// the Prefetch hops, then compute step k; within a group by planned start, link, channel,
// value. Because a transfer's boundary is the step during which it was planned to start, each
// channel's FIFO order is its planned-start order, and a stall-free replay reproduces the
// planned times (or beats them). Waits: a Store hop waits for its producer and the compute
// step before its boundary; a Detach for the value's Store; a Prefetch hop for the last
// compute-stream step before it (so it never allocates before the frees accounted before its
// boundary) and for the Store or previous hop it reads; a compute step for the Prefetches that
// opened its inputs' residency. Cost: O(s log s) for s steps plus layout and simulation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "planner/context.h"
#include "planner/refine.h"

namespace hyperplan::planner {

struct AssembleOptions {
  size_t placement_count = 0;  // use the first N placements of the selection (commit order)
  bool offload_enabled = true;
  std::optional<int64_t> budget_bytes;
  int64_t baseline_peak_bytes = 0;  // model order, nothing offloaded
  int64_t baseline_arena_bytes = 0;
};

// Steps, residency, tier copies and decisions, then layout, simulation and summary: the plan
// and its evaluation (FinishPlan).
EvaluatedPlan AssemblePlan(const PlanContext& context, const Selection& selection,
                           const AssembleOptions& options);

}  // namespace hyperplan::planner
