#include "moe.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <vector>

#include "mlp.h"
#include "moe_forms.h"

namespace hyperplan::gen {

namespace {

// Router logits [batch, sequence, experts] in float32.
std::string RouterLogits(DecoderContext& ctx, const std::string& x, const std::string& w,
                         const std::string& p, bool float32 = true) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  WeightStore* store = &g.weights();
  const std::string router_name = w + ".gate.weight";
  const int64_t hidden = c.hidden;
  const int64_t experts = c.routed_experts;
  const std::string router = g.Weight(router_name, {hidden, experts}, [=] {
    return store->Uniform(router_name, hidden * experts,
                          1.0f / std::sqrt(static_cast<float>(hidden)));
  });
  std::string logits = g.Op("MatMul", {x, router}, p + "/gate/MatMul");
  if (c.router_bias) {
    const std::string bias_name = w + ".gate.bias";
    const std::string bias = g.Weight(bias_name, {experts}, [=] {
      return store->Uniform(bias_name, experts, 1.0f / std::sqrt(static_cast<float>(hidden)));
    });
    logits = g.Op("Add", {logits, bias}, p + "/gate/Add_bias");
  }
  if (float32 && g.dtype() != ElemType::kFloat32)
    logits =
        g.Op("Cast", {logits}, p + "/gate/Cast", {AttrInt("to", onnx::TensorProto_DataType_FLOAT)});
  return logits;
}

// `weights` [batch, sequence, k] at `indices` of a zero [batch, sequence, experts] tensor shaped
// like `like`, cast to the model's element type.
std::string ScatterGates(GraphBuilder& g, const std::string& like, const std::string& indices,
                         const std::string& weights, const std::string& p) {
  // `like` is finite, so multiplying by zero gives zeros of its shape without a runtime
  // Shape -> ConstantOfShape pair.
  const std::string zeros =
      g.Op("Mul", {like, g.FloatScalar(0.0f, ElemType::kFloat32)}, p + "/gate/zeros/Mul");
  std::string gates = g.Op("ScatterElements", {zeros, indices, weights},
                           p + "/gate/ScatterElements", {AttrInt("axis", -1)});
  if (g.dtype() != ElemType::kFloat32)
    gates = g.Op("Cast", {gates}, p + "/gate/Cast_1", {AttrInt("to", OnnxType(g.dtype()))});
  return gates;
}

// DeepSeek-V3's scores for choosing experts, restricted to the `groups_per_token` groups with
// the best top-two sums: a [batch, sequence, experts] 0/1 mask times `choice`.
std::string LimitToBestGroups(DecoderContext& ctx, const std::string& choice,
                              const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const int64_t groups = c.expert_groups;
  const int64_t per_group = c.routed_experts / groups;
  const std::string q = p + "/gate/group";
  const std::string grouped =
      g.Op("Reshape", {choice, g.Int64s({0, 0, groups, per_group})}, q + "/Reshape");
  const std::vector<std::string> top2 = GraphBuilder::OutputNames(q + "/TopK", 2);
  g.OpOutputs("TopK", "", {grouped, g.Int64s({2})}, top2, q + "/TopK",
              {AttrInt("axis", -1), AttrInt("largest", 1), AttrInt("sorted", 1)});
  const std::string group_scores =
      g.Op("ReduceSum", {top2[0], g.Int64s({-1})}, q + "/ReduceSum", {AttrInt("keepdims", 0)});
  const std::vector<std::string> best = GraphBuilder::OutputNames(q + "/TopK_1", 2);
  g.OpOutputs("TopK", "", {group_scores, g.Int64s({c.groups_per_token})}, best, q + "/TopK_1",
              {AttrInt("axis", -1), AttrInt("largest", 1), AttrInt("sorted", 1)});
  const std::string zero = g.FloatScalar(0.0f, ElemType::kFloat32);
  const std::string none = g.Op("Mul", {group_scores, zero}, q + "/zeros/Mul");
  const std::string ones =
      g.Op("Add",
           {g.Op("Mul", {best[0], zero}, q + "/ones/Mul"), g.FloatScalar(1.0f, ElemType::kFloat32)},
           q + "/ones/Add");
  const std::string group_mask =
      g.Op("ScatterElements", {none, best[1], ones}, q + "/ScatterElements", {AttrInt("axis", -1)});
  const std::string column = g.Op("Unsqueeze", {group_mask, g.Int64s({-1})}, q + "/Unsqueeze");
  const std::string spread =
      g.Op("Expand", {column, g.Int64s({1, 1, 1, per_group})}, q + "/Expand");
  const std::string mask =
      g.Op("Reshape", {spread, g.Int64s({0, 0, c.routed_experts})}, q + "/Reshape_1");
  return g.Op("Mul", {choice, mask}, q + "/Mul");
}

// DeepSeek-V3: sigmoid scores; experts chosen by score + e_score_correction_bias within the
// best groups; weights are the chosen experts' plain scores, renormalized and scaled.
RoutedTopK SigmoidGroupLimitedTopK(DecoderContext& ctx, const std::string& x, const std::string& w,
                                   const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  WeightStore* store = &g.weights();
  const std::string scores = g.Op("Sigmoid", {RouterLogits(ctx, x, w, p)}, p + "/gate/Sigmoid");
  const std::string bias_name = w + ".gate.e_score_correction_bias";
  const int64_t experts = c.routed_experts;
  // float32 in the published checkpoints, whatever the model's type.
  const std::string bias = g.WeightOfType(bias_name, {experts}, ElemType::kFloat32,
                                          [=] { return store->Uniform(bias_name, experts, 0.1f); });
  std::string choice = g.Op("Add", {scores, bias}, p + "/gate/bias/Add");
  if (c.expert_groups > 1) choice = LimitToBestGroups(ctx, choice, p);
  const std::vector<std::string> top = GraphBuilder::OutputNames(p + "/gate/TopK", 2);
  g.OpOutputs("TopK", "", {choice, g.Int64s({c.experts_per_token})}, top, p + "/gate/TopK",
              {AttrInt("axis", -1), AttrInt("largest", 1), AttrInt("sorted", 1)});
  std::string weights =
      g.Op("GatherElements", {scores, top[1]}, p + "/gate/GatherElements", {AttrInt("axis", -1)});
  if (c.normalize_top_k) {
    const std::string sum = g.Op("ReduceSum", {weights, g.Int64s({-1})}, p + "/gate/ReduceSum",
                                 {AttrInt("keepdims", 1)});
    const std::string denominator =
        g.Op("Add", {sum, g.FloatScalar(1e-20f, ElemType::kFloat32)}, p + "/gate/Add");
    weights = g.Op("Div", {weights, denominator}, p + "/gate/Div");
  }
  weights = g.Op(
      "Mul",
      {weights, g.FloatScalar(static_cast<float>(c.routed_scaling_factor), ElemType::kFloat32)},
      p + "/gate/scale/Mul");
  return {weights, top[1], scores};
}

// The [batch, sequence, experts] gate tensor, in the model's element type.
std::string RouterGates(DecoderContext& ctx, const std::string& x, const std::string& w,
                        const std::string& p) {
  const RoutedTopK top = RouterTopK(ctx, x, w, p);
  return ScatterGates(ctx.graph, top.scores, top.indices, top.weights, p);
}

// The shared experts' output, or empty when the model has none.
std::string SharedExperts(DecoderContext& ctx, const std::string& x, const std::string& w,
                          const std::string& p) {
  const ModelConfig& c = ctx.config;
  if (c.shared_experts == 0) return {};
  return SwiGlu(ctx, x, c.moe_intermediate * c.shared_experts, w + ".shared_experts",
                p + "/shared_experts");
}

// Dense dispatch: every expert on every token, scaled by its gate column (zero if unpicked);
// the shared experts start the sum.
std::string DenseExperts(DecoderContext& ctx, const std::string& x, const std::string& w,
                         const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const std::string gates = RouterGates(ctx, x, w, p);
  const std::vector<std::string> columns =
      GraphBuilder::OutputNames(p + "/gate/Split", c.routed_experts);
  g.OpOutputs("Split", "",
              {gates, g.Int64s(std::vector<int64_t>(static_cast<size_t>(c.routed_experts), 1))},
              columns, p + "/gate/Split", {AttrInt("axis", -1)});
  std::string sum = SharedExperts(ctx, x, w, p);
  for (int64_t e = 0; e < c.routed_experts; ++e) {
    const std::string ep = fmt::format("{}/experts.{}", p, e);
    const std::string out =
        SwiGlu(ctx, x, c.moe_intermediate, fmt::format("{}.experts.{}", w, e), ep);
    const std::string scaled =
        g.Op("Mul", {out, columns[static_cast<size_t>(e)]}, ep + "/gate/Mul");
    sum = sum.empty() ? scaled : g.Op("Add", {sum, scaled}, ep + "/Add");
  }
  return sum;
}

// DeepSeek-V3's routing through ONNX Runtime's MoE, which takes logits and applies its own
// softmax top-k: the chosen experts' weights w (normalized, times routed_scaling_factor) become
// logits log(w), every other expert -30000, so the op's top k are the chosen ones and its
// softmax over them, renormalized, is w / sum(w), the normalized weights; the scaling factor
// multiplies the output (the experts have no biases, so the sum is linear in the weights).
// Needs norm_topk_prob (MoeFormProblem).
std::string RoutedThroughLogits(DecoderContext& ctx, const std::string& x, const std::string& w,
                                const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const RoutedTopK top = RouterTopK(ctx, x, w, p);
  const std::string q = p + "/gate/as_logits";
  const std::string floor =
      g.Op("Add",
           {g.Op("Mul", {top.scores, g.FloatScalar(0.0f, ElemType::kFloat32)}, q + "/Mul"),
            g.FloatScalar(-30000.0f, ElemType::kFloat32)},
           q + "/Add");
  const std::string chosen = g.Op("Log", {top.weights}, q + "/Log");
  std::string logits = g.Op("ScatterElements", {floor, top.indices, chosen}, q + "/ScatterElements",
                            {AttrInt("axis", -1)});
  if (g.dtype() != ElemType::kFloat32)
    logits = g.Op("Cast", {logits}, q + "/Cast", {AttrInt("to", OnnxType(g.dtype()))});
  const std::string routed = OrtMoeExperts(ctx, x, logits, w, p);
  return g.Op("Mul",
              {routed, g.FloatScalar(static_cast<float>(c.routed_scaling_factor), g.dtype())},
              p + "/routed_scaling/Mul");
}

std::string WithShared(DecoderContext& ctx, const std::string& x, const std::string& w,
                       const std::string& p, const std::string& routed) {
  const std::string shared = SharedExperts(ctx, x, w, p);
  if (shared.empty()) return routed;
  return ctx.graph.Op("Add", {shared, routed}, p + "/shared_experts/Add");
}

// The experts' weighted sum in the build's form, the shared experts added.
std::string Experts(DecoderContext& ctx, const std::string& x, const std::string& w,
                    const std::string& p) {
  std::string routed;
  switch (ctx.options.moe_form) {
    case MoeForm::kOrt:
      if (ctx.config.router == Router::kSigmoidGroupLimited)
        return WithShared(ctx, x, w, p, RoutedThroughLogits(ctx, x, w, p));
      routed = OrtMoeExperts(ctx, x, RouterLogits(ctx, x, w, p, /*float32=*/false), w, p);
      break;
    case MoeForm::kGather:
      routed = GatheredExperts(ctx, x, RouterTopK(ctx, x, w, p), w, p);
      break;
    case MoeForm::kDense:
      return DenseExperts(ctx, x, w, p);
  }
  return WithShared(ctx, x, w, p, routed);
}

}  // namespace

