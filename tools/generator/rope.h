// Rotary position embedding (RoPE) in Llama's rotate-half convention: angle(p, i) =
// p * theta^(-2i / head_dim) for i < head_dim / 2, and x' = x * cos + rotate_half(x) * sin,
// rotate_half(x) = concat(-x[half:], x[:half]).
// Standard ops: one [max_positions, head_dim] cos and sin table (halves repeated), gathered by
// position_ids once per model, then six nodes per rotated tensor (Split, Neg, Concat, Mul, Mul,
// Add). Contrib ops: [max_positions, head_dim / 2] caches and one com.microsoft RotaryEmbedding
// per tensor (inputs input, position_ids, cos_cache, sin_cache; interleaved = 0).
// Cost: tables are O(max_positions * head_dim) to make inline. Limits: no rope scaling (Llama
// 3.1's frequency rescaling changes only table values, which real-scale presets never write).
#pragma once

#include <string>

#include "decoder_context.h"

namespace hyperplan::gen {

// Sets ctx.rope_cos / ctx.rope_sin (standard) or ctx.cos_cache / ctx.sin_cache (contrib).
void MakeRopeTables(DecoderContext& ctx);

// `x` is [batch, heads, sequence, head_dim]; returns the rotated tensor, named `output` if given.
std::string ApplyRope(DecoderContext& ctx, const std::string& x, const std::string& node_prefix,
                      const std::string& output = {});

// `x` is [batch, sequence, heads * head_dim] (contrib ops).
std::string RotaryEmbedding(DecoderContext& ctx, const std::string& x,
                            const std::string& node_name);

}  // namespace hyperplan::gen
