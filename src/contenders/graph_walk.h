// Graph walks for the bounds: the nodes reached from one node along producers (or consumers),
// kept within a region the caller names (a MoE block's nodes, a range of steps).
// Cost: O(E log N) over the edges of the nodes reached. Limits: data edges only; a value
// updated in place links nothing here (host_lower_bound.cc's chain walk adds those edges).
#pragma once

#include <set>
#include <vector>

#include "hyperplan/graph.h"

namespace hyperplan::contenders {

// Every node `keep` accepts reached from `start` (itself included) along producers (`forward`:
// consumers).
template <typename Keep>
std::set<NodeId> ReachableWithin(const Graph& graph, NodeId start, bool forward, Keep keep) {
  std::set<NodeId> seen = {start};
  std::vector<NodeId> stack = {start};
  auto visit = [&](NodeId other) {
    if (other != kNoNode && keep(other) && seen.insert(other).second) stack.push_back(other);
  };
  while (!stack.empty()) {
    const Node& node = graph.nodes[stack.back()];
    stack.pop_back();
    for (ValueId value : forward ? node.outputs : node.inputs) {
      if (value == kNoValue) continue;
      if (!forward) visit(graph.values[value].producer);
      if (forward) {
        for (NodeId consumer : graph.values[value].consumers) visit(consumer);
      }
    }
  }
  return seen;
}

}  // namespace hyperplan::contenders
