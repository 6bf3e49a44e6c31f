#include "attention.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "heads.h"
#include "linear.h"
#include "mla_attention.h"
#include "norm.h"
#include "rope.h"

namespace hyperplan::gen {

namespace {

// Qwen3's q_norm / k_norm: RMSNorm over each head of `x` [batch, sequence, heads * head_dim].
std::string HeadNorm(DecoderContext& ctx, const std::string& x, int64_t heads,
                     const std::string& weight_name, const std::string& p) {
  if (!ctx.config.qk_norm) return x;
  GraphBuilder& g = ctx.graph;
  const int64_t head_dim = ctx.config.head_dim;
  const std::string split = g.Op("Reshape", {x, g.Int64s({0, 0, heads, head_dim})}, p + "/Reshape");
  const std::string normed = RmsNorm(ctx, split, weight_name, p, head_dim);
  return g.Op("Reshape", {normed, g.Int64s({0, 0, heads * head_dim})}, p + "/Reshape_1");
}

// GPT-OSS's per-head sink logits [heads], in the model's type.
std::string Sinks(DecoderContext& ctx, const std::string& w) {
  GraphBuilder& g = ctx.graph;
  WeightStore* store = &g.weights();
  const std::string name = w + ".sinks";
  const int64_t heads = ctx.config.heads;
  return g.Weight(name, {heads}, [=] { return store->Uniform(name, heads, 1.0f); });
}

// Softmax over the masked scores [batch, heads, sequence, total] with each head's sink logit
// as one more column, which is then dropped (transformers' eager_attention_forward for
// GPT-OSS): the probabilities over real keys sum to less than 1.
std::string SoftmaxWithSinks(DecoderContext& ctx, const std::string& masked, const std::string& w,
                             const std::string& p) {
  GraphBuilder& g = ctx.graph;
  if (!ctx.config.attention_sinks)
    return g.Op("Softmax", {masked}, p + "/Softmax", {AttrInt("axis", -1)});
  const std::string sinks =
      g.Op("Reshape", {Sinks(ctx, w), g.Int64s({1, ctx.config.heads, 1, 1})}, p + "/sinks/Reshape");
  // A [batch, heads, sequence, 1] column of the sinks: key 0's (always finite) scores times 0.
  const std::string first =
      g.Op("Slice", {masked, g.Int64s({0}), g.Int64s({1}), g.Int64s({-1})}, p + "/sinks/Slice");
  const std::string zeros = g.Op("Mul", {first, g.FloatScalar(0.0f, g.dtype())}, p + "/sinks/Mul");
  const std::string column = g.Op("Add", {zeros, sinks}, p + "/sinks/Add");
  const std::string joined =
      g.Op("Concat", {masked, column}, p + "/sinks/Concat", {AttrInt("axis", -1)});
  const std::string probs = g.Op("Softmax", {joined}, p + "/Softmax", {AttrInt("axis", -1)});
  return g.Op("Slice", {probs, g.Int64s({0}), g.Int64s({-1}), g.Int64s({-1})},
              p + "/sinks/Slice_1");
}

std::string StandardAttention(DecoderContext& ctx, int64_t layer, const std::string& x) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const std::string p = fmt::format("/model/layers.{}/attn", layer);
  const std::string w = fmt::format("model.layers.{}.self_attn", layer);
  const std::string present_key = PresentName(layer, "key");
  const std::string present_value = PresentName(layer, "value");
  const char* op = ProjectionOp(ctx);

  const std::string q = HeadNorm(ctx,
                                 LinearMaybeBias(ctx, x, c.hidden, c.heads * c.head_dim,
                                                 w + ".q_proj", p + "/q_proj" + op, c.qkv_bias),
                                 c.heads, w + ".q_norm.weight", p + "/q_norm");
  const std::string k = HeadNorm(ctx,
                                 LinearMaybeBias(ctx, x, c.hidden, c.kv_heads * c.head_dim,
                                                 w + ".k_proj", p + "/k_proj" + op, c.qkv_bias),
                                 c.kv_heads, w + ".k_norm.weight", p + "/k_norm");
  const std::string v = LinearMaybeBias(ctx, x, c.hidden, c.kv_heads * c.head_dim, w + ".v_proj",
                                        p + "/v_proj" + op, c.qkv_bias);

