// Fetch-after-route (issue 31): what a routed Prefetch of a stacked [E, ...] expert operand of
// a com.microsoft MoE/QMoE node, or of the table an expert Gather of the gather form picks
// slices from (routing_samples.h), moves, in expectation and at worst, when some of the
// operand's experts stay resident on the device (plan.h PlanStep::routed_by,
// ResidentInterval::experts).
//
// Once the router has run, a runtime knows which experts the node's T tokens picked (top k of E
// each) and copies only those not already resident: slices of bytes / E each. Expected moved
// bytes: the slice times sum over non-resident e of 1 - (1 - p_e)^T (routing.h, p_e the
// per-token selection probability, k/E uniform); the worst case, which the device must reserve
// so that the plan holds for every routing: min(E - h, k * T) slices for h resident experts.
// Under uniform routing of one token (decode, batch 1), E = 8, k = 2, no resident expert: 2
// slices expected and reserved; with 2 resident: 2 * 6/8 = 1.5 expected, 2 reserved. An
// expert Gather's E is its table's first axis, k its indices' last, T their other elements;
// the router is the indices' producer (DeepSeek-V3's fp8 gather form: E = 256, k = 8, T = 1
// at decode, each layer's gate, up and down codes and block scales six routed tables).
// Cost: O(E) per call. Limits: tokens routed independently (routing.h's approximation).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/routing_samples.h"

namespace hyperplan {

// A stacked expert operand of a routed node (MoE/QMoE or expert Gather) and the routing that
// picks its slices.
struct RoutedOperand {
  MoeRouting routing;
  ValueId value = kNoValue;
  int64_t slice_bytes = 0;  // one expert's bytes: the value's bytes / E
  NodeId router = kNoNode;  // producer of the node's routing input; kNoNode: a graph input
};

// `value` as an operand of routed node `node` whose first axis is its E experts (a MoE/QMoE
// node's input 2 on, an expert Gather's table; bytes a multiple of E, read by no other node);
// nullopt otherwise.
std::optional<RoutedOperand> RoutedOperandOf(const Graph& graph, NodeId node, ValueId value);

// By expert: 1 - (1 - p_e)^T, the chance the node's tokens touch it in one iteration.
std::vector<double> TouchProbabilities(const MoeRouting& routing);

// Expected bytes a routed Prefetch moves with `resident` (ascending expert indices) kept on the
// device: slice_bytes * sum over the others of their touch probability, rounded to the byte.
int64_t ExpectedRoutedBytes(const RoutedOperand& operand, const std::vector<int32_t>& resident);

// The device bytes a routed Prefetch reserves: min(E - resident, k * T) slices.
int64_t ReservedRoutedBytes(const RoutedOperand& operand, int64_t resident_count);

}  // namespace hyperplan
