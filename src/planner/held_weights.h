// Weights held whole in the room fetches after route free (issue 31): the planner places
// whole operands, so a MoE plan streams its dense weights (attention projections, shared
// experts) from DDR every iteration while its stacked expert operands hold the device in whole
// blocks; fetched after route (expert_placement.h), those blocks shrink to the routed
// reservation and the room they leave goes back to the plan here. A dense weight held on the
// device saves all its bytes on the link every iteration per byte of room; an expert held
// saves only the chance a token touches it (8 of 256 a token on DeepSeek-V3), so weights
// streamed whole go first and the experts take what is left.
//
// A candidate is a weight no node writes, every block of which a Prefetch opens straight from its
// home copy (not routed, not through a staging copy): holding it drops those Prefetches (and
// their chunks) and the Detaches that close its blocks, and keeps one block over the whole
// iteration (loaded with the cold start, as a resident expert is). Ranked by the bytes its
// Prefetches move an iteration per byte held, then by value id.
// Cost: O(steps + blocks + tier copies) to find and to rewrite. Limits: a weight staged through
// DDR from NVMe is not a candidate (its staging copies would need rewriting too); the choice is
// greedy by rank within the room, the caller lays out and keeps the result only when it fits
// and replays faster.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::planner {

struct StreamedWeight {
  ValueId value = kNoValue;
  int64_t bytes = 0;        // the value's bytes: the room holding it takes
  int64_t moved_bytes = 0;  // its Prefetches' bytes an iteration: the link bytes it saves
};

// `plan`'s weights streamed whole from their home copy, best saving per byte first.
std::vector<StreamedWeight> FindStreamedWeights(const Graph& graph, const Plan& plan);

// The leading `candidates` whose bytes fit in `room_bytes` in all (skipping those that do
// not), by value.
std::vector<ValueId> ChooseHeldWeights(const std::vector<StreamedWeight>& candidates,
                                       int64_t room_bytes);

// The bytes of `held`.
int64_t HeldBytes(const Graph& graph, const std::vector<ValueId>& held);

// `plan` with each of `held` on the device the whole iteration: their Prefetches and closing
// Detaches removed (waits on them dropped), their blocks replaced by one from the first step to
// the last. Not laid out.
Plan HoldWeights(const Graph& graph, const Plan& plan, const std::vector<ValueId>& held);

}  // namespace hyperplan::planner
