#include "attention.h"

#include <fmt/format.h>

#include <cmath>

#include "linear.h"
#include "rope.h"

namespace hyperplan::gen {

namespace {

// [batch, sequence, heads * head_dim] -> [batch, heads, sequence, head_dim].
std::string SplitHeads(GraphBuilder& g, const std::string& x, int64_t heads, int64_t head_dim,
                       const std::string& p, const std::string& output = {}) {
  const std::string shaped =
      g.Op("Reshape", {x, g.Int64s({0, 0, heads, head_dim})}, p + "/Reshape");
  return g.Op("Transpose", {shaped}, p + "/Transpose", {AttrInts("perm", {0, 2, 1, 3})}, output);
}

// The cache [batch, kv_heads, total, head_dim] repeated to [batch, heads, total, head_dim]
// (keys come back transposed: [batch, heads, head_dim, total], ready for q @ k^T).
// Moving total ahead of the heads first lets every Reshape copy batch and total with 0 entries,
// so shapes stay symbolic instead of needing a runtime Shape.
std::string RepeatKv(DecoderContext& ctx, const std::string& cache, bool keys,
                     const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const int64_t groups = c.heads / c.kv_heads;
  if (groups == 1) {
    return keys ? g.Op("Transpose", {cache}, p + "/Transpose", {AttrInts("perm", {0, 1, 3, 2})})
                : cache;
  }
  const std::string by_token =
      g.Op("Transpose", {cache}, p + "/Transpose", {AttrInts("perm", {0, 2, 1, 3})});
  const std::string widened = g.Op("Unsqueeze", {by_token, g.Int64s({3})}, p + "/Unsqueeze");
  const std::string expanded =
      g.Op("Expand", {widened, g.Int64s({1, 1, 1, groups, 1})}, p + "/Expand");
  const std::string merged =
      g.Op("Reshape", {expanded, g.Int64s({0, 0, c.heads, c.head_dim})}, p + "/Reshape");
  return g.Op("Transpose", {merged}, p + "/Transpose_1",
              {AttrInts("perm", keys ? std::vector<int64_t>{0, 2, 3, 1}
                                     : std::vector<int64_t>{0, 2, 1, 3})});
}

std::string StandardAttention(DecoderContext& ctx, int64_t layer, const std::string& x) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const std::string p = fmt::format("/model/layers.{}/attn", layer);
  const std::string w = fmt::format("model.layers.{}.self_attn", layer);
  const std::string present_key = PresentName(layer, "key");
  const std::string present_value = PresentName(layer, "value");

  const std::string q =
      Linear(ctx, x, c.hidden, c.heads * c.head_dim, w + ".q_proj", p + "/q_proj/MatMul");
  const std::string k =
      Linear(ctx, x, c.hidden, c.kv_heads * c.head_dim, w + ".k_proj", p + "/k_proj/MatMul");
  const std::string v =
      Linear(ctx, x, c.hidden, c.kv_heads * c.head_dim, w + ".v_proj", p + "/v_proj/MatMul");

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
  const std::string masked = g.Op("Add", {scaled, ctx.causal_mask}, p + "/qk/Add");
  const std::string probs = g.Op("Softmax", {masked}, p + "/Softmax", {AttrInt("axis", -1)});
  const std::string context = g.Op("MatMul", {probs, values_r}, p + "/pv/MatMul");
  const std::string by_token =
      g.Op("Transpose", {context}, p + "/pv/Transpose", {AttrInts("perm", {0, 2, 1, 3})});
  const std::string merged =
      g.Op("Reshape", {by_token, g.Int64s({0, 0, c.heads * c.head_dim})}, p + "/pv/Reshape");
  return Linear(ctx, merged, c.heads * c.head_dim, c.hidden, w + ".o_proj", p + "/o_proj/MatMul");
}

std::string ContribAttention(DecoderContext& ctx, int64_t layer, const std::string& x) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const std::string p = fmt::format("/model/layers.{}/attn", layer);
  const std::string w = fmt::format("model.layers.{}.self_attn", layer);

  const std::string q =
      Linear(ctx, x, c.hidden, c.heads * c.head_dim, w + ".q_proj", p + "/q_proj/MatMulNBits");
  const std::string k =
      Linear(ctx, x, c.hidden, c.kv_heads * c.head_dim, w + ".k_proj", p + "/k_proj/MatMulNBits");
  const std::string v =
      Linear(ctx, x, c.hidden, c.kv_heads * c.head_dim, w + ".v_proj", p + "/v_proj/MatMulNBits");
  const std::string q_rotated = RotaryEmbedding(ctx, q, p + "/q_rotary/RotaryEmbedding");
  const std::string k_rotated = RotaryEmbedding(ctx, k, p + "/k_rotary/RotaryEmbedding");

  const std::string attended = p + "/GroupQueryAttention/output_0";
  const std::string past_key = ctx.decode() ? PastName(layer, "key") : std::string();
  const std::string past_value = ctx.decode() ? PastName(layer, "value") : std::string();
  g.OpOutputs(
      "GroupQueryAttention", kMsDomain,
      {q_rotated, k_rotated, v, past_key, past_value, ctx.seqlens_k, ctx.total_sequence_length},
      {attended, PresentName(layer, "key"), PresentName(layer, "value")},
      p + "/GroupQueryAttention",
      {AttrInt("num_heads", c.heads), AttrInt("kv_num_heads", c.kv_heads),
       AttrFloat("scale", 1.0f / std::sqrt(static_cast<float>(c.head_dim))),
       AttrInt("local_window_size", -1), AttrInt("do_rotary", 0),
       AttrInt("rotary_interleaved", 0)});
  return Linear(ctx, attended, c.heads * c.head_dim, c.hidden, w + ".o_proj",
                p + "/o_proj/MatMulNBits");
}

}  // namespace

std::string Attention(DecoderContext& ctx, int64_t layer, const std::string& x) {
  return ctx.contrib() ? ContribAttention(ctx, layer, x) : StandardAttention(ctx, layer, x);
}

}  // namespace hyperplan::gen
