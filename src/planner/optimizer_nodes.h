// Optimizer nodes: which nodes of a loop graph make up the update of each layer's weights
// (the kOptimizer host part, planner/host_parts.h: ZeRO-Offload's CPU Adam).
//
// Seeds: a node that writes a weight or an optimizer state value in place (Value::written_by,
// loop.h) or reads a persistent optimizer state value; its layer is that value's
// (LayerOfWeight, layers.h; -1 for weights outside layers: the embedding, the LM head, the
// final norm). Then, to a fixed point: down, a node whose inputs are all the update's outputs
// of one layer or constants of no part (Adam's sqrt, epsilon, ratio and step size); up, the
// producer of an update node's input when every output it has feeds only that layer's update
// and it is an elementwise op (Cast, Mul, Add, Sqrt, ...) over the parameter (each input a
// constant of no part, a scalar, or of its output's shape: the gradient's cast and scalings),
// which stops at the backward Gemm that computes the gradient. A node seeded by two layers
// belongs to none.
// Cost: O((nodes + uses) * passes), a pass per level the closure climbs (a few in Adam).
// Limits: a fused optimizer node (ORT's AdamWOptimizer over sequences) is one node of no layer
// when its state is sequences of every layer.
#pragma once

#include <optional>
#include <vector>

#include "hyperplan/graph.h"

namespace hyperplan::planner {

// By NodeId: the layer whose update the node belongs to (-1: weights outside layers), or none.
std::vector<std::optional<int>> OptimizerLayers(const Graph& loop_graph,
                                                const std::vector<uint8_t>& persistent);

}  // namespace hyperplan::planner
