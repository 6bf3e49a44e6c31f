// A Hugging Face config.json as the generator's ModelConfig, so that a user plans a model they
// have not exported: `hyperplan-gen --from-hf-config config.json`.
//
// model_type llama, mistral, qwen2, mixtral, deepseek_v3, qwen3_moe and gpt_oss (the last two in
// hf_moe_families.h), with their field names:
//   all: hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
//     num_key_value_heads (default: the head count), head_dim (default hidden / heads),
//     vocab_size, max_position_embeddings (rotary table rows), rope_theta, rope_scaling
//     (default, linear, dynamic, llama3, yarn), rms_norm_eps, tie_word_embeddings, hidden_act
//     (must be silu: the layers are SwiGLU), torch_dtype (or dtype);
//   llama: attention_bias (q/k/v/o biases), mlp_bias;
//   mistral, mixtral: sliding_window (every layer; null for none; a mistral config without the
//     key gets transformers' default, 4096);
//   qwen2: q/k/v biases always; sliding_window (default 4096) from max_window_layers (default
//     28) on, only when use_sliding_window is true;
//   mixtral: num_local_experts and num_experts_per_tok (every layer; experts of
//     intermediate_size, softmax top-k renormalized);
//   deepseek_v3: multi-head latent attention (q_lora_rank, kv_lora_rank, qk_nope_head_dim,
//     qk_rope_head_dim, v_head_dim), n_routed_experts, n_shared_experts, num_experts_per_tok,
//     moe_intermediate_size, first_k_dense_replace, n_group, topk_group,
//     routed_scaling_factor, norm_topk_prob (sigmoid group-limited routing).
// Weights are never written (external data, as the real-scale presets).
// Cost: one JSON parse. Limits: what the graph cannot express is refused with the field that
// asks for it (another model_type, hidden_act, partial_rotary_factor, longrope, DeepSeek's
// moe_layer_freq != 1 or attention_bias); what only changes values or is not run at inference
// is accepted and reported as a note (multi-token prediction layers, dynamic rope scaling, a
// quantization_config other than fp8 with weight_block_size or mxfp4). An fp8
// quantization_config (DeepSeek-V3's) is read: the generator's default weight format becomes fp8
// with its blocks; mxfp4 (GPT-OSS's) marks the experts MXFP4 (main.cc: the gather form's default).
#pragma once

#include <string>
#include <vector>

#include "model_config.h"

namespace hyperplan::gen {

struct HfConfig {
  ModelConfig config;
  bool dtype_given = false;  // torch_dtype (or dtype) was in the file, or the family fixes it
  // quantization_config quant_method "fp8" with weight_block_size [rows, cols]: the checkpoint
  // stores float8 projections with a float32 scale per block (0: no fp8 checkpoint).
  int64_t fp8_block_rows = 0;
  int64_t fp8_block_cols = 0;
  // quantization_config quant_method "mxfp4" (GPT-OSS): the routed experts' projections are
  // stored as MXFP4 (4-bit e2m1 codes, one 8-bit exponent per 32 weights); nothing else is.
  bool mxfp4_experts = false;
  std::vector<std::string> notes;  // what the graph approximates or leaves out
};

// The model_types ReadHfConfig knows.
std::vector<std::string> HfModelTypes();

// Throws std::invalid_argument "<path>: ..." naming the field at fault.
// Throws hyperplan::Error: kInputFile when the file cannot be read, kModel for a bad config.
HfConfig ReadHfConfig(const std::string& path);

// The same from text in memory; `path` stands for the file in messages and names the model.
HfConfig ParseHfConfig(const std::string& json_text, const std::string& path);

}  // namespace hyperplan::gen