  const std::string q_heads = SplitHeads(g, q, c.heads, c.head_dim, p + "/q");
  const std::string q_rotated = ApplyRope(ctx, q_heads, p + "/q_rotary");
  const std::string k_heads = SplitHeads(g, k, c.kv_heads, c.head_dim, p + "/k");
  std::string keys;
  std::string values;
  if (ctx.decode()) {
    const std::string k_rotated = ApplyRope(ctx, k_heads, p + "/k_rotary");
    const std::string v_heads = SplitHeads(g, v, c.kv_heads, c.head_dim, p + "/v");
    keys = g.Op("Concat", {PastName(layer, "key"), k_rotated}, p + "/key_cache/Concat",
                {AttrInt("axis", 2)}, present_key);
    values = g.Op("Concat", {PastName(layer, "value"), v_heads}, p + "/value_cache/Concat",
                  {AttrInt("axis", 2)}, present_value);
  } else {
    keys = ApplyRope(ctx, k_heads, p + "/k_rotary", present_key);
    values = SplitHeads(g, v, c.kv_heads, c.head_dim, p + "/v", present_value);
  }

  const std::string keys_t = RepeatKv(ctx, keys, true, p + "/repeat_k");
  const std::string values_r = RepeatKv(ctx, values, false, p + "/repeat_v");
  const std::string scores = g.Op("MatMul", {q_rotated, keys_t}, p + "/qk/MatMul");
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  const std::string scaled = g.Op("Mul", {scores, g.FloatScalar(scale, g.dtype())}, p + "/qk/Mul");
  const std::string masked = g.Op("Add", {scaled, ctx.MaskFor(layer)}, p + "/qk/Add");
  const std::string probs = SoftmaxWithSinks(ctx, masked, w, p);
  const std::string context = g.Op("MatMul", {probs, values_r}, p + "/pv/MatMul");
  const std::string by_token =
      g.Op("Transpose", {context}, p + "/pv/Transpose", {AttrInts("perm", {0, 2, 1, 3})});
  const std::string merged =
      g.Op("Reshape", {by_token, g.Int64s({0, 0, c.heads * c.head_dim})}, p + "/pv/Reshape");
  return LinearMaybeBias(ctx, merged, c.heads * c.head_dim, c.hidden, w + ".o_proj",
                         p + "/o_proj" + op, c.o_bias);
}

// The scale the quantized cache's codes are multiplied by. Not calibrated (the generator has
// no activations to calibrate on): 1/16 keeps codes of values within +-7.9 in int8's range, and
// is exact in float32, so every runtime dequantizes the same values.
constexpr float kCacheScale = 1.0f / 16.0f;

// GroupQueryAttention's quantized cache: float32 k_scale and v_scale (inputs 12 and 13; 7-11
// left absent: rotary ran before, no position ids, bias or sinks), one per tensor ([1]) or per
// channel ([1, kv_heads, 1, head_dim]), and the attributes naming the mode and the 8-bit width.
void AddCacheScales(DecoderContext& ctx, const std::string& w, std::vector<std::string>& inputs,
                    std::vector<onnx::AttributeProto>& attrs) {
  const ModelConfig& c = ctx.config;
  const bool per_channel = ctx.options.kv_scales == KvScales::kPerChannel;
  const std::vector<int64_t> dims =
      per_channel ? std::vector<int64_t>{1, c.kv_heads, 1, c.head_dim} : std::vector<int64_t>{1};
  const int64_t count = per_channel ? c.kv_heads * c.head_dim : 1;
  inputs.resize(12);
  for (const char* kind : {"k_scale", "v_scale"}) {
    inputs.push_back(ctx.graph.WeightOfType(w + "." + kind, dims, ElemType::kFloat32, [=] {
      return std::vector<float>(static_cast<size_t>(count), kCacheScale);
    }));
  }
  const char* mode = per_channel ? "PER_CHANNEL" : "PER_TENSOR";
  attrs.push_back(AttrString("k_quant_type", mode));
  attrs.push_back(AttrString("v_quant_type", mode));
  attrs.push_back(AttrInt("kv_cache_bit_width", 8));
}

// com.microsoft GroupQueryAttention as onnxruntime-genai's model builder writes it: q, k, v
// rotated by RotaryEmbedding first (do_rotary 0), past and present KV in [batch, kv_heads,
// length, head_dim] (BNSH), causal masking from seqlens_k and total_sequence_length.
std::string FusedAttention(DecoderContext& ctx, int64_t layer, const std::string& x) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const std::string p = fmt::format("/model/layers.{}/attn", layer);
  const std::string w = fmt::format("model.layers.{}.self_attn", layer);
  const char* op = ProjectionOp(ctx);

