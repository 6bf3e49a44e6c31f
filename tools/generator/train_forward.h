// The training step's forward pass: the same Llama layer as the prefill form (RMSNorm,
// grouped-query attention with RoPE and an eager causal softmax, SwiGLU, residual Adds, on
// standard ops), built so that every tensor the backward pass reads is named in a "stash".
// Those stashed activations are what a training step keeps alive from forward to backward:
// the large offload candidates. The [batch, heads, sequence, sequence] attention probabilities
// are among them only with --train-attention stash (eager attention); by default the backward
// recomputes them (train_backward.h) and the forward's Softmax output is read by the forward's
// probs x values MatMul alone.
// Cost: about 45 nodes per layer. Limits: no dropout; no activation checkpointing beyond the
// attention probabilities (every other stashed tensor is kept); no fused attention.
#pragma once

#include <cstdint>
#include <string>

#include "train_context.h"

namespace hyperplan::gen {

struct NormStash {
  std::string x, normalized, rms, weight, out;
};

struct AttentionStash {
  std::string x;  // the normed input the projections read
  std::string q_rotated, keys_t, values_r, merged;
  std::string probs;  // the forward's Softmax output; the backward reads it in the stash form only
  std::string wq, wk, wv, wo;
};

struct MlpStash {
  std::string x;  // the normed input
  std::string gate, up, sigmoid, silu, gated;
  std::string w_gate, w_up, w_down;
};

struct LayerStash {
  NormStash input_norm;
  AttentionStash attention;
  NormStash post_norm;
  MlpStash mlp;
};

NormStash TrainRmsNorm(TrainContext& t, const std::string& x, const std::string& weight_name,
                       const std::string& p);

// A layer's attention probabilities from its rotated queries and repeated, transposed keys:
// MatMul q k^T, Mul by 1/sqrt(head_dim), Add the causal mask, Softmax along -1, named under
// `p` (p/qk/MatMul ... p/Softmax). The forward's, and the backward's recompute (train_backward.h)
// with the same ops on the same inputs, so the same values.
std::string AttentionProbs(TrainContext& t, const std::string& q_rotated, const std::string& keys_t,
                           const std::string& p);

// One layer over `hidden` ([batch, sequence, hidden]); returns the layer's output.
std::string TrainLayerForward(TrainContext& t, int64_t layer, const std::string& hidden,
                              LayerStash* stash);

}  // namespace hyperplan::gen
