// Layer summary: where each layer's weights, the other weights and the KV cache spend a plan's
// iteration, in one line for people: "layers 0-37 resident, 38-79 streamed from ddr;
// embed_tokens, lm_head and 3 more resident; kv cache resident".
//
// Layers are the groups layer streaming moves (hyperplan/layers.h: "layers.N." in weight
// names). A weight is streamed when a Prefetch brings it to the device during the iteration,
// from its home (the tier holding its copy at the start; else the Prefetch's source), and
// resident otherwise. A layer is "resident", "streamed from T" or "partly streamed from T"
// (1% of its bytes or more stay; less, such as the norm vectors a policy leaves, counts as
// streamed); runs of consecutive layers with the same state share a range.
// Weights outside every layer are listed by name (largest first, "model." and ".weight"
// dropped), and the KV cache (kv_cache values the run is given) is summarised as a whole.
// A model without layer names falls back to counts: "weights (no layer names): 12 resident,
// 30 streamed from ddr". Weights only host steps read (issue 30) are the host's: left out of
// those states (a layer with none left on the device is "on the host") and named last, by part
// (host_placement.h): "layers 0-31 resident; ...; layers 0-31 MLP, LM head on the host".
// Experts fetched after route end the line (expert_residency.h): "...; kv cache resident;
// experts: 3 of 8 resident in MoE layers 1-2, the rest fetched after route". Cost:
// O(values + steps + tier copies). Limits: by name only; the KV cache is not split per layer.
#pragma once

#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

// `graph` is the model the plan was made for (a loop plan names the model's own value ids).
std::string DescribeLayerResidency(const Graph& graph, const HardwareProfile& profile,
                                   const Plan& plan);

}  // namespace hyperplan
