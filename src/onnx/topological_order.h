// Topological order: Kahn's algorithm that keeps the model's order wherever it can.
//
// Ready nodes are taken lowest original index first, so a graph already in order comes back
// unchanged and an out-of-order one moves as little as possible (a stable sort). When nodes
// remain that never become ready, they contain a cycle; one is extracted by walking
// predecessors among the remaining nodes until a node repeats. Cost: O(n log n + edges).
#pragma once

#include <cstdint>
#include <vector>

namespace hyperplan::onnx_import {

// Node i's predecessors are nodes[offsets[i] .. offsets[i + 1]); duplicates are allowed.
struct PredecessorLists {
  std::vector<int32_t> offsets;  // node count + 1 entries
  std::vector<int32_t> nodes;
};

struct TopologicalSort {
  std::vector<int32_t> order;  // every node once, or empty when there is a cycle
  // When `order` is empty: a cycle in data-flow order (each feeds the next, the last feeds the
  // first), starting at its lowest index.
  std::vector<int32_t> cycle;
};

TopologicalSort SortTopologically(const PredecessorLists& predecessors);

}  // namespace hyperplan::onnx_import