  const std::string q = HeadNorm(ctx,
                                 LinearMaybeBias(ctx, x, c.hidden, c.heads * c.head_dim,
                                                 w + ".q_proj", p + "/q_proj" + op, c.qkv_bias),
                                 c.heads, w + ".q_norm.weight", p + "/q_norm");
  const std::string k = HeadNorm(ctx,
                                 LinearMaybeBias(ctx, x, c.hidden, c.kv_heads * c.head_dim,
                                                 w + ".k_proj", p + "/k_proj" + op, c.qkv_bias),
                                 c.kv_heads, w + ".k_norm.weight", p + "/k_norm");
  const std::string v = LinearMaybeBias(ctx, x, c.hidden, c.kv_heads * c.head_dim, w + ".v_proj",
                                        p + "/v_proj" + op, c.qkv_bias);
  const std::string q_rotated = RotaryEmbedding(ctx, q, p + "/q_rotary/RotaryEmbedding");
  const std::string k_rotated = RotaryEmbedding(ctx, k, p + "/k_rotary/RotaryEmbedding");

  const std::string attended = p + "/GroupQueryAttention/output_0";
  const std::string past_key = ctx.decode() ? PastName(layer, "key") : std::string();
  const std::string past_value = ctx.decode() ? PastName(layer, "value") : std::string();
  std::vector<std::string> inputs = {
      q_rotated, k_rotated, v, past_key, past_value, ctx.seqlens_k, ctx.total_sequence_length};
  std::vector<onnx::AttributeProto> attrs = {
      AttrInt("num_heads", c.heads),
      AttrInt("kv_num_heads", c.kv_heads),
      AttrFloat("scale", 1.0f / std::sqrt(static_cast<float>(c.head_dim))),
      AttrInt("local_window_size", c.IsSlidingLayer(layer) ? c.sliding_window : -1),
      AttrInt("do_rotary", 0),
      AttrInt("rotary_interleaved", 0)};
  if (c.attention_sinks) {
    inputs.resize(11);  // 7-10: cos/sin caches, position ids, attention bias (absent)
    inputs.push_back(Sinks(ctx, w));
  }
  if (ctx.quantized_kv()) AddCacheScales(ctx, w, inputs, attrs);
  g.OpOutputs("GroupQueryAttention", kMsDomain, inputs,
              {attended, PresentName(layer, "key"), PresentName(layer, "value")},
              p + "/GroupQueryAttention", std::move(attrs));
  return LinearMaybeBias(ctx, attended, c.heads * c.head_dim, c.hidden, w + ".o_proj",
                         p + "/o_proj" + op, c.o_bias);
}

}  // namespace

std::string Attention(DecoderContext& ctx, int64_t layer, const std::string& x) {
  if (ctx.config.IsMla()) return LatentAttentionBlock(ctx, layer, x);
  return ctx.fused_attention() ? FusedAttention(ctx, layer, x) : StandardAttention(ctx, layer, x);
}

}  // namespace hyperplan::gen
