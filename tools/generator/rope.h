// Rotary position embedding (RoPE) in Llama's rotate-half convention: angle(p, i) =
// p * inv_freq(i) for i < rope_dim / 2 (theta^(-2i / rope_dim), rescaled by rope_scaling:
// rope_scaling.h), and x' = x * cos + rotate_half(x) * sin, rotate_half(x) = concat(-x[half:],
// x[:half]). rope_dim is head_dim, or MLA's qk_rope_head_dim.
// Standard ops: one [max_positions, rope_dim] cos and sin table (halves repeated), gathered by
// position_ids once per model, then six nodes per rotated tensor (Split, Neg, Concat, Mul, Mul,
// Add). Contrib ops: [max_positions, rope_dim / 2] caches and one com.microsoft RotaryEmbedding
// per tensor (inputs input, position_ids, cos_cache, sin_cache; interleaved = 0).
// Cost: tables are O(max_positions * rope_dim) to make inline. Limits: DeepSeek's checkpoints
// rotate interleaved pairs; this rotates halves (the same function up to a fixed permutation of
// the rotary dims in q_b_proj's and kv_a_proj's weights, which are random here anyway).
#pragma once

#include <string>

#include "decoder_context.h"

namespace hyperplan::gen {

// Sets ctx.rope_cos / ctx.rope_sin (standard) or ctx.cos_cache / ctx.sin_cache (contrib).
void MakeRopeTables(DecoderContext& ctx);

// `x` is [batch, heads, sequence, rope_dim]; returns the rotated tensor, named `output` if given.
std::string ApplyRope(DecoderContext& ctx, const std::string& x, const std::string& node_prefix,
                      const std::string& output = {});

// `x` is [batch, sequence, heads * head_dim] (contrib ops).
std::string RotaryEmbedding(DecoderContext& ctx, const std::string& x,
                            const std::string& node_name);

}  // namespace hyperplan::gen
