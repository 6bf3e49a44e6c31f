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
#include "hyperplan/loop.h"

namespace hyperplan::planner {

std::vector<NodeId> MemoryAwareOrder(const Graph& graph);

// EagerUpdateOrder: the model's order with each in-place update run as soon as its inputs are
// ready, as an optimizer fused into the backward pass does. Update-side nodes serve one
// in-place update alone (every output read only by nodes serving that same update, or an
// aliased output): the Adam chain of one parameter and its weight-gradient MatMul, not the
// data gradients (which serve every earlier layer's updates). Each runs right after the latest
// other node it depends on, the update's in-place writer after every other reader of the
// buffer it overwrites; the rest keep the model's order. Loops only (aliases); PlanOffload
// plans it beside the model's order where a budget binds and keeps the better plan.
// Cost: O(nodes + uses).
std::vector<NodeId> EagerUpdateOrder(const Graph& model, const std::vector<ValueAlias>& aliases);

}  // namespace hyperplan::planner
