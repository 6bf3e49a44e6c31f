// PrepEarlyOrder: for a unit placement (some nodes on the host), the model's order with each
// weight's preparation moved into the device's wait for the host.
//
// A device node that reads no activation (its inputs are weights not updated in place, or the
// outputs of such nodes: an fp8 weight's dequantization, Cast and Mul by its block scales,
// ahead of its MatMul) may run whenever the device is free. In the model's order it runs just
// before its MatMul, so where the host runs a layer's routed experts and the device then waits
// for their output (the first device node reading a host step's output: the wait), the next
// layer's dequantizations run after the wait, on the chain, while the device sat idle in it.
// Each such node that lies between a wait and the next host step (so a host run follows it
// before the next wait) moves to just before that wait, in its order among the moved nodes:
// the device runs it while the host runs the part before the wait. Nodes after the last host
// step stay (moving them would hold a whole device tail's weights at once).
// Cost: O(nodes + uses). Limits: one wait back, not further; the planner plans this order
// beside the model's for the chosen placement and keeps it only when its plan is faster.
#pragma once

#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan::planner {

// `order` (a topological order of `graph`) with the moves above; `node_unit` by NodeId.
std::vector<NodeId> PrepEarlyOrder(const Graph& graph, const std::vector<NodeId>& order,
                                   const std::vector<ComputeUnit>& node_unit);

}  // namespace hyperplan::planner
