// One projection x @ W in the stored weight format of the build (BuildOptions::weights):
// plain: a standard MatMul on a [in, out] weight in the model's element type;
// int4 / int8: ONNX Runtime's com.microsoft MatMulNBits on blocks along K with per-block
// scales, attributes K, N, bits, block_size and accuracy_level as onnxruntime-genai writes them
// ("<base>.weight_Q4" or "_Q8" [out, k_blocks, block * bits / 8] uint8, "<base>.weight_scales"
// [out, k_blocks]);
// fp8: "<base>.weight" [in, out] of float8e4m3fn codes (uint8) and "<base>.weight_scale_inv"
// float32 [in / 128, 1, out / 128, 1] (rounded up), dequantized into the model type before a
// plain MatMul: Cast, (Pad), Reshape into blocks, Mul by the scales, Reshape, (Slice).
// With a bias ("<base>.bias", [out], in the model's element type, never quantized), one Add
// follows: "<node prefix>/Add" beside "<node prefix>/MatMul".
// Cost: one to nine nodes, one to three initializers; inline weights cost O(in * out) to make.
// Limits: nbits weights are symmetric (default zero point); fp8's Cast reads the codes as
// integers (opset 17 has no float8 type), so an inline fp8 model has the right bytes and
// shapes but not the checkpoint's values; a fused runtime dequantizes in registers, where this
// graph materializes the dequantized weight (one model-type copy per projection).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "decoder_context.h"

namespace hyperplan::gen {

// The op name projections carry in node names: "/MatMulNBits" for int4/int8 weights, else
// "/MatMul".
const char* ProjectionOp(const DecoderContext& ctx);

// `weight_base` is the weight's name without ".weight" (e.g. "model.layers.0.mlp.up_proj");
// values are uniform in +-1/sqrt(in), keyed by that name, so every format draws the same weight.
// fp8 leaves "lm_head" in the model type, as DeepSeek-V3's fp8 checkpoint does.
std::string Linear(DecoderContext& ctx, const std::string& x, int64_t in_features,
                   int64_t out_features, const std::string& weight_base,
                   const std::string& node_name, const std::string& output = {});

// Linear, then + bias when `bias` (x @ W + b, as torch.nn.Linear with bias=True).
std::string LinearMaybeBias(DecoderContext& ctx, const std::string& x, int64_t in_features,
                            int64_t out_features, const std::string& weight_base,
                            const std::string& node_name, bool bias);

// A weight of `dims` ([..., K, N], values uniform in +-bound keyed by `name`) stored as fp8
// codes with block scales ("<name>_scale_inv") and dequantized into the model type by nodes
// named "<prefix>/...". Returns the dequantized value.
std::string Fp8Weight(DecoderContext& ctx, const std::string& name,
                      const std::vector<int64_t>& dims, float bound, const std::string& prefix);

}  // namespace hyperplan::gen
