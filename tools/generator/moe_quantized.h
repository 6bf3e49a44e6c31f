// The gather form's stacked expert weights in a quantized format, and the dequantization of
// the slices the router picked: a Gather of the k experts' codes and scales by index, then
// standard ops that widen them into the model type, [batch, sequence, k, K, N] (what a fused
// grouped GEMM reads in place: the codes of the picked experts, never the others).
//   int4 (the Q4 class): "<base>.weight_Q4" [E, K/32, 16, N] uint8, rows 2i and 2i+1 of each
//     32-row block in the low and high nibble of one byte, symmetric (code - 8), and
//     "<base>.weight_scales" [E, K/32, 1, N] in the model type: 4.5 bits a weight in bf16.
//   fp8: "<base>.weight" [E, K, N] float8e4m3fn codes (uint8) and "<base>.weight_scale_inv"
//     float32 [E, K/rows, 1, N/cols, 1] (DeepSeek-V3's 128 x 128 blocks): 1 byte a weight.
//   mxfp4: "<base>.weight_blocks" [E, K/32, 16, N] e2m1 codes, two a byte as int4, and
//     "<base>.weight_scales" [E, K/32, 1, N] uint8 E8M0 exponents (2^(s - 127)): 4.25 bits a
//     weight, GPT-OSS's bytes (its checkpoint orders them [E, N, K/32, 16]: the same bytes).
// Nibbles decode through two 256-entry tables (low and high nibble of every byte value), so
// no integer bit operation is needed (opset 17 has none).
// Cost: about 12 nodes per projection; inline weights cost O(E * K * N) to quantize.
// Limits: K must be a multiple of 32 (int4, mxfp4) or of the fp8 block rows, N of the fp8
// block columns (MoeFormProblem says so); the dequantized slices are materialized in the model
// type, one copy per projection, where a fused kernel dequantizes in registers.
#pragma once

#include <cstdint>
#include <string>

#include "decoder_context.h"

namespace hyperplan::gen {

// The picked experts' [.., k, K, N] weight of projection `proj` ("gate_proj", "up_proj",
// "down_proj": [K, N] = [hidden, inter] or [inter, hidden]) of the layer whose weights are
// `w`, in the build's quantized weight format. `indices` [batch, sequence, k] int64.
std::string GatheredQuantizedWeight(DecoderContext& ctx, const std::string& w, const char* proj,
                                    int64_t k, int64_t n, const std::string& indices,
                                    const std::string& prefix);

// The e2m1 value of a 4-bit code (0-7: 0, 0.5, 1, 1.5, 2, 3, 4, 6; 8-15: their negatives).
float E2m1Value(int code);

// The e2m1 code nearest `value` (saturating at +-6; ties to the smaller magnitude's code).
int E2m1Code(float value);

}  // namespace hyperplan::gen
