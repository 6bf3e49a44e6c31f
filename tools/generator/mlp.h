// The SwiGLU feed-forward block of Llama: down(silu(gate(x)) * up(x)), with silu(z) = z *
// Sigmoid(z) because ai.onnx has no SiLU before opset 24; GPT-OSS's clamped variant where the
// config says (ModelConfig::swiglu_*).
// Cost: six nodes (nine with mlp_bias) and three [hidden, width] weights. Limits: no dropout.
#pragma once

#include <cstdint>
#include <string>

#include "decoder_context.h"

namespace hyperplan::gen {

// The gated activation of `gate` and `up` (same shape): silu(gate) * up, or the clamped form
// ModelConfig's swiglu_* fields describe (GPT-OSS). Nodes named "<p>/act_fn/...", "<p>/Mul".
std::string GluActivation(DecoderContext& ctx, const std::string& gate, const std::string& up,
                          const std::string& p);

// `weight_base` names the block's weights ("<base>.gate_proj.weight", ...), `node_prefix` its
// nodes; returns the down projection.
std::string SwiGlu(DecoderContext& ctx, const std::string& x, int64_t width,
                   const std::string& weight_base, const std::string& node_prefix);

}  // namespace hyperplan::gen
