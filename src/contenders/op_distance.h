// Fixed op-distance offloading: MindSpore's shipped heuristic, time-blind by design.
//
// The model's order is kept and transfers attach to positions in it. A value leaves the
// device right after the last step that needs it before an idle gap ("release after last
// use": a Detach, after a Store issued right after its producer when no copy exists off the
// device) and is prefetched a fixed number of ops before its next use, whatever those ops
// cost. Gaps are chosen greedily by size at the current peak step of the live-bytes profile
// (largest first, ties by value id then gap start) until the peak meets the target; a gap
// too short for the distance frees nothing and is never chosen. Transfers run on the copy
// streams; a Detach waits for its Store and so stalls compute when the Store is late, and a
// compute step waits for its Prefetch. The budget applies to the arena (FitToBudget).
// Cost: O((gaps + choices) log steps) for the selection (a stabbing index over gaps), then
// layout and simulation, up to kFitRounds times.
// Limits: one distance for every value; no time, bandwidth or link occupancy is consulted.
#pragma once

#include <cstdint>
#include <optional>

#include "contenders/context.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::contenders {

struct OpDistanceOptions {
  int prefetch_distance_ops = 4;  // Prefetch issued this many steps before the next use
};

EvaluatedPlan OpDistancePlan(const ContenderContext& context, std::optional<int64_t> budget_bytes,
                             const OpDistanceOptions& options);

}  // namespace hyperplan::contenders
