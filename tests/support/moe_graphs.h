// Test support: one-node com.microsoft MoE graphs whose bytes and FLOPs are hand arithmetic.
#pragma once

#include "support/tiny_graph.h"

namespace hyperplan::testing {

// A float32 com.microsoft MoE, SwiGLU with fc1 (gate), fc3 (up) and fc2 (down): hidden 16,
// inter 32, E = 8, k = 2, `tokens` rows. Each expert matrix is 16 * 32 = 512 weights (2048 B).
inline Graph FloatMoe(int64_t tokens) {
  Graph graph;
  const ValueId x = Tensor(graph, "x", {1, tokens, 16});
  const ValueId router = Tensor(graph, "router", {tokens, 8});
  const ValueId fc1 = Tensor(graph, "fc1", {8, 32, 16});
  const ValueId fc2 = Tensor(graph, "fc2", {8, 16, 32});
  const ValueId fc3 = Tensor(graph, "fc3", {8, 32, 16});
  const ValueId y = Tensor(graph, "y", {1, tokens, 16});
  const NodeId moe = Op(graph, "moe", "MoE", {x, router, fc1, fc2, fc3}, {y});
  graph.nodes[moe].domain = "com.microsoft";
  graph.nodes[moe].int_attributes["k"] = 2;
  return graph;
}

}  // namespace hyperplan::testing
