// RMSNorm, y = x / sqrt(mean(x^2, last axis) + epsilon) * weight, in three spellings:
// standard ops (Mul, ReduceMean, Add, Sqrt, Div, Mul), ONNX Runtime's SimplifiedLayerNormalization
// (registered by ONNX Runtime in the ai.onnx domain, not com.microsoft, exactly as
// onnxruntime-genai writes it), and com.microsoft SkipSimplifiedLayerNormalization, which also
// adds the residual and returns the sum.
// Cost: six nodes (standard) or one; one [width] weight (hidden, or an MLA latent's rank),
// 1 +- 0.1 uniform, keyed by its name.
// Limits: the norm runs in the model's element type (no float32 upcast).
#pragma once

#include <string>

#include "decoder_context.h"

namespace hyperplan::gen {

// `width`: the normalized axis's size (the weight's); 0 means hidden.
std::string RmsNorm(DecoderContext& ctx, const std::string& x, const std::string& weight_name,
                    const std::string& node_prefix, int64_t width = 0);

std::string SimplifiedLayerNorm(DecoderContext& ctx, const std::string& x,
                                const std::string& weight_name, const std::string& node_name);

struct SkipNormResult {
  std::string normed;    // output 0
  std::string residual;  // output 3: x + skip
};
SkipNormResult SkipSimplifiedLayerNorm(DecoderContext& ctx, const std::string& x,
                                       const std::string& skip, const std::string& weight_name,
                                       const std::string& node_name);

}  // namespace hyperplan::gen
