// The dimensions of one Llama-style decoder (dense or mixture-of-experts) and the named presets
// the generator knows: tiny test models with real weights, and published real-scale models whose
// weights are only referenced. A Hugging Face config.json maps onto the same description
// (hf_config.h), with the variations those families need: attention and MLP biases, tied
// embeddings, a sliding attention window, rotary scaling, multi-head latent attention and
// DeepSeek-V3's sigmoid group-limited router.
// Cost: table lookups. Limits: every model is a pre-norm decoder with RMSNorm, RoPE and SwiGLU;
// the deepseek-v3 preset replaces multi-head latent attention by grouped-query attention (see
// its note; --from-hf-config builds the real attention).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "elem_type.h"

namespace hyperplan::gen {

// Rotary frequency rescaling (Hugging Face's rope_scaling). It changes the values of the rotary
// tables and, for YaRN, the attention scale; never a shape.
struct RopeScaling {
  enum class Kind { kNone, kLinear, kDynamic, kLlama3, kYarn };
  Kind kind = Kind::kNone;
  double factor = 1.0;
  int64_t original_max_positions = 0;  // llama3, yarn
  double low_freq_factor = 1.0;        // llama3
  double high_freq_factor = 4.0;       // llama3
  double beta_fast = 32.0;             // yarn
  double beta_slow = 1.0;              // yarn
  double mscale = 0.0;                 // yarn (DeepSeek); 0: unset
  double mscale_all_dim = 0.0;         // yarn (DeepSeek); 0: unset
  double attention_factor = 0.0;       // yarn; 0: derived from factor and mscale
};

// Multi-head latent attention (DeepSeek-V2/V3). Keys and values are decompressed from one
// cached latent per token (kv_lora_rank values plus a shared rotary key of qk_rope_head_dim).
struct LatentAttention {
  int64_t q_lora_rank = 0;  // 0: queries projected straight from the hidden state
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;
};

enum class Router {
  kSoftmaxTopK,         // softmax over experts, top-k, renormalized (Mixtral)
  kSigmoidGroupLimited  // sigmoid scores, bias-corrected group-limited top-k (DeepSeek-V3)
};

struct ModelConfig {
  std::string preset;
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  int64_t intermediate = 0;  // dense SwiGLU width
  int64_t vocab = 0;
  int64_t max_positions = 0;  // rows of the rotary cos/sin tables
  double rope_theta = 10000.0;
  float rms_epsilon = 1e-5f;
  // Mixture of experts; routed_experts == 0 means every layer has a dense MLP.
  int64_t routed_experts = 0;
  int64_t experts_per_token = 0;
  int64_t moe_intermediate = 0;
  int64_t shared_experts = 0;
  int64_t first_dense_layers = 0;
  // Qwen3-MoE: experts in layers where (layer + 1) % moe_layer_step == 0 (decoder_sparse_step),
  // except those listed in dense_mlp_layers (mlp_only_layers), which keep a dense MLP.
  int64_t moe_layer_step = 1;
  std::vector<int64_t> dense_mlp_layers;
  bool router_bias = false;  // GPT-OSS: the router's logits have a bias ("<mlp>.gate.bias")
  Router router = Router::kSoftmaxTopK;
  int64_t expert_groups = 1;           // kSigmoidGroupLimited: routed experts split in groups
  int64_t groups_per_token = 1;        // kSigmoidGroupLimited: groups a token may pick from
  double routed_scaling_factor = 1.0;  // kSigmoidGroupLimited: gate weights multiplied by it
  bool normalize_top_k = true;         // picked weights renormalized to sum to 1
  // The SwiGLU every MLP and expert computes: (clamp(up, -limit, limit) + beta) *
  // g * sigmoid(alpha * g), g = min(gate, limit); limit 0: no clamp. Llama's plain SwiGLU is
  // alpha 1, beta 0; GPT-OSS's is alpha 1.702, beta 1, limit 7 (swiglu_limit).
  float swiglu_alpha = 1.0f;
  float swiglu_beta = 0.0f;
  float swiglu_limit = 0.0f;
  // Biases (Qwen2: q/k/v; Llama's attention_bias: q/k/v/o; Llama's mlp_bias).
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;
  // Qwen3: an RMSNorm over each query and key head (head_dim wide) before the rotary embedding.
  bool qk_norm = false;
  // GPT-OSS: one learned logit per query head ("<attn>.sinks") that joins every softmax as an
  // extra key with no value, so a row's probabilities may sum to less than 1.
  bool attention_sinks = false;
  // One [vocab, hidden] table for the embedding and the LM head.
  bool tie_embeddings = false;
  // Attention sees only the last `sliding_window` positions in layers from
  // `sliding_window_first_layer` on; 0: full causal attention everywhere.
  int64_t sliding_window = 0;
  int64_t sliding_window_first_layer = 0;
  // Per layer, whether it slides (GPT-OSS's layer_types); overrides the first layer when set.
  std::vector<bool> sliding_layers;
  RopeScaling rope_scaling;
  LatentAttention mla;  // kv_lora_rank == 0: grouped-query attention
  ElemType dtype = ElemType::kFloat32;
  // Real-scale presets reference a weights file that is never written.
  bool real_scale = false;
  std::string note;    // how the preset differs from the published model, if it does
  std::string source;  // where a config came from ("config.json"); empty for presets

  bool IsMoeLayer(int64_t layer) const {
    if (routed_experts == 0 || layer < first_dense_layers) return false;
    for (int64_t dense : dense_mlp_layers)
      if (dense == layer) return false;
    return (layer + 1) % moe_layer_step == 0;
  }
  bool IsMla() const { return mla.kv_lora_rank > 0; }
  bool IsSlidingLayer(int64_t layer) const {
    if (sliding_window == 0) return false;
    if (!sliding_layers.empty())
      return layer < static_cast<int64_t>(sliding_layers.size()) &&
             sliding_layers[static_cast<size_t>(layer)];
    return layer >= sliding_window_first_layer;
  }
  bool ClampedSwiGlu() const {
    return swiglu_limit > 0.0f || swiglu_alpha != 1.0f || swiglu_beta != 0.0f;
  }
  // Width of the rotated part of a query or key head (what the rotary tables hold).
  int64_t RopeDim() const { return IsMla() ? mla.qk_rope_head_dim : head_dim; }
  // Values one token adds to one layer's KV cache: keys and values of every KV head, or
  // MLA's latent plus its rotary key.
  int64_t KvCacheWidth() const {
    return IsMla() ? mla.kv_lora_rank + mla.qk_rope_head_dim : 2 * kv_heads * head_dim;
  }
};

std::vector<std::string> PresetNames();
std::optional<ModelConfig> FindPreset(const std::string& name);

// An empty string when `config` can be built, else what is wrong with it.
std::string ValidateConfig(const ModelConfig& config);

// The ways `config` departs from the plain Llama decoder, for descriptions: "; multi-head
// latent attention (q rank 1536, kv rank 512, ...); tied embeddings; ...". Empty for the
// presets, whose descriptions stay as they were.
std::string DescribeVariations(const ModelConfig& config);

}  // namespace hyperplan::gen
