// HostEarlyOrder: for a unit placement (some nodes on the host), `order` with each node of the
// host's tail (after the order's last device node) that reads no value computed this
// iteration moved to the order's start, where the host is idle.
//
// The host lane runs its steps in the order's sequence, so a host node runs no earlier than its
// place in the order. In the eager-update order (order.h) an update's nodes that read only
// optimizer state and constants sit just before the node that consumes them: Adam's decay of
// its moments (exp_avg * beta1, exp_avg_sq * beta2) runs after the gradient arrives. In the
// tail that is on the iteration's critical path: nothing else is left to overlap it. With
// every update on the host (Llama-3-8B training on rtx-4090-xeon-2s) the forward pass leaves
// the host idle (no host step before 2.05 s of a 4.57 s iteration), and the token table's
// update, which cannot start before the backward pass's last node, ran 139 ms after the
// device's end, 17 ms of it the two decays; the zeros its gradient is scattered into (2 ms)
// likewise. Tail nodes only: moving every update's decays (64 GB of fp32 moments) to the start
// made that plan 4.57 -> 5.30 s (the backward pass's in-link went idle between fetches).
// On the loop graph (hyperplan/loop.h) an in-place update writes its state's own value
// (`Value::written_by`), which readers after the writer read as this iteration's update. A node
// moves when it is on the host and in the tail, writes no value in place (a step counter's
// increment reads only state, and that state's other readers must precede it), and each input
// is a graph input, an initializer, loop state read before its writer, or the output of a node
// that moves (decided in order, producers first). Moving such a node earlier keeps the order
// topological and every reader of an in-place-updated value before its writer. The moved
// nodes keep their relative order.
// Cost: O(nodes + uses). Limits: the moved outputs stay on the host's tier from the start
// until their readers run (the token table's: 4.2 GB of DDR); planner.cc composes it into the
// eager order of every update on the host (WithEveryUpdateOnHost) alone, kept only where that
// plan wins (on ZeRO-Offload's placement, without the table's lookup and scatter, it lost).
#pragma once

#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan::planner {

// `order` (a topological order of `graph`) with the moves above; `node_unit` by NodeId (empty:
// every node on the device, nothing moves).
std::vector<NodeId> HostEarlyOrder(const Graph& graph, const std::vector<NodeId>& order,
                                   const std::vector<ComputeUnit>& node_unit);

}  // namespace hyperplan::planner
