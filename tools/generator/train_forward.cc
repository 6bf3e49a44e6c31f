#include "train_forward.h"

#include <fmt/format.h>

#include <cmath>

#include "heads.h"
#include "linear.h"
#include "rope.h"

namespace hyperplan::gen {

namespace {

std::string NormWeight(TrainContext& t, const std::string& name) {
  WeightStore* store = &t.graph.weights();
  const int64_t hidden = t.config.hidden;
  return t.graph.Weight(name, {hidden}, [store, name, hidden] {
    std::vector<float> values = store->Uniform(name, hidden, 0.1f);
    for (float& v : values) v += 1.0f;
    return values;
  });
}

std::string AttentionForward(TrainContext& t, int64_t layer, const std::string& x,
                             AttentionStash* s) {
  GraphBuilder& g = t.graph;
  const ModelConfig& c = t.config;
  const std::string p = fmt::format("/model/layers.{}/attn", layer);
  const std::string w = fmt::format("model.layers.{}.self_attn", layer);
  s->x = x;
  s->wq = w + ".q_proj.weight";
  s->wk = w + ".k_proj.weight";
  s->wv = w + ".v_proj.weight";
  s->wo = w + ".o_proj.weight";
  const std::string q =
      Linear(t.ctx, x, c.hidden, c.heads * c.head_dim, w + ".q_proj", p + "/q_proj/MatMul");
  const std::string k =
      Linear(t.ctx, x, c.hidden, c.kv_heads * c.head_dim, w + ".k_proj", p + "/k_proj/MatMul");
  const std::string v =
      Linear(t.ctx, x, c.hidden, c.kv_heads * c.head_dim, w + ".v_proj", p + "/v_proj/MatMul");
  s->q_rotated = ApplyRope(t.ctx, SplitHeads(g, q, c.heads, c.head_dim, p + "/q"), p + "/q_rotary");
  const std::string keys =
      ApplyRope(t.ctx, SplitHeads(g, k, c.kv_heads, c.head_dim, p + "/k"), p + "/k_rotary");
  const std::string values = SplitHeads(g, v, c.kv_heads, c.head_dim, p + "/v");
  s->keys_t = RepeatKv(t.ctx, keys, true, p + "/repeat_k");
  s->values_r = RepeatKv(t.ctx, values, false, p + "/repeat_v");
  s->probs = AttentionProbs(t, s->q_rotated, s->keys_t, p);
  const std::string context = g.Op("MatMul", {s->probs, s->values_r}, p + "/pv/MatMul");
  const std::string by_token =
      g.Op("Transpose", {context}, p + "/pv/Transpose", {AttrInts("perm", {0, 2, 1, 3})});
  s->merged =
      g.Op("Reshape", {by_token, g.Int64s({0, 0, c.heads * c.head_dim})}, p + "/pv/Reshape");
  return Linear(t.ctx, s->merged, c.heads * c.head_dim, c.hidden, w + ".o_proj",
                p + "/o_proj/MatMul");
}

std::string MlpForward(TrainContext& t, int64_t layer, const std::string& x, MlpStash* s) {
  GraphBuilder& g = t.graph;
  const int64_t hidden = t.config.hidden;
  const int64_t width = t.config.intermediate;
  const std::string p = fmt::format("/model/layers.{}/mlp", layer);
  const std::string w = fmt::format("model.layers.{}.mlp", layer);
  s->x = x;
  s->w_gate = w + ".gate_proj.weight";
  s->w_up = w + ".up_proj.weight";
  s->w_down = w + ".down_proj.weight";
  s->gate = Linear(t.ctx, x, hidden, width, w + ".gate_proj", p + "/gate_proj/MatMul");
  s->up = Linear(t.ctx, x, hidden, width, w + ".up_proj", p + "/up_proj/MatMul");
  s->sigmoid = g.Op("Sigmoid", {s->gate}, p + "/act_fn/Sigmoid");
  s->silu = g.Op("Mul", {s->gate, s->sigmoid}, p + "/act_fn/Mul");
  s->gated = g.Op("Mul", {s->silu, s->up}, p + "/Mul");
  return Linear(t.ctx, s->gated, width, hidden, w + ".down_proj", p + "/down_proj/MatMul");
}

}  // namespace

std::string AttentionProbs(TrainContext& t, const std::string& q_rotated, const std::string& keys_t,
                           const std::string& p) {
  GraphBuilder& g = t.graph;
  const std::string scores = g.Op("MatMul", {q_rotated, keys_t}, p + "/qk/MatMul");
  const float scale = 1.0f / std::sqrt(static_cast<float>(t.config.head_dim));
  const std::string scaled = g.Op("Mul", {scores, g.FloatScalar(scale, g.dtype())}, p + "/qk/Mul");
  const std::string masked = g.Op("Add", {scaled, t.ctx.causal_mask}, p + "/qk/Add");
  return g.Op("Softmax", {masked}, p + "/Softmax", {AttrInt("axis", -1)});
}

NormStash TrainRmsNorm(TrainContext& t, const std::string& x, const std::string& weight_name,
                       const std::string& p) {
  GraphBuilder& g = t.graph;
  NormStash s;
  s.x = x;
  s.weight = NormWeight(t, weight_name);
  const std::string squared = g.Op("Mul", {x, x}, p + "/Mul");
  const std::string mean = g.Op("ReduceMean", {squared}, p + "/ReduceMean",
                                {AttrInts("axes", {-1}), AttrInt("keepdims", 1)});
  const std::string shifted =
      g.Op("Add", {mean, g.FloatScalar(t.config.rms_epsilon, g.dtype())}, p + "/Add");
  s.rms = g.Op("Sqrt", {shifted}, p + "/Sqrt");
  s.normalized = g.Op("Div", {x, s.rms}, p + "/Div");
  s.out = g.Op("Mul", {s.normalized, s.weight}, p + "/Mul_1");
  return s;
}

std::string TrainLayerForward(TrainContext& t, int64_t layer, const std::string& hidden,
                              LayerStash* stash) {
  GraphBuilder& g = t.graph;
  const std::string p = fmt::format("/model/layers.{}", layer);
  const std::string w = fmt::format("model.layers.{}", layer);
  stash->input_norm =
      TrainRmsNorm(t, hidden, w + ".input_layernorm.weight", p + "/input_layernorm");
  const std::string attended = AttentionForward(t, layer, stash->input_norm.out, &stash->attention);
  const std::string mid = g.Op("Add", {hidden, attended}, p + "/attn_residual/Add");
  stash->post_norm =
      TrainRmsNorm(t, mid, w + ".post_attention_layernorm.weight", p + "/post_attention_layernorm");
  const std::string mlp = MlpForward(t, layer, stash->post_norm.out, &stash->mlp);
  return g.Op("Add", {mid, mlp}, p + "/mlp_residual/Add");
}

}  // namespace hyperplan::gen
