#include "moe.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <vector>

#include "mlp.h"

namespace hyperplan::gen {

namespace {

// The [batch, sequence, experts] gate tensor, in the model's element type.
std::string RouterGates(DecoderContext& ctx, const std::string& x, const std::string& w,
                        const std::string& p) {
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
  if (g.dtype() != ElemType::kFloat32)
    logits =
        g.Op("Cast", {logits}, p + "/gate/Cast", {AttrInt("to", onnx::TensorProto_DataType_FLOAT)});
  const std::string probs = g.Op("Softmax", {logits}, p + "/gate/Softmax", {AttrInt("axis", -1)});
  const std::vector<std::string> top = GraphBuilder::OutputNames(p + "/gate/TopK", 2);
  g.OpOutputs("TopK", "", {probs, g.Int64s({c.experts_per_token})}, top, p + "/gate/TopK",
              {AttrInt("axis", -1), AttrInt("largest", 1), AttrInt("sorted", 1)});
  const std::string top_sum =
      g.Op("ReduceSum", {top[0], g.Int64s({-1})}, p + "/gate/ReduceSum", {AttrInt("keepdims", 1)});
  const std::string top_weights = g.Op("Div", {top[0], top_sum}, p + "/gate/Div");
  // Softmax output is finite, so multiplying by zero gives zeros of its shape without a
  // runtime Shape -> ConstantOfShape pair.
  const std::string zeros =
      g.Op("Mul", {probs, g.FloatScalar(0.0f, ElemType::kFloat32)}, p + "/gate/zeros/Mul");
  std::string gates = g.Op("ScatterElements", {zeros, top[1], top_weights},
                           p + "/gate/ScatterElements", {AttrInt("axis", -1)});
  if (g.dtype() != ElemType::kFloat32)
    gates = g.Op("Cast", {gates}, p + "/gate/Cast_1", {AttrInt("to", OnnxType(g.dtype()))});
  return gates;
}

}  // namespace

std::string MoeBlock(DecoderContext& ctx, int64_t layer, const std::string& x) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const std::string p = fmt::format("/model/layers.{}/mlp", layer);
  const std::string w = fmt::format("model.layers.{}.mlp", layer);

  const std::string gates = RouterGates(ctx, x, w, p);
  const std::vector<std::string> columns =
      GraphBuilder::OutputNames(p + "/gate/Split", c.routed_experts);
  g.OpOutputs("Split", "",
              {gates, g.Int64s(std::vector<int64_t>(static_cast<size_t>(c.routed_experts), 1))},
              columns, p + "/gate/Split", {AttrInt("axis", -1)});

  std::string sum;
  if (c.shared_experts > 0) {
    sum = SwiGlu(ctx, x, c.moe_intermediate * c.shared_experts, w + ".shared_experts",
                 p + "/shared_experts");
  }
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

}  // namespace hyperplan::gen
