// Attention head layout helpers shared by the inference attention and the training step:
// splitting a projection into heads, and repeating the KV heads to the query heads as Llama's
// repeat_kv does (the repeated tensor is materialised, as an eager runtime does).
// Cost: two to five nodes each. Limits: shapes stay symbolic only in batch and sequence
// (Reshape copies them with 0 entries).
#pragma once

#include <cstdint>
#include <string>

#include "decoder_context.h"

namespace hyperplan::gen {

// [batch, sequence, heads * head_dim] -> [batch, heads, sequence, head_dim].
std::string SplitHeads(GraphBuilder& g, const std::string& x, int64_t heads, int64_t head_dim,
                       const std::string& p, const std::string& output = {});

// The cache [batch, kv_heads, total, head_dim] repeated to [batch, heads, total, head_dim]
// (keys come back transposed: [batch, heads, head_dim, total], ready for q @ k^T).
std::string RepeatKv(DecoderContext& ctx, const std::string& cache, bool keys,
                     const std::string& p);

}  // namespace hyperplan::gen
