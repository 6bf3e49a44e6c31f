// Qwen3-MoE and GPT-OSS config.json fields (see hf_moe_families.h).
#include "hf_moe_families.h"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace hyperplan::gen {

namespace {

// GPT-OSS's SwiGLU (transformers' GptOssExperts): gate clamped above at swiglu_limit, up
// clamped to +-limit, glu = gate * sigmoid(1.702 gate), out = (up + 1) * glu.
constexpr float kGptOssAlpha = 1.702f;
constexpr float kGptOssBeta = 1.0f;

void ReadQwen3Experts(const HfFields& f, ModelConfig& c) {
  c.routed_experts = f.Int("num_experts");
  c.experts_per_token = f.Int("num_experts_per_tok");
  c.moe_intermediate = f.Int("moe_intermediate_size");
  c.shared_experts = 0;
  c.first_dense_layers = 0;
  c.moe_layer_step = f.OptionalInt("decoder_sparse_step").value_or(1);
  c.dense_mlp_layers = f.OptionalIntsAtLeast("mlp_only_layers", 0).value_or(std::vector<int64_t>{});
  // Qwen3MoeConfig's default is false; the published configs write true.
  c.normalize_top_k = f.Bool("norm_topk_prob", false);
}

// layer_types: "sliding_attention" or "full_attention", one per layer.
void ReadLayerTypes(const HfFields& f, ModelConfig& c) {
  const auto types = f.OptionalStrings("layer_types");
  if (!types) {
    // GptOssConfig's default: even layers slide, odd layers attend to everything.
    for (int64_t layer = 0; layer < c.layers; ++layer) c.sliding_layers.push_back(layer % 2 == 0);
    return;
  }
  if (static_cast<int64_t>(types->size()) != c.layers)
    throw f.Problem("layer_types",
                    fmt::format("has {} entries for {} layers", types->size(), c.layers));
  for (const std::string& type : *types) {
    if (type != "sliding_attention" && type != "full_attention")
      throw f.Problem("layer_types", fmt::format("'{}' is not supported (sliding_attention, "
                                                 "full_attention)",
                                                 type));
    c.sliding_layers.push_back(type == "sliding_attention");
  }
}

void ReadGptOssExperts(const HfFields& f, ModelConfig& c) {
  c.routed_experts = f.Int("num_local_experts");
  // The published config writes both; transformers reads num_experts_per_tok.
  c.experts_per_token = f.OptionalInt("num_experts_per_tok").value_or(f.Int("experts_per_token"));
  c.moe_intermediate = c.intermediate;
  c.first_dense_layers = 0;
  c.router_bias = true;
  c.mlp_bias = true;  // every MLP is an expert block: gate/up and down biases
  c.swiglu_limit = static_cast<float>(f.OptionalNumber("swiglu_limit").value_or(7.0));
  c.swiglu_alpha = kGptOssAlpha;
  c.swiglu_beta = kGptOssBeta;
}

}  // namespace

void ReadQwen3Moe(const HfFields& f, ModelConfig& c) {
  c.qkv_bias = c.o_bias = f.Bool("attention_bias", false);
  c.qk_norm = true;  // Qwen3Attention's q_norm and k_norm, always
  if (f.Bool("use_sliding_window", false)) {
    c.sliding_window = f.OptionalInt("sliding_window").value_or(4096);
    c.sliding_window_first_layer = f.OptionalInt("max_window_layers").value_or(28);
  }
  ReadQwen3Experts(f, c);
}

void ReadGptOss(const HfFields& f, ModelConfig& c, HfConfig& out) {
  c.qkv_bias = c.o_bias = f.Bool("attention_bias", true);
  c.attention_sinks = true;
  c.sliding_window = f.OptionalInt("sliding_window").value_or(128);
  ReadLayerTypes(f, c);
  ReadGptOssExperts(f, c);
  // The published config names no torch_dtype: every tensor the checkpoint does not store as
  // MXFP4 (attention, router, embedding, LM head, norms, biases, sinks) is bf16.
  if (!out.dtype_given) {
    c.dtype = ElemType::kBFloat16;
    out.dtype_given = true;
  }
  out.notes.push_back(
      "gpt_oss: gate_up_proj is written as separate gate and up projections (the same elements; "
      "the checkpoint interleaves them), and the router picks the top k of the softmax over every "
      "expert, renormalized (the same weights as the checkpoint's softmax over the top k logits)");
  out.notes.push_back(fmt::format(
      "gpt_oss: sliding layers keep a cache of the whole past like full ones (runtimes keep the "
      "last {} positions of them in a ring buffer; attention reads only those)",
      c.sliding_window));
}

}  // namespace hyperplan::gen
