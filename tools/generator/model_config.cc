#include "model_config.h"

#include <fmt/format.h>

namespace hyperplan::gen {

namespace {

ModelConfig Tiny() {
  ModelConfig c;
  c.preset = "tiny";
  c.layers = 4;
  c.hidden = 64;
  c.heads = 4;
  c.kv_heads = 2;
  c.head_dim = 16;
  c.intermediate = 192;
  c.vocab = 512;
  c.max_positions = 512;
  c.rope_theta = 10000.0;
  c.rms_epsilon = 1e-5f;
  c.dtype = ElemType::kFloat32;
  return c;
}

ModelConfig TinyMoe() {
  ModelConfig c = Tiny();
  c.preset = "tiny-moe";
  c.layers = 3;
  c.routed_experts = 8;
  c.experts_per_token = 2;
  c.moe_intermediate = 64;
  c.shared_experts = 1;
  c.first_dense_layers = 1;
  return c;
}

// Llama 3.1 (8B, 70B, 405B): published config.json values; head_dim 128 throughout.
ModelConfig Llama3(const char* name, int64_t layers, int64_t hidden, int64_t heads,
                   int64_t intermediate) {
  ModelConfig c;
  c.preset = name;
  c.layers = layers;
  c.hidden = hidden;
  c.heads = heads;
  c.kv_heads = 8;
  c.head_dim = 128;
  c.intermediate = intermediate;
  c.vocab = 128256;
  c.max_positions = 131072;
  c.rope_theta = 500000.0;
  c.rms_epsilon = 1e-5f;
  c.dtype = ElemType::kBFloat16;
  c.real_scale = true;
  return c;
}

ModelConfig DeepSeekV3() {
  ModelConfig c;
  c.preset = "deepseek-v3";
  c.layers = 61;
  c.hidden = 7168;
  c.heads = 128;
  // MLA caches 576 values per token and layer (512 latent + 64 rotary); two KV heads of 128
  // cache 512, the closest grouped-query layout, so KV-cache bytes stay near the real model's.
  c.kv_heads = 2;
  c.head_dim = 128;
  c.intermediate = 18432;
  c.vocab = 129280;
  c.max_positions = 163840;
  c.rope_theta = 10000.0;
  c.rms_epsilon = 1e-6f;
  c.routed_experts = 256;
  c.experts_per_token = 8;
  c.moe_intermediate = 2048;
  c.shared_experts = 1;
  c.first_dense_layers = 3;
  c.dtype = ElemType::kBFloat16;
  c.real_scale = true;
  c.note =
      "DeepSeek-V3 dimensions, but grouped-query attention (128 query heads, 2 KV heads of 128) "
      "instead of multi-head latent attention, softmax top-8 routing instead of sigmoid "
      "group-limited routing, and no multi-token-prediction module";
  return c;
}

}  // namespace

std::vector<std::string> PresetNames() {
  return {"tiny", "tiny-moe", "llama3-8b", "llama3-70b", "llama3-405b", "deepseek-v3"};
}

std::optional<ModelConfig> FindPreset(const std::string& name) {
  if (name == "tiny") return Tiny();
  if (name == "tiny-moe") return TinyMoe();
  if (name == "llama3-8b") return Llama3("llama3-8b", 32, 4096, 32, 14336);
  if (name == "llama3-70b") return Llama3("llama3-70b", 80, 8192, 64, 28672);
  if (name == "llama3-405b") return Llama3("llama3-405b", 126, 16384, 128, 53248);
  if (name == "deepseek-v3") return DeepSeekV3();
  return std::nullopt;
}

namespace {

std::string ValidateLatentAttention(const LatentAttention& mla) {
  if (mla.q_lora_rank < 0) return "q_lora_rank must not be negative";
  if (mla.qk_nope_head_dim < 1 || mla.qk_rope_head_dim < 2 || mla.v_head_dim < 1)
    return "qk_nope_head_dim, qk_rope_head_dim and v_head_dim must be positive";
  if (mla.qk_rope_head_dim % 2 != 0) return "qk_rope_head_dim must be even (rotary pairs halves)";
  return {};
}

std::string ValidateExperts(const ModelConfig& c) {
  if (c.experts_per_token < 1 || c.experts_per_token > c.routed_experts)
    return fmt::format("experts_per_token must be in [1, {}]", c.routed_experts);
  if (c.moe_intermediate < 1) return "moe_intermediate must be positive";
  if (c.first_dense_layers < 0) return "first_dense_layers must not be negative";
  if (c.moe_layer_step < 1) return "the MoE layer step (decoder_sparse_step) must be at least 1";
  if (c.router != Router::kSigmoidGroupLimited) return {};
  if (c.expert_groups < 1 || c.routed_experts % c.expert_groups != 0)
    return fmt::format("expert groups ({}) must divide the routed experts ({})", c.expert_groups,
                       c.routed_experts);
  if (c.groups_per_token < 1 || c.groups_per_token > c.expert_groups)
    return fmt::format("groups per token must be in [1, {}]", c.expert_groups);
  if (c.expert_groups > 1 && c.routed_experts / c.expert_groups < 2)
    return "group-limited routing scores each group by its top two experts: groups need two";
  if (c.experts_per_token > c.groups_per_token * (c.routed_experts / c.expert_groups))
    return "experts_per_token exceeds the experts in the groups a token may pick";
  return {};
}

}  // namespace

std::string ValidateConfig(const ModelConfig& c) {
  if (c.layers < 1) return "layers must be at least 1";
  if (c.hidden < 1 || c.heads < 1 || c.kv_heads < 1 || c.head_dim < 2 || c.vocab < 1)
    return "hidden, heads, kv_heads, head_dim and vocab must be positive";
  if (c.max_positions < 1) return "max_positions must be positive";
  if (c.IsMla()) {
    if (std::string error = ValidateLatentAttention(c.mla); !error.empty()) return error;
  } else {
    if (c.head_dim % 2 != 0) return "head_dim must be even (rotary pairs halves)";
    if (c.heads % c.kv_heads != 0)
      return fmt::format("heads ({}) must be a multiple of kv_heads ({})", c.heads, c.kv_heads);
  }
  if (c.intermediate < 1) return "intermediate must be positive";
  if (c.routed_experts > 0) {
    if (std::string error = ValidateExperts(c); !error.empty()) return error;
  }
  if (c.sliding_window < 0) return "sliding_window must not be negative";
  return {};
}

namespace {

const char* RopeScalingName(RopeScaling::Kind kind) {
  switch (kind) {
    case RopeScaling::Kind::kNone:
      return "none";
    case RopeScaling::Kind::kLinear:
      return "linear";
    case RopeScaling::Kind::kDynamic:
      return "dynamic";
    case RopeScaling::Kind::kLlama3:
      return "llama3";
    case RopeScaling::Kind::kYarn:
      return "yarn";
  }
  return "none";
}

}  // namespace

std::string DescribeVariations(const ModelConfig& c) {
  std::string text;
  if (c.IsMla()) {
    text += fmt::format(
        "; multi-head latent attention (q rank {}, kv rank {}, heads of {} + {} rotary, values "
        "of {}; cache {} values per token and layer)",
        c.mla.q_lora_rank, c.mla.kv_lora_rank, c.mla.qk_nope_head_dim, c.mla.qk_rope_head_dim,
        c.mla.v_head_dim, c.KvCacheWidth());
  }
  if (c.router == Router::kSigmoidGroupLimited) {
    text += fmt::format(
        "; sigmoid router with a score bias, top {} of {} groups, weights scaled by {:g}",
        c.groups_per_token, c.expert_groups, c.routed_scaling_factor);
  }
  if (c.router_bias) text += "; router bias";
  if (c.moe_layer_step > 1 || !c.dense_mlp_layers.empty())
    text += fmt::format("; experts every {} layers, {} layers dense", c.moe_layer_step,
                        c.dense_mlp_layers.size());
  if (c.qkv_bias) text += "; q/k/v biases";
  if (c.o_bias) text += "; output projection bias";
  if (c.mlp_bias) text += "; MLP biases";
  if (c.qk_norm) text += "; per-head q/k RMSNorm";
  if (c.attention_sinks) text += "; attention sinks";
  if (c.ClampedSwiGlu())
    text += fmt::format("; SwiGLU clamped at {:g}, alpha {:g}, up + {:g}", c.swiglu_limit,
                        c.swiglu_alpha, c.swiglu_beta);
  if (c.tie_embeddings) text += "; tied embeddings";
  if (c.sliding_window > 0 && !c.sliding_layers.empty()) {
    int64_t sliding = 0;
    for (bool slides : c.sliding_layers) sliding += slides ? 1 : 0;
    text += fmt::format("; sliding window {} in {} of {} layers", c.sliding_window, sliding,
                        c.sliding_layers.size());
  } else if (c.sliding_window > 0) {
    text += fmt::format("; sliding window {} from layer {}", c.sliding_window,
                        c.sliding_window_first_layer);
  }
  if (c.rope_scaling.kind != RopeScaling::Kind::kNone) {
    text += fmt::format("; {} rope scaling x{:g}", RopeScalingName(c.rope_scaling.kind),
                        c.rope_scaling.factor);
  }
  return text;
}

}  // namespace hyperplan::gen
