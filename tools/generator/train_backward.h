// The backward pass of one training-step layer: MLP, post-attention norm, attention (softmax
// and both attention matmuls, repeat_kv, RoPE, the three projections), input norm and the two
// residual branches, reading only what the forward pass stashed.
// Cost: about 90 nodes per layer. Limits: see train_grads.h.
#pragma once

#include <cstdint>
#include <string>

#include "train_context.h"
#include "train_forward.h"

namespace hyperplan::gen {

// `dy` is the gradient of the layer's output; returns the gradient of its input.
std::string TrainLayerBackward(TrainContext& t, int64_t layer, const LayerStash& stash,
                               const std::string& dy);

}  // namespace hyperplan::gen
