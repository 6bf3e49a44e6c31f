// MemoryAwareOrder: a topological order that keeps device bytes low (list scheduling).
//
// Among the nodes whose inputs are all produced, run the one whose step changes resident
// bytes the least: bytes of its outputs minus bytes of the inputs it is the last reader of
// (produced values that are not graph outputs; weights and graph inputs stay resident in the
// baseline, so reading them frees nothing). Ties go to the lower node id, which keeps the
// model's order wherever memory does not care. A node's priority improves as its inputs'
// other readers run; the heap takes a fresh entry and skips stale ones.
// Cost: O((nodes + uses) log nodes). Limits: greedy and myopic; PlanOffload plans this order
// and the model's and keeps the better plan, so it never makes a plan worse.
#pragma once

#include <vector>

#include "hyperplan/graph.h"

namespace hyperplan::planner {

std::vector<NodeId> MemoryAwareOrder(const Graph& graph);

}  // namespace hyperplan::planner
