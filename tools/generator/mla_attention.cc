#include "mla_attention.h"

#include <fmt/format.h>

#include <cmath>

#include "heads.h"
#include "linear.h"
#include "norm.h"
#include "rope.h"
#include "rope_scaling.h"

namespace hyperplan::gen {

namespace {

struct Names {
  std::string nodes;    // "/model/layers.{i}/attn"
  std::string weights;  // "model.layers.{i}.self_attn"
};

// [batch, heads, sequence, nope] and the rotated [batch, heads, sequence, rope].
struct Queries {
  std::string nope;
  std::string rotated_pe;
};

Queries ProjectQueries(DecoderContext& ctx, const std::string& x, const Names& n) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const LatentAttention& m = c.mla;
  const int64_t qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim;
  std::string q;
  if (m.q_lora_rank > 0) {
    const std::string compressed = Linear(ctx, x, c.hidden, m.q_lora_rank, n.weights + ".q_a_proj",
                                          n.nodes + "/q_a_proj" + ProjectionOp(ctx));
    const std::string normed = RmsNorm(ctx, compressed, n.weights + ".q_a_layernorm.weight",
                                       n.nodes + "/q_a_layernorm", m.q_lora_rank);
    q = Linear(ctx, normed, m.q_lora_rank, c.heads * qk_head, n.weights + ".q_b_proj",
               n.nodes + "/q_b_proj" + ProjectionOp(ctx));
  } else {
    q = Linear(ctx, x, c.hidden, c.heads * qk_head, n.weights + ".q_proj",
               n.nodes + "/q_proj" + ProjectionOp(ctx));
  }
  const std::string heads = SplitHeads(g, q, c.heads, qk_head, n.nodes + "/q");
  const std::vector<std::string> parts = GraphBuilder::OutputNames(n.nodes + "/q/Split", 2);
  g.OpOutputs("Split", "", {heads, g.Int64s({m.qk_nope_head_dim, m.qk_rope_head_dim})}, parts,
              n.nodes + "/q/Split", {AttrInt("axis", -1)});
  return {parts[0], ApplyRope(ctx, parts[1], n.nodes + "/q_rotary")};
}

// This token's cache rows: [batch, 1, sequence, kv_lora_rank + rope], named `output` if given.
std::string CacheEntry(DecoderContext& ctx, const std::string& x, const Names& n,
                       const std::string& output) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const LatentAttention& m = c.mla;
  const std::string compressed = Linear(ctx, x, c.hidden, m.kv_lora_rank + m.qk_rope_head_dim,
                                        n.weights + ".kv_a_proj_with_mqa",
                                        n.nodes + "/kv_a_proj_with_mqa" + ProjectionOp(ctx));
  const std::vector<std::string> parts = GraphBuilder::OutputNames(n.nodes + "/kv_a/Split", 2);
  g.OpOutputs("Split", "", {compressed, g.Int64s({m.kv_lora_rank, m.qk_rope_head_dim})}, parts,
              n.nodes + "/kv_a/Split", {AttrInt("axis", -1)});
  const std::string latent = RmsNorm(ctx, parts[0], n.weights + ".kv_a_layernorm.weight",
                                     n.nodes + "/kv_a_layernorm", m.kv_lora_rank);
  const std::string axis1 = g.Int64s({1});
  const std::string latent_row = g.Op("Unsqueeze", {latent, axis1}, n.nodes + "/latent/Unsqueeze");
  const std::string pe_row = g.Op("Unsqueeze", {parts[1], axis1}, n.nodes + "/k_pe/Unsqueeze");
  const std::string rotated = ApplyRope(ctx, pe_row, n.nodes + "/k_rotary");
  return g.Op("Concat", {latent_row, rotated}, n.nodes + "/kv_entry/Concat", {AttrInt("axis", -1)},
              output);
}