RoutedTopK RouterTopK(DecoderContext& ctx, const std::string& x, const std::string& w,
                      const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  if (c.router == Router::kSigmoidGroupLimited) return SigmoidGroupLimitedTopK(ctx, x, w, p);
  const std::string logits = RouterLogits(ctx, x, w, p);
  const std::string probs = g.Op("Softmax", {logits}, p + "/gate/Softmax", {AttrInt("axis", -1)});
  const std::vector<std::string> top = GraphBuilder::OutputNames(p + "/gate/TopK", 2);
  g.OpOutputs("TopK", "", {probs, g.Int64s({c.experts_per_token})}, top, p + "/gate/TopK",
              {AttrInt("axis", -1), AttrInt("largest", 1), AttrInt("sorted", 1)});
  if (!c.normalize_top_k) return {top[0], top[1], probs};  // Qwen3-MoE's norm_topk_prob false
  const std::string top_sum =
      g.Op("ReduceSum", {top[0], g.Int64s({-1})}, p + "/gate/ReduceSum", {AttrInt("keepdims", 1)});
  const std::string top_weights = g.Op("Div", {top[0], top_sum}, p + "/gate/Div");
  return {top_weights, top[1], probs};
}

std::string MoeBlock(DecoderContext& ctx, int64_t layer, const std::string& x) {
  const std::string p = fmt::format("/model/layers.{}/mlp", layer);
  const std::string w = fmt::format("model.layers.{}.mlp", layer);
  return Experts(ctx, x, w, p);
}

}  // namespace hyperplan::gen
