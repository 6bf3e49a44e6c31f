// ZeRO-Offload's CPU optimizer step as a contender (issue 30): every parameter's optimizer
// update on the host, the optimizer state (and the fp32 master weights where the graph has
// them) homed there, the gradients crossing device -> host, the updated weights back.
//
// What ZeRO-Offload does (Ren et al., "ZeRO-Offload: Democratizing Billion-Scale Model
// Training", USENIX ATC 2021; DeepSpeed `zero_optimization.offload_optimizer.device: cpu`):
// forward and backward on the GPU; each gradient is offloaded to CPU memory as the backward
// produces it; the Adam step (DeepSpeedCPUAdam, vectorised) runs on the CPU over the fp32
// master weights and moments homed there; the updated parameters are copied back to the GPU
// for the next step. (Its one-step delayed update, which overlaps a step's update with the next
// step's backward, changes the training math and is not modelled.)
// Built here: every optimizer update (host_parts.h kOptimizer: each layer's Adam moment and
// step nodes, and the elementwise nodes from its gradients) on the host, which reads the gradient's
// crossing, updates the moments and the parameter in place on the host tier; everything else on the
// device, planned by the planner at the budget (placed_plan.h): the weights the next forward
// reads come back from their host copies as the planner fetches them.
// Cost: FindHostParts, one PlaceUnits and one planning. Limits: updates as host_parts.h finds
// them (a layer's; updates of weights of no layer stay on the device).
#pragma once

#include <cstdint>
#include <optional>

#include "contenders/context.h"
#include "contenders/placed_plan.h"

namespace hyperplan::contenders {

// host_pieces = pieces: the optimizer parts on the host. Throws like PlanOffload.
PlacementResult ZeroOffloadPlan(const ContenderContext& context, std::optional<int64_t> budget);

}  // namespace hyperplan::contenders
