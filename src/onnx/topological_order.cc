// Stable Kahn's algorithm with cycle extraction (see topological_order.h).
#include "onnx/topological_order.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace hyperplan::onnx_import {

namespace {

// Successor lists in the same compressed form as the predecessors, and each node's count of
// unplaced inputs.
struct SuccessorLists {
  std::vector<int32_t> offsets;
  std::vector<int32_t> nodes;
  std::vector<int32_t> pending;
};

SuccessorLists InvertEdges(const PredecessorLists& predecessors, int32_t node_count) {
  SuccessorLists successors;
  successors.pending.assign(node_count, 0);
  successors.offsets.assign(node_count + 1, 0);
  for (int32_t node = 0; node < node_count; ++node) {
    for (int32_t e = predecessors.offsets[node]; e < predecessors.offsets[node + 1]; ++e) {
      ++successors.offsets[predecessors.nodes[e] + 1];
      ++successors.pending[node];
    }
  }
  for (int32_t node = 0; node < node_count; ++node) {
    successors.offsets[node + 1] += successors.offsets[node];
  }
  successors.nodes.resize(predecessors.nodes.size());
  std::vector<int32_t> fill(successors.offsets.begin(), successors.offsets.end() - 1);
  for (int32_t node = 0; node < node_count; ++node) {
    for (int32_t e = predecessors.offsets[node]; e < predecessors.offsets[node + 1]; ++e) {
      successors.nodes[fill[predecessors.nodes[e]]++] = node;
    }
  }
  return successors;
}

// A cycle among the nodes left with unplaced inputs (`pending`), in data-flow order from its
// lowest index. Every such node has an unplaced predecessor, so walking predecessors must
// revisit a node.
std::vector<int32_t> FindCycle(const PredecessorLists& predecessors,
                               const std::vector<int32_t>& pending) {
  const auto node_count = static_cast<int32_t>(pending.size());
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
  std::vector<int32_t> cycle(walk.begin() + position[node], walk.end());
  std::reverse(cycle.begin(), cycle.end());
  // Start from the node that comes first in the model, so the report reads in model order.
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  return cycle;
}

}  // namespace

TopologicalSort SortTopologically(const PredecessorLists& predecessors) {
  const auto node_count = static_cast<int32_t>(predecessors.offsets.size()) - 1;
  SuccessorLists successors = InvertEdges(predecessors, node_count);
  std::vector<int32_t>& pending = successors.pending;
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
    for (int32_t e = successors.offsets[node]; e < successors.offsets[node + 1]; ++e) {
      if (--pending[successors.nodes[e]] == 0) ready.push(successors.nodes[e]);
    }
  }
  if (static_cast<int32_t>(result.order.size()) == node_count) return result;
  result.cycle = FindCycle(predecessors, pending);
  result.order.clear();
  return result;
}

}  // namespace hyperplan::onnx_import
