// Sampled routings of a mixture-of-experts model (issue 31): how many distinct experts each
// com.microsoft MoE/QMoE node or expert Gather of the gather form reads in one drawn
// iteration, and what that node then costs.
//
// routing.h gives the expectation; a runtime meets one routing per iteration, and the spread
// over them (a p99 iteration) is what a serving budget is set against. One routing draws, for
// each MoE node, each of its T tokens' k experts and counts the distinct ones:
// - a token's k picks are k distinct experts, each expert e picked with its per-token selection
//   probability p_e (k/E under uniform routing, the `--expert-stats` profile's frequency
//   otherwise; sum_e p_e = k): systematic sampling over the experts in a freshly shuffled order
//   (one uniform offset u, the experts whose cumulative-probability interval holds u, u+1, ...,
//   u+k-1), which picks exactly k distinct experts and each with probability exactly p_e, so
//   the mean over routings is routing.h's expectation (tests check it against the closed form);
// - tokens are drawn independently (routing.h's approximation);
// - past kTokenDrawLimit token-expert pairs a node draws each expert touched or not on its own,
//   with probability 1 - (1 - p_e)^T: the same marginals and mean, without the within-token
//   coupling (at that many tokens nearly every likely expert is touched anyway).
// The generator is splitmix64 seeded by (seed, routing index, node), and uniform numbers are
// built from its bits, so a routing is the same on every machine and standard library.
// The Gathers of one router draw together (MoeRouting::draw): one generator per router.
// Cost: O(min(T * E, kTokenDrawLimit) + E) per node per routing. Limits: com.microsoft MoE/QMoE
// nodes and expert Gathers (the dense form reads what its nodes name); the cost of a node under
// a routing is its roofline with the routed bytes replaced (cost.h, host_cost.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hyperplan/cost.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan {

// Token-expert pairs one node draws one by one before it switches to per-expert draws.
inline constexpr int64_t kTokenDrawLimit = int64_t{1} << 16;

// One MoE node's routing inputs.
struct MoeRouting {
  NodeId node = kNoNode;
  int64_t experts = 0;            // E
  int64_t experts_per_token = 1;  // k
  int64_t tokens = 0;             // T
  // Per-token selection probability per expert (sum k); empty: uniform k/E.
  std::vector<double> selection_probability;
  // The node whose draw this routing is: `node` for a MoE/QMoE node; for an expert Gather the
  // producer of its indices (the router), so that a layer's Gathers of one TopK (gate, up,
  // down, their scales) meet the same experts in every sampled routing, as they do at run
  // time. kNoNode: `node`.
  NodeId draw = kNoNode;
};

// The graph's routed nodes whose shapes are known, in node order: com.microsoft MoE/QMoE
// nodes and the gather form's expert Gathers (src/core/expert_gather.h: a Gather along axis 0
// of a stored [E, ...] table by [..., k] indices), each with the graph's routing profile
// (Graph::expert_selection under its node name) where it covers every expert, else uniform.
std::vector<MoeRouting> FindMoeRoutings(const Graph& graph);

// The routing of routed node `node` as FindMoeRoutings gives it; nullopt for any other node
// or unknown shapes.
std::optional<MoeRouting> MoeRoutingOf(const Graph& graph, NodeId node);

// The routing input of routed node `node`: a MoE/QMoE node's router_probs, an expert Gather's
// indices (input 1 of both). kNoValue for any other node.
ValueId RoutingInputOf(const Graph& graph, NodeId node);

// Per-token selection probability per expert: k/E each under uniform routing, else the
// profile's frequencies scaled to sum k, each clamped to [0, 1].
std::vector<double> SelectionProbabilities(const MoeRouting& routing);

// By expert: 1 when `routing`'s tokens touch it in routing number `index` drawn with `seed`.
std::vector<char> SampleTouchedExperts(const MoeRouting& routing, uint64_t seed, int64_t index);

// Distinct experts `routing`'s tokens touch in routing number `index` drawn with `seed`.
int64_t SampleDistinctExperts(const MoeRouting& routing, uint64_t seed, int64_t index);

// The node's cost on `unit` when its tokens read `distinct` of its experts (the expectation
// of routing.h gives EstimateNodeCostOn's own answer).
NodeCost MoeNodeCostOn(ComputeUnit unit, const Graph& graph, NodeId node,
                       const HardwareProfile& profile, double distinct);

}  // namespace hyperplan
