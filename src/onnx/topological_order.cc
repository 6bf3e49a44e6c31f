// Stable Kahn's algorithm with cycle extraction (see topological_order.h).
#include "onnx/topological_order.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace hyperplan::onnx_import {

TopologicalSort SortTopologically(const PredecessorLists& predecessors) {
  const auto node_count = static_cast<int32_t>(predecessors.offsets.size()) - 1;
  // Successor lists in the same compressed form, and each node's count of unplaced inputs.
  std::vector<int32_t> pending(node_count, 0);
  std::vector<int32_t> successor_offsets(node_count + 1, 0);
  for (int32_t node = 0; node < node_count; ++node) {
    for (int32_t e = predecessors.offsets[node]; e < predecessors.offsets[node + 1]; ++e) {
      ++successor_offsets[predecessors.nodes[e] + 1];
      ++pending[node];
    }
  }
  for (int32_t node = 0; node < node_count; ++node) {
    successor_offsets[node + 1] += successor_offsets[node];
  }
  std::vector<int32_t> successors(predecessors.nodes.size());
  std::vector<int32_t> fill(successor_offsets.begin(), successor_offsets.end() - 1);
  for (int32_t node = 0; node < node_count; ++node) {
    for (int32_t e = predecessors.offsets[node]; e < predecessors.offsets[node + 1]; ++e) {
      successors[fill[predecessors.nodes[e]]++] = node;
    }
  }

  std::priority_queue<int32_t, std::vector<int32_t>, std::greater<>> ready;
  for (int32_t node = 0; node < node_count; ++node) {
    if (pending[node] == 0) ready.push(node);
  }
  TopologicalSort result;
  result.order.reserve(node_count);
  while (!ready.empty()) {
    const int32_t node = ready.top();
    ready.pop();
    result.order.push_back(node);
    for (int32_t e = successor_offsets[node]; e < successor_offsets[node + 1]; ++e) {
      if (--pending[successors[e]] == 0) ready.push(successors[e]);
    }
  }
  if (static_cast<int32_t>(result.order.size()) == node_count) return result;

  // Every node left has an unplaced predecessor, so walking predecessors must revisit a node.
  int32_t start = 0;
  while (pending[start] == 0) ++start;
  std::vector<int32_t> walk;
  std::vector<int32_t> position(node_count, -1);
  int32_t node = start;
  while (position[node] < 0) {
    position[node] = static_cast<int32_t>(walk.size());
    walk.push_back(node);
    for (int32_t e = predecessors.offsets[node]; e < predecessors.offsets[node + 1]; ++e) {
      if (pending[predecessors.nodes[e]] > 0) {
        node = predecessors.nodes[e];
        break;
      }
    }
  }
  // walk[position[node]..] runs against the data flow; reverse it.
  result.cycle.assign(walk.begin() + position[node], walk.end());
  std::reverse(result.cycle.begin(), result.cycle.end());
  // Start from the node that comes first in the model, so the report reads in model order.
  std::rotate(result.cycle.begin(), std::min_element(result.cycle.begin(), result.cycle.end()),
              result.cycle.end());
  result.order.clear();
  return result;
}

}  // namespace hyperplan::onnx_import
