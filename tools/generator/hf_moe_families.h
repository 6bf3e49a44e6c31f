// The mixture-of-experts families of hf_config.h that are not Mixtral or DeepSeek: Qwen3-MoE
// (model_type qwen3_moe) and GPT-OSS (gpt_oss), read into the generator's ModelConfig.
//   qwen3_moe: head_dim, per-head q/k RMSNorm (always), num_experts of moe_intermediate_size,
//     num_experts_per_tok, norm_topk_prob (transformers' default false), decoder_sparse_step
//     and mlp_only_layers (those layers keep a dense MLP of intermediate_size), no shared
//     expert; sliding_window only with use_sliding_window, as qwen2.
//   gpt_oss: q/k/v/o biases (attention_bias), one attention sink per head, layer_types
//     (sliding_attention layers see the last sliding_window positions), num_local_experts of
//     intermediate_size with biases, experts_per_token (or num_experts_per_tok), a router with
//     a bias (softmax over the top k logits: the renormalized softmax top-k), GPT-OSS's clamped
//     SwiGLU (swiglu_limit, alpha 1.702, up + 1), quantization_config mxfp4 (experts only).
// Cost: a few field lookups. Limits: gate and up are separate tensors where the checkpoint
// fuses them interleaved (gate_up_proj): the same elements and bytes; see the notes each
// family adds for what the graph approximates.
#pragma once

#include "hf_config.h"
#include "hf_fields.h"

namespace hyperplan::gen {

void ReadQwen3Moe(const HfFields& f, ModelConfig& c);
void ReadGptOss(const HfFields& f, ModelConfig& c, HfConfig& out);

}  // namespace hyperplan::gen
