// Self-attention of one layer. Standard ops: q/k/v projections, reshape to heads, rotary on q
// and k, the KV cache (decode: Concat of past and new along the sequence axis; the result is the
// present.{i} output), KV heads repeated to the query heads (Unsqueeze, Expand, Reshape, as
// Llama's repeat_kv), scaled scores plus the causal mask, Softmax, weighted values and the output
// projection. Contrib ops: 4-bit projections, com.microsoft RotaryEmbedding on q and k, and one
// com.microsoft GroupQueryAttention (do_rotary = 0) whose outputs 1 and 2 are present.{i}.
// Cost: about 40 nodes per layer (standard) or 8 (contrib). Limits: no attention bias, no
// sliding window, no padding; the repeated KV heads are materialized as a real value.
#pragma once

#include <string>

#include "decoder_context.h"

namespace hyperplan::gen {

// Returns the output projection of attention over `x` ([batch, sequence, hidden]).
std::string Attention(DecoderContext& ctx, int64_t layer, const std::string& x);

}  // namespace hyperplan::gen
