// Self-attention of one layer. Standard ops: q/k/v projections, reshape to heads, rotary on q
// and k, the KV cache (decode: Concat of past and new along the sequence axis; the result is the
// present.{i} output), KV heads repeated to the query heads (Unsqueeze, Expand, Reshape, as
// Llama's repeat_kv), scaled scores plus the causal mask, Softmax, weighted values and the output
// projection. Contrib ops: 4-bit projections, com.microsoft RotaryEmbedding on q and k, and one
// com.microsoft GroupQueryAttention (do_rotary = 0) whose outputs 1 and 2 are present.{i}, with
// an int8/float8 cache and its float32 k/v scales (--kv-dtype) or one shared max_length buffer
// (--kv-layout shared) if asked.
// Optional q/k/v and output biases (an Add after the projection), and a sliding window (the
// window mask, or GroupQueryAttention's local_window_size). Models with multi-head latent
// attention go to mla_attention.h instead.
// Cost: about 40 nodes per layer (standard) or 8 (contrib). Limits: no padding; the repeated
// KV heads are materialized as a real value; a sliding window masks old keys but the cache
// still keeps them (past_sequence is the caller's to bound, as a rolling cache would).
#pragma once

#include <string>

#include "decoder_context.h"

namespace hyperplan::gen {

// Returns the output projection of attention over `x` ([batch, sequence, hidden]).
std::string Attention(DecoderContext& ctx, int64_t layer, const std::string& x);

}  // namespace hyperplan::gen
