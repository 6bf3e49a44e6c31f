// Multi-head latent attention (DeepSeek-V2/V3) in standard ops, in the absorbed form that
// serving runtimes (DeepSeek's inference code, vLLM, SGLang, FlashMLA) run, so that the cache
// and the weights have the real model's sizes:
//   queries: q_a_proj [hidden, q_lora_rank], RMSNorm (q_a_layernorm), q_b_proj [q_lora_rank,
//     heads * (nope + rope)] (or q_proj straight from hidden when q_lora_rank is 0), split per
//     head into q_nope and q_pe; rotary on q_pe;
//   cache entry: kv_a_proj_with_mqa [hidden, kv_lora_rank + rope] split into the latent
//     (RMSNorm kv_a_layernorm) and one rotary key shared by every head; the two concatenated
//     are one cache row of kv_lora_rank + rope values per token: past_key_values.{i}.key /
//     present.{i}.key [batch, 1, past | total, kv_lora_rank + rope] (no .value: the latent is
//     both the keys' and the values' source, as in FlashMLA's cache);
//   absorbed attention: kv_b_proj's two halves stored apart in the layouts the products need,
//     kv_b_proj.weight_uk [heads, nope, kv_lora_rank] and kv_b_proj.weight_uv [heads,
//     kv_lora_rank, v] (together exactly kv_b_proj's elements); q_nope @ W_UK joins q_pe as a
//     [.., kv_lora_rank + rope] query against the cache rows; probabilities times the cache's
//     latent columns, then @ W_UV per head; o_proj [heads * v, hidden].
// Scale: 1 / sqrt(nope + rope), times mscale^2 under YaRN with mscale_all_dim (DeepSeek-V3:
// ln(40) * 0.1 + 1 squared).
// Cost: about 35 nodes and 8 weights per layer. Limits: standard ops only (no contrib op runs
// MLA); the cache transpose and its latent slice are materialized as values (a fused kernel
// reads the cache in place); rotary on halves, not DeepSeek's interleaved pairs (rope.h).
#pragma once

#include <cstdint>
#include <string>

#include "decoder_context.h"

namespace hyperplan::gen {

// Returns o_proj of latent attention over `x` ([batch, sequence, hidden]).
std::string LatentAttentionBlock(DecoderContext& ctx, int64_t layer, const std::string& x);

// Softmax scale of latent attention (see above).
float LatentAttentionScale(const ModelConfig& config);

}  // namespace hyperplan::gen
