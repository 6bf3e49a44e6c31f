#include "train_backward.h"

#include <fmt/format.h>

#include <cmath>

#include "train_grads.h"

namespace hyperplan::gen {

namespace {

std::string MlpBackward(TrainContext& t, const MlpStash& s, const std::string& dy,
                        const std::string& p) {
  GraphBuilder& g = t.graph;
  const int64_t hidden = t.config.hidden;
  const int64_t width = t.config.intermediate;
  const std::string d_gated =
      LinearBackward(t, s.gated, s.w_down, width, hidden, dy, p + "/down_proj");
  const std::string d_silu = g.Op("Mul", {d_gated, s.up}, p + "/silu_grad/Mul");
  const std::string d_up = g.Op("Mul", {d_gated, s.silu}, p + "/up_grad/Mul");
  // silu'(z) = s(z) * (1 + z * (1 - s(z))).
  const std::string one = g.FloatScalar(1.0f, g.dtype());
  const std::string complement = g.Op("Sub", {one, s.sigmoid}, p + "/act_grad/Sub");
  const std::string scaled = g.Op("Mul", {s.gate, complement}, p + "/act_grad/Mul");
  const std::string shifted = g.Op("Add", {scaled, one}, p + "/act_grad/Add");
  const std::string slope = g.Op("Mul", {s.sigmoid, shifted}, p + "/act_grad/Mul_1");
  const std::string d_gate = g.Op("Mul", {d_silu, slope}, p + "/act_grad/Mul_2");
  const std::string from_gate =
      LinearBackward(t, s.x, s.w_gate, hidden, width, d_gate, p + "/gate_proj");
  const std::string from_up = LinearBackward(t, s.x, s.w_up, hidden, width, d_up, p + "/up_proj");
  return g.Op("Add", {from_gate, from_up}, p + "/input_grad/Add");
}

std::string AttentionBackward(TrainContext& t, const AttentionStash& s, const std::string& dy,
                              const std::string& p) {
  GraphBuilder& g = t.graph;
  const ModelConfig& c = t.config;
  const int64_t q_width = c.heads * c.head_dim;
  const int64_t kv_width = c.kv_heads * c.head_dim;
  const std::string d_merged =
      LinearBackward(t, s.merged, s.wo, q_width, c.hidden, dy, p + "/o_proj");
  const std::string d_context = SplitHeadsGrad(t, d_merged, p + "/merge_grad");
  const std::string probs = t.ctx.options.train_attention == TrainAttention::kStash
                                ? s.probs
                                : AttentionProbs(t, s.q_rotated, s.keys_t, p + "/recompute");
  const std::string values_t =
      g.Op("Transpose", {s.values_r}, p + "/pv_grad/Transpose", {AttrInts("perm", {0, 1, 3, 2})});
  const std::string d_probs = g.Op("MatMul", {d_context, values_t}, p + "/pv_grad/MatMul");
  const std::string probs_t =
      g.Op("Transpose", {probs}, p + "/pv_grad/Transpose_1", {AttrInts("perm", {0, 1, 3, 2})});
  const std::string d_values_r = g.Op("MatMul", {probs_t, d_context}, p + "/pv_grad/MatMul_1");
  const std::string d_masked = SoftmaxBackward(t, probs, d_probs, p + "/softmax_grad");
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  const std::string d_scores =
      g.Op("Mul", {d_masked, g.FloatScalar(scale, g.dtype())}, p + "/qk_grad/Mul");
  const std::string keys =
      g.Op("Transpose", {s.keys_t}, p + "/qk_grad/Transpose", {AttrInts("perm", {0, 1, 3, 2})});
  const std::string d_q_rotated = g.Op("MatMul", {d_scores, keys}, p + "/qk_grad/MatMul");
  const std::string q_t = g.Op("Transpose", {s.q_rotated}, p + "/qk_grad/Transpose_1",
                               {AttrInts("perm", {0, 1, 3, 2})});
  const std::string d_keys_t = g.Op("MatMul", {q_t, d_scores}, p + "/qk_grad/MatMul_1");
  const std::string d_keys = RepeatKvBackward(t, d_keys_t, true, p + "/repeat_k_grad");
  const std::string d_values = RepeatKvBackward(t, d_values_r, false, p + "/repeat_v_grad");
  const std::string d_q =
      MergeHeadsGrad(t, RopeBackward(t, d_q_rotated, p + "/q_rotary_grad"), c.heads, p + "/q_grad");
  const std::string d_k =
      MergeHeadsGrad(t, RopeBackward(t, d_keys, p + "/k_rotary_grad"), c.kv_heads, p + "/k_grad");
  const std::string d_v = MergeHeadsGrad(t, d_values, c.kv_heads, p + "/v_grad");
  const std::string from_q = LinearBackward(t, s.x, s.wq, c.hidden, q_width, d_q, p + "/q_proj");
  const std::string from_k = LinearBackward(t, s.x, s.wk, c.hidden, kv_width, d_k, p + "/k_proj");
  const std::string from_v = LinearBackward(t, s.x, s.wv, c.hidden, kv_width, d_v, p + "/v_proj");
  const std::string qk = g.Op("Add", {from_q, from_k}, p + "/input_grad/Add");
  return g.Op("Add", {qk, from_v}, p + "/input_grad/Add_1");
}

}  // namespace

std::string TrainLayerBackward(TrainContext& t, int64_t layer, const LayerStash& stash,
                               const std::string& dy) {
  GraphBuilder& g = t.graph;
  const std::string p = fmt::format("/backward/layers.{}", layer);
  // out = mid + mlp(norm2(mid)), mid = x + attn(norm1(x)).
  const std::string d_mlp_in = MlpBackward(t, stash.mlp, dy, p + "/mlp");
  const std::string d_mid_branch =
      RmsNormBackward(t, stash.post_norm, d_mlp_in, p + "/post_attention_layernorm");
  const std::string d_mid = g.Op("Add", {dy, d_mid_branch}, p + "/mlp_residual_grad/Add");
  const std::string d_attn_in = AttentionBackward(t, stash.attention, d_mid, p + "/attn");
  const std::string d_x_branch =
      RmsNormBackward(t, stash.input_norm, d_attn_in, p + "/input_layernorm");
  return g.Op("Add", {d_mid, d_x_branch}, p + "/attn_residual_grad/Add");
}

}  // namespace hyperplan::gen
