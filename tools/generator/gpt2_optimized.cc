// GPT-2 with the ONNX Runtime optimizer's fused operators (see gpt2_optimized.h).
#include "gpt2_optimized.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "graph_builder.h"
#include "weight_store.h"

namespace hyperplan::gen {
namespace {

constexpr int64_t kIrVersion = 8;
constexpr int64_t kOnnxOpset = 17;
constexpr float kLayerNormEpsilon = 1e-5f;  // GPT-2's layer_norm_epsilon

struct Gpt2 {
  const ModelConfig& config;
  GraphBuilder& graph;
};

// A weight uniform in [-bound, bound) (or 1 + that, for a norm's scale).
std::string Draw(Gpt2& m, const std::string& name, const std::vector<int64_t>& dims, float bound,
                 float offset = 0.0f) {
  WeightStore* store = &m.graph.weights();
  int64_t count = 1;
  for (int64_t dim : dims) count *= dim;
  return m.graph.Weight(name, dims, [store, name, count, bound, offset] {
    std::vector<float> values = store->Uniform(name, count, bound);
    for (float& value : values) value += offset;
    return values;
  });
}

float FanIn(int64_t features) { return 1.0f / std::sqrt(static_cast<float>(features)); }

// Returns {normed, embedding_sum}: the first layer's norm input and the residual stream.
std::pair<std::string, std::string> Embed(Gpt2& m) {
  const ModelConfig& c = m.config;
  const std::string words = Draw(m, "transformer.wte.weight", {c.vocab, c.hidden}, 1.0f);
  const std::string positions =
      Draw(m, "transformer.wpe.weight", {c.max_positions, c.hidden}, 0.1f);
  const std::string gamma = Draw(m, "transformer.h.0.ln_1.weight", {c.hidden}, 0.1f, 1.0f);
  const std::string beta = Draw(m, "transformer.h.0.ln_1.bias", {c.hidden}, 0.1f);
  m.graph.OpOutputs("EmbedLayerNormalization", kMsDomain,
                    {"input_ids", "", words, positions, "", gamma, beta, "", "position_ids"},
                    {"EmbedLayerNormalization_0", "mask_index", "embedding_sum"},
                    "EmbedLayerNormalization_0", {AttrFloat("epsilon", kLayerNormEpsilon)});
  return {"EmbedLayerNormalization_0", "embedding_sum"};
}

// residual + x + bias, then the norm `norm_name`: returns {normed, sum}.
std::pair<std::string, std::string> SkipNorm(Gpt2& m, const std::string& x,
                                             const std::string& residual, const std::string& bias,
                                             const std::string& norm_name, const std::string& p) {
  const int64_t hidden = m.config.hidden;
  const std::string gamma = Draw(m, norm_name + ".weight", {hidden}, 0.1f, 1.0f);
  const std::string beta = Draw(m, norm_name + ".bias", {hidden}, 0.1f);
  const std::string normed = p + "/output_0";
  const std::string sum = p + "/output_3";
  m.graph.OpOutputs("SkipLayerNormalization", kMsDomain, {x, residual, gamma, beta, bias},
                    {normed, "", "", sum}, p, {AttrFloat("epsilon", kLayerNormEpsilon)});
  return {normed, sum};
}

// One block: fused attention over past_<i>, projection, skip norm, MLP, skip norm into the
// next block's ln_1 (ln_f after the last). Returns {normed, residual} for the next block.
std::pair<std::string, std::string> Block(Gpt2& m, int64_t i, const std::string& normed,
                                          const std::string& residual) {
  const ModelConfig& c = m.config;
  const int64_t d = c.hidden;
  const std::string h = fmt::format("transformer.h.{}", i);
  const std::string n = fmt::format("/h.{}", i);
  const std::string qkv_w = Draw(m, h + ".attn.c_attn.weight", {d, 3 * d}, FanIn(d));
  const std::string qkv_b = Draw(m, h + ".attn.c_attn.bias", {3 * d}, 0.02f);
  const std::string attention = n + "/Attention/output_0";
  m.graph.OpOutputs("Attention", kMsDomain, {normed, qkv_w, qkv_b, "", fmt::format("past_{}", i)},
                    {attention, fmt::format("present_{}", i)}, n + "/Attention",
                    {AttrInt("num_heads", c.heads), AttrInt("unidirectional", 1)});
  const std::string proj_w = Draw(m, h + ".attn.c_proj.weight", {d, d}, FanIn(d));
  const std::string proj_b = Draw(m, h + ".attn.c_proj.bias", {d}, 0.02f);
  const std::string projected = m.graph.Op("MatMul", {attention, proj_w}, n + "/attn/MatMul");
  const auto [mlp_in, mid] = SkipNorm(m, projected, residual, proj_b, h + ".ln_2", n + "/SkipLn_1");

  const std::string fc_w = Draw(m, h + ".mlp.c_fc.weight", {d, c.intermediate}, FanIn(d));
  const std::string fc_b = Draw(m, h + ".mlp.c_fc.bias", {c.intermediate}, 0.02f);
  const std::string fc = m.graph.Op("MatMul", {mlp_in, fc_w}, n + "/mlp/MatMul");
  const std::string gelu = i % 2 == 0 ? "FastGelu" : "BiasGelu";
  const std::string activated = n + "/mlp/" + gelu + "/output_0";
  m.graph.OpOutputs(gelu, kMsDomain, {fc, fc_b}, {activated}, n + "/mlp/" + gelu);
  const std::string out_w =
      Draw(m, h + ".mlp.c_proj.weight", {c.intermediate, d}, FanIn(c.intermediate));
  const std::string out_b = Draw(m, h + ".mlp.c_proj.bias", {d}, 0.02f);
  const std::string down = m.graph.Op("MatMul", {activated, out_w}, n + "/mlp/MatMul_1");
  const std::string next_norm =
      i + 1 == c.layers ? "transformer.ln_f" : fmt::format("transformer.h.{}.ln_1", i + 1);
  return SkipNorm(m, down, mid, out_b, next_norm, n + "/SkipLn_2");
}

void Declare(Gpt2& m) {
  const ModelConfig& c = m.config;
  for (const char* name : {"input_ids", "position_ids"}) {
    m.graph.Input(name, onnx::TensorProto::INT32, {"batch", "sequence"});
  }
  for (int64_t i = 0; i < c.layers; ++i) {
    m.graph.Input(fmt::format("past_{}", i), onnx::TensorProto::FLOAT,
                  {int64_t{2}, "batch", c.heads, "past_sequence", c.head_dim});
  }
}

void DeclareOutputs(Gpt2& m) {
  const ModelConfig& c = m.config;
  m.graph.Output("logits", onnx::TensorProto::FLOAT, {"batch", "sequence", c.vocab});
  for (int64_t i = 0; i < c.layers; ++i) {
    m.graph.Output(fmt::format("present_{}", i), onnx::TensorProto::FLOAT,
                   {int64_t{2}, "batch", c.heads, "total_sequence", c.head_dim});
  }
}

void DescribeModel(onnx::ModelProto& model, const ModelConfig& c) {
  model.set_ir_version(kIrVersion);
  model.set_producer_name("hyperplan-gen");
  model.set_producer_version("0.1.0");
  auto* onnx_opset = model.add_opset_import();
  onnx_opset->set_domain("");
  onnx_opset->set_version(kOnnxOpset);
  auto* ms_opset = model.add_opset_import();
  ms_opset->set_domain(kMsDomain);
  ms_opset->set_version(1);
  model.set_doc_string(fmt::format(
      "{} gpt2-optimized (ONNX Runtime transformer optimizer's ops): {} layers, hidden {}, {} "
      "heads of {}, intermediate {}, vocab {}, float32",
      c.preset, c.layers, c.hidden, c.heads, c.head_dim, c.intermediate, c.vocab));
}

}  // namespace

onnx::ModelProto BuildGpt2Optimized(const ModelConfig& config, const BuildOptions& options,
                                    BuildStats* stats) {
  if (config.heads * config.head_dim != config.hidden || config.routed_experts > 0 ||
      config.IsMla()) {
    throw std::invalid_argument(
        "--form gpt2-optimized: a dense model whose heads x head_dim is its hidden size");
  }
  ModelConfig c = config;
  c.dtype = ElemType::kFloat32;  // ONNX Runtime's CPU kernels of these ops take float only
  onnx::ModelProto model;
  DescribeModel(model, c);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name(c.preset + "-gpt2-optimized");
  WeightStore weights(options.external_weights, options.weights_location, options.seed);
  GraphBuilder builder(graph, &weights, c.dtype);
  Gpt2 m{c, builder};

  Declare(m);
  auto [normed, residual] = Embed(m);
  for (int64_t i = 0; i < c.layers; ++i) std::tie(normed, residual) = Block(m, i, normed, residual);
  const std::string lm_head = Draw(m, "lm_head.weight", {c.hidden, c.vocab}, FanIn(c.hidden));
  builder.Op("MatMul", {normed, lm_head}, "lm_head/MatMul", {}, "logits");
  DeclareOutputs(m);

  RecordBuildStats(builder, weights, stats);
  return model;
}

}  // namespace hyperplan::gen
