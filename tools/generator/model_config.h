// The dimensions of one Llama-style decoder (dense or mixture-of-experts) and the named presets
// the generator knows: tiny test models with real weights, and published real-scale models whose
// weights are only referenced.
// Cost: table lookups. Limits: every preset is a Llama-style decoder (RMSNorm, RoPE, grouped-query
// attention, SwiGLU); DeepSeek-V3's multi-head latent attention is replaced by grouped-query
// attention (see the preset note).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "elem_type.h"

namespace hyperplan::gen {

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
  ElemType dtype = ElemType::kFloat32;
  // Real-scale presets reference a weights file that is never written.
  bool real_scale = false;
  std::string note;  // how the preset differs from the published model, if it does

  bool IsMoeLayer(int64_t layer) const { return routed_experts > 0 && layer >= first_dense_layers; }
};

std::vector<std::string> PresetNames();
std::optional<ModelConfig> FindPreset(const std::string& name);

// An empty string when `config` can be built, else what is wrong with it.
std::string ValidateConfig(const ModelConfig& config);

}  // namespace hyperplan::gen