// kv_b_proj's key half [heads, nope, rank] or value half [heads, rank, v]; fan-in kv_lora_rank.
// fp8 weights: 128 x 128 blocks of each head's matrix, as the checkpoint's kv_b_proj blocks
// are (nope, v and the rank are multiples of 128 in DeepSeek-V3); int4/int8 keep them plain
// (MatMulNBits takes one 2-D weight, not a batch of heads).
std::string UpProjection(DecoderContext& ctx, const std::string& name,
                         const std::vector<int64_t>& dims, const std::string& prefix) {
  GraphBuilder& g = ctx.graph;
  WeightStore* store = &g.weights();
  const int64_t count = dims[0] * dims[1] * dims[2];
  const float bound = 1.0f / std::sqrt(static_cast<float>(ctx.config.mla.kv_lora_rank));
  if (ctx.options.weights == WeightFormat::kFp8) return Fp8Weight(ctx, name, dims, bound, prefix);
  return g.Weight(name, dims,
                  [store, name, count, bound] { return store->Uniform(name, count, bound); });
}

}  // namespace

float LatentAttentionScale(const ModelConfig& c) {
  const LatentAttention& m = c.mla;
  double scale = 1.0 / std::sqrt(static_cast<double>(m.qk_nope_head_dim + m.qk_rope_head_dim));
  const RopeScaling& s = c.rope_scaling;
  if (s.kind == RopeScaling::Kind::kYarn && s.mscale_all_dim > 0.0) {
    const double mscale = YarnMscale(s.factor, s.mscale_all_dim);
    scale *= mscale * mscale;
  }
  return static_cast<float>(scale);
}

std::string LatentAttentionBlock(DecoderContext& ctx, int64_t layer, const std::string& x) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const LatentAttention& m = c.mla;
  const Names n{fmt::format("/model/layers.{}/attn", layer),
                fmt::format("model.layers.{}.self_attn", layer)};
  const std::string& p = n.nodes;

  const Queries q = ProjectQueries(ctx, x, n);
  // Prefill: the new rows are the whole cache. Decode: appended to the past rows.
  const std::string present = PresentName(layer, "key");
  const std::string entry = CacheEntry(ctx, x, n, ctx.decode() ? std::string() : present);
  const std::string cache = ctx.decode()
                                ? g.Op("Concat", {PastName(layer, "key"), entry},
                                       p + "/key_cache/Concat", {AttrInt("axis", 2)}, present)
                                : entry;

  const std::string w_uk =
      UpProjection(ctx, n.weights + ".kv_b_proj.weight_uk",
                   {c.heads, m.qk_nope_head_dim, m.kv_lora_rank}, p + "/kv_b_proj_uk/dequant");
  const std::string w_uv =
      UpProjection(ctx, n.weights + ".kv_b_proj.weight_uv", {c.heads, m.kv_lora_rank, m.v_head_dim},
                   p + "/kv_b_proj_uv/dequant");
  const std::string q_latent = g.Op("MatMul", {q.nope, w_uk}, p + "/q_absorb/MatMul");
  const std::string query =
      g.Op("Concat", {q_latent, q.rotated_pe}, p + "/q/Concat", {AttrInt("axis", -1)});
  const std::string keys_t =
      g.Op("Transpose", {cache}, p + "/key/Transpose", {AttrInts("perm", {0, 1, 3, 2})});
  const std::string scores = g.Op("MatMul", {query, keys_t}, p + "/qk/MatMul");
  const std::string scaled =
      g.Op("Mul", {scores, g.FloatScalar(LatentAttentionScale(c), g.dtype())}, p + "/qk/Mul");
  const std::string masked = g.Op("Add", {scaled, ctx.MaskFor(layer)}, p + "/qk/Add");
  const std::string probs = g.Op("Softmax", {masked}, p + "/Softmax", {AttrInt("axis", -1)});
  const std::string latents =
      g.Op("Slice", {cache, g.Int64s({0}), g.Int64s({m.kv_lora_rank}), g.Int64s({3})},
           p + "/value/Slice");
  const std::string context_latent = g.Op("MatMul", {probs, latents}, p + "/pv/MatMul");
  const std::string context = g.Op("MatMul", {context_latent, w_uv}, p + "/v_absorb/MatMul");
  const std::string by_token =
      g.Op("Transpose", {context}, p + "/pv/Transpose", {AttrInts("perm", {0, 2, 1, 3})});
  const std::string merged =
      g.Op("Reshape", {by_token, g.Int64s({0, 0, c.heads * m.v_head_dim})}, p + "/pv/Reshape");
  return Linear(ctx, merged, c.heads * m.v_head_dim, c.hidden, n.weights + ".o_proj",
                p + "/o_proj" + ProjectionOp(ctx));
}

}  // namespace hyperplan::gen
