// One projection x @ W: a standard MatMul on a [in, out] weight, or (contrib ops) ONNX Runtime's
// com.microsoft MatMulNBits on 4-bit blocks with per-block scales, attributes K, N, bits,
// block_size and accuracy_level as onnxruntime-genai writes them.
// With a bias ("<base>.bias", [out], in the model's element type, never quantized), one Add
// follows: "<node prefix>/Add" beside "<node prefix>/MatMul".
// Cost: one or two nodes, one to three initializers; inline weights cost O(in * out) to make.
// Limits: contrib weights are 4-bit symmetric (default zero point 8).
#pragma once

#include <cstdint>
#include <string>

#include "decoder_context.h"

namespace hyperplan::gen {

// `weight_base` is the weight's name without ".weight" (e.g. "model.layers.0.mlp.up_proj");
// values are uniform in +-1/sqrt(in), keyed by that name, so both op sets draw the same weight.
std::string Linear(DecoderContext& ctx, const std::string& x, int64_t in_features,
                   int64_t out_features, const std::string& weight_base,
                   const std::string& node_name, const std::string& output = {});

// Linear, then + bias when `bias` (x @ W + b, as torch.nn.Linear with bias=True).
std::string LinearMaybeBias(DecoderContext& ctx, const std::string& x, int64_t in_features,
                            int64_t out_features, const std::string& weight_base,
                            const std::string& node_name, bool bias);

}  // namespace hyperplan::gen
