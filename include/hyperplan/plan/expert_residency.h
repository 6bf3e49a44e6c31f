// Resident experts per MoE layer (issue 31): how many of a com.microsoft MoE/QMoE node's
// experts a plan keeps on the device for the whole iteration, for the nodes whose stacked
// expert tensors are fetched after route (docs/design.md "Fetch after route"). The KV cache
// and the experts compete for the same device memory: the planner keeps experts resident in
// the room the budget leaves over the live peak (planner/expert_placement.h), so a longer
// context (a larger KV cache) leaves fewer, and `fit` and `plan` show it on their residency
// line: "experts: 3 of 8 resident in MoE layers 1-2, the rest fetched after route".
//
// An expert counts as resident when every stacked expert tensor of its node holds it on the
// device the whole iteration: a partial residency listing it (ResidentInterval::experts), or a
// tensor no Prefetch brings (whole resident). The gather form's expert Gathers of one router
// (routing_samples.h MoeRouting::draw: gate, up, down, their scales) count as one node, the
// first of them. A node none of whose tensors is routed is left out (the layer line already
// says resident or streamed), as is a node on the host.
// Cost: O(steps + residencies + MoE nodes x E). Limits: layers by weight name (layers.h); a
// node whose tensors have no layer name is counted apart ("in 2 MoE nodes without a layer").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

struct MoeLayerExperts {
  int32_t layer = -1;  // N of "layers.N." in its expert tensors' names; -1: none
  NodeId node = kNoNode;
  int64_t experts = 0;   // E
  int64_t resident = 0;  // experts held on the device the whole iteration
};

// Each device MoE/QMoE node (or router of expert Gathers) with a routed Prefetch, in plan
// order.
std::vector<MoeLayerExperts> FindResidentExperts(const Graph& graph, const HardwareProfile& profile,
                                                 const Plan& plan);

// "experts: 3 of 8 resident in MoE layers 1-2, 2 of 8 in layer 3, the rest fetched after
// route"; "" when `layers` is empty.
std::string DescribeResidentExperts(const std::vector<MoeLayerExperts>& layers);

}  // namespace hyperplan
