// Decoder pieces the field's host placements move (issue 30), selected on the problem's graph:
// a whole decoder layer (llama.cpp's -ngl), a layer's attention core over its KV cache
// (FlexGen's CPU attention) and a parameter's optimizer update (ZeRO-Offload's CPU Adam).
//
// - Whole layer N: the steps after the previous layer's last weight read (for the first layer,
//   after the token embedding's step, host_parts.h, or from its own first weight read when the
//   embedding is no part) up to layer N's last weight read (layers.h: "layers.N."), so the
//   residual add closing layer N-1 and the norm opening N fall in N; the final norm and the LM
//   head fall in no layer. Only where each layer is visited once (a forward pass, not training);
//   nodes reading another layer's weights are left out.
// - Attention core of layer N: the nodes of its whole layer that read or write (in place, loop.h)
//   a KV cache value, and every node of the layer reached from them along consumers without
//   reading a weight: GroupQueryAttention alone in the fused form; the K/V appends, scores,
//   softmax and weighted values in the eager form. The projections (they read weights) are not
//   in it.
// - Optimizer update of a parameter: the elementwise nodes (Add, Sub, Mul, Div, Sqrt, ...) from
//   which the in-place writes of a weight or of optimizer state (loop.h "optimizer update") are
//   reached backwards through elementwise nodes only: Adam's moments, their square root and the
//   step, not the Gemm or ReduceSum that computes the gradient, which then crosses to the host.
// Cost: O(nodes + uses) for each. Limits: names for layers (layers.h's rule), op types for
// the update's elementwise walk; every selection may be empty.
#pragma once

#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/planner/problem.h"

namespace hyperplan::contenders {

struct DecoderLayer {
  int layer = -1;             // the N of "layers.N."
  std::vector<NodeId> nodes;  // in step order
  Step first_step = 0;
  Step last_step = 0;
};

// The whole layers, in step order; empty when some layer is visited twice.
std::vector<DecoderLayer> FindDecoderLayers(const Problem& problem);

// Layer's attention core, in step order (see above); empty when it touches no KV cache.
std::vector<NodeId> AttentionCore(const Problem& problem, const DecoderLayer& layer);

// The optimizer update of each parameter written in place, in step order of its last node.
std::vector<std::vector<NodeId>> OptimizerUpdates(const Problem& problem);

// Whether every weight and persistent value `nodes` read or write is homed on the host
// compute tier, as a host step reading them from home needs.
bool HomedOnHost(const Problem& problem, const std::vector<NodeId>& nodes);

}  // namespace hyperplan::contenders
