// The backward pass of one training-step layer: MLP, post-attention norm, attention (softmax
// and both attention matmuls, repeat_kv, RoPE, the three projections), input norm and the two
// residual branches, reading only what the forward pass stashed.
// Attention probabilities (BuildOptions::train_attention): in the recompute form (the default)
// the backward rebuilds them under /backward/layers.N/attn/recompute/ from the stashed rotated
// queries and repeated keys with the forward's own function (train_forward.h AttentionProbs: MatMul
// q k^T, Mul by the scale, Add the causal mask, Softmax along -1); the same ops on the same inputs,
// so the gradients are identical to the stash form's by construction. That is what PyTorch SDPA,
// FlashAttention(-2) and torch.utils.checkpoint'd eager attention do, save one difference:
// FlashAttention keeps the scores in on-chip tiles and saves a per-row log-sum-exp, never
// materialising the [batch, heads, sequence, sequence] chain; here each step of the chain is a
// tensor the cost model charges (memory traffic and bytes), so the recompute form is costed
// conservatively. In the stash form the backward reads the forward's Softmax output (eager
// attention). Cost: about 90 nodes per layer (4 more to recompute). Limits: see train_grads.h.
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
