// Fetch-after-route (issue 31): what a routed Prefetch of a stacked [E, ...] expert operand of
// a com.microsoft MoE/QMoE node moves, in expectation and at worst, when some of the operand's
// experts stay resident on the device (plan.h PlanStep::routed_by, ResidentInterval::experts).
//
// Once the router has run, a runtime knows which experts the node's T tokens picked (top k of E
// each) and copies only those not already resident: slices of bytes / E each. Expected moved
// bytes: the slice times sum over non-resident e of 1 - (1 - p_e)^T (routing.h, p_e the
// per-token selection probability, k/E uniform); the worst case, which the device must reserve
// so that the plan holds for every routing: min(E - h, k * T) slices for h resident experts.
// Under uniform routing of one token (decode, batch 1), E = 8, k = 2, no resident expert: 2
// slices expected and reserved; with 2 resident: 2 * 6/8 = 1.5 expected, 2 reserved.
// Cost: O(E) per call. Limits: tokens routed independently (routing.h's approximation);
// MoE/QMoE nodes only (the gather form reads its slices through Gathers, not planned here).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/routing_samples.h"

namespace hyperplan {

// A stacked expert operand of a MoE node and the routing that picks its slices.
struct RoutedOperand {
  MoeRouting routing;
  ValueId value = kNoValue;
  int64_t slice_bytes = 0;  // one expert's bytes: the value's bytes / E
  NodeId router = kNoNode;  // producer of the node's routing input; kNoNode: a graph input
};

// `value` as an operand of MoE node `node` whose first axis is its E experts (input 2 on,
// bytes a multiple of E, read by no other node); nullopt otherwise.
std::optional<RoutedOperand> RoutedOperandOf(const Graph& graph, NodeId node, ValueId value);

// By expert: 1 - (1 - p_e)^T, the chance the node's tokens touch it in one iteration.
std::vector<double> TouchProbabilities(const MoeRouting& routing);

// Expected bytes a routed Prefetch moves with `resident` (ascending expert indices) kept on the
// device: slice_bytes * sum over the others of their touch probability, rounded to the byte.
int64_t ExpectedRoutedBytes(const RoutedOperand& operand, const std::vector<int32_t>& resident);

// The device bytes a routed Prefetch reserves: min(E - resident, k * T) slices.
int64_t ReservedRoutedBytes(const RoutedOperand& operand, int64_t resident_count);

// A contiguous range [begin, end) of an operand's experts.
struct ExpertRange {
  int32_t begin = 0;
  int32_t end = 0;
};

// Expected bytes of the touched, non-resident experts in `range` (ExpectedRoutedBytes over the
// whole range [0, E) gives the same bytes): what one of several routed transfers moves when
// each reads the picked experts of its own range.
int64_t ExpectedRoutedBytesIn(const RoutedOperand& operand, const std::vector<int32_t>& resident,
                              ExpertRange range);

// [0, E) cut into at most `parts` contiguous ranges of near-equal expected routed bytes, so that
// a routed hop of a link with `parts` channels can move its picked experts on every channel at
// once (a runtime's concurrent reads of one layer's experts from a drive), each range one
// transfer. The cut after range j is the first expert whose running expected share reaches
// (j + 1) / parts of the total (resident experts add nothing); a range that would hold no
// fetchable expert is merged into its neighbour (every range has one when any expert does:
// none, and one range [0, E) comes back). Under any
// routing the ranges' picked experts add up to the whole operand's, so splitting changes
// neither the bytes moved nor the worst case reserved, only how many channels carry them.
// Cost: O(E). Limits: balances expectation, not a given routing (one range may hold every
// pick: then it takes as long as the unsplit transfer, never longer).
std::vector<ExpertRange> SplitExpertsByExpectedBytes(const RoutedOperand& operand,
                                                     const std::vector<int32_t>& resident,
                                                     int32_t parts);

}  // namespace hyperplan
