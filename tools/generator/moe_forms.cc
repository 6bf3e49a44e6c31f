// The ort and gather forms of an MoE layer (see moe_forms.h).
#include "moe_forms.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "mlp.h"
#include "moe_quantized.h"
#include "quantize_nbits.h"

namespace hyperplan::gen {

namespace {

// One expert's three projections as the dense form draws them, row-major [in, out].
struct ExpertWeights {
  std::vector<float> gate;  // [hidden, inter]
  std::vector<float> up;    // [hidden, inter]
  std::vector<float> down;  // [inter, hidden]
};

ExpertWeights DrawExpert(const WeightStore& store, const ModelConfig& c, const std::string& w,
                         int64_t e) {
  const int64_t hidden = c.hidden;
  const int64_t inter = c.moe_intermediate;
  const std::string base = fmt::format("{}.experts.{}", w, e);
  const float in_bound = 1.0f / std::sqrt(static_cast<float>(hidden));
  const float down_bound = 1.0f / std::sqrt(static_cast<float>(inter));
  return {store.Uniform(base + ".gate_proj.weight", hidden * inter, in_bound),
          store.Uniform(base + ".up_proj.weight", hidden * inter, in_bound),
          store.Uniform(base + ".down_proj.weight", inter * hidden, down_bound)};
}

// fc1 as a MatMul weight [hidden, 2 * inter]: column 2j is gate column j, 2j + 1 up column j
// (swiglu_fusion 1 interleaves g and l on each output row).
std::vector<float> InterleavedGateUp(const ExpertWeights& ew, int64_t hidden, int64_t inter) {
  std::vector<float> fused(static_cast<size_t>(hidden * 2 * inter));
  for (int64_t k = 0; k < hidden; ++k) {
    for (int64_t j = 0; j < inter; ++j) {
      const size_t from = static_cast<size_t>(k * inter + j);
      fused[static_cast<size_t>(k * 2 * inter + 2 * j)] = ew.gate[from];
      fused[static_cast<size_t>(k * 2 * inter + 2 * j + 1)] = ew.up[from];
    }
  }
  return fused;
}

// A row-major [K, N] matrix as MoE stores it per expert: [N, K].
std::vector<float> Transposed(const std::vector<float>& m, int64_t k, int64_t n) {
  std::vector<float> t(m.size());
  for (int64_t r = 0; r < k; ++r) {
    for (int64_t col = 0; col < n; ++col) {
      t[static_cast<size_t>(col * k + r)] = m[static_cast<size_t>(r * n + col)];
    }
  }
  return t;
}

// Every expert's fc1 ([hidden, 2 inter]) or fc2 ([inter, hidden]) as a MatMul weight [K, N].
using ExpertMatrix = std::vector<float> (*)(const ExpertWeights&, const ModelConfig&);

std::vector<float> Fc1Of(const ExpertWeights& ew, const ModelConfig& c) {
  return InterleavedGateUp(ew, c.hidden, c.moe_intermediate);
}
std::vector<float> Fc2Of(const ExpertWeights& ew, const ModelConfig&) { return ew.down; }

// The stacked float weight [E, N, K] of one of fc1 / fc2.
std::string StackedFloat(DecoderContext& ctx, const std::string& w, const std::string& name,
                         ExpertMatrix matrix, int64_t k, int64_t n) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const WeightStore* store = &g.weights();
  return g.Weight(name, {c.routed_experts, n, k}, [=, &c] {
    std::vector<float> stacked;
    for (int64_t e = 0; e < c.routed_experts; ++e) {
      const std::vector<float> t = Transposed(matrix(DrawExpert(*store, c, w, e), c), k, n);
      stacked.insert(stacked.end(), t.begin(), t.end());
    }
    return stacked;
  });
}

// The stacked QMoE codes [E, N, K * bits / 8] and scales [E, N, K / block] of fc1 / fc2.
std::pair<std::string, std::string> StackedQuantized(DecoderContext& ctx, const std::string& w,
                                                     const std::string& name, ExpertMatrix matrix,
                                                     int64_t k, int64_t n, int64_t bits) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const WeightStore* store = &g.weights();
  const int64_t block = ctx.options.quant_block_size;
  const ElemType dtype = g.dtype();
  // Both initializers come from one quantization, made at most once and only when inline.
  auto quantized = std::make_shared<std::optional<std::vector<QuantizedNBits>>>();
  auto quantize = [=, &c]() -> const std::vector<QuantizedNBits>& {
    if (!*quantized) {
      std::vector<QuantizedNBits> experts;
      for (int64_t e = 0; e < c.routed_experts; ++e)
        experts.push_back(
            QuantizeNBits(matrix(DrawExpert(*store, c, w, e), c), k, n, block, bits, dtype));
      *quantized = std::move(experts);
    }
    return **quantized;
  };
  const std::string codes = g.WeightBytes(name, {c.routed_experts, n, k * bits / 8},
                                          onnx::TensorProto_DataType_UINT8, 1, [quantize] {
                                            std::string bytes;
                                            for (const QuantizedNBits& q : quantize())
                                              bytes += q.packed;
                                            return bytes;
                                          });
  const std::string scales =
      g.Weight(name + "_scales", {c.routed_experts, n, k / block}, [quantize] {
        std::vector<float> all;
        for (const QuantizedNBits& q : quantize())
          all.insert(all.end(), q.scales.begin(), q.scales.end());
        return all;
      });
  return {codes, scales};
}

std::vector<onnx::AttributeProto> MoeAttributes(const ModelConfig& c) {
  std::vector<onnx::AttributeProto> attrs = {
      AttrInt("k", c.experts_per_token), AttrString("activation_type", "swiglu"),
      AttrInt("swiglu_fusion", 1), AttrInt("normalize_routing_weights", c.normalize_top_k ? 1 : 0)};
  if (!c.ClampedSwiGlu()) return attrs;
  // ORT's SwiGLU: (clamp(up, +-limit) + beta) * g * sigmoid(alpha * g), g = min(gate, limit).
  attrs.push_back(AttrFloat("activation_alpha", c.swiglu_alpha));
  attrs.push_back(AttrFloat("activation_beta", c.swiglu_beta));
  if (c.swiglu_limit > 0.0f) attrs.push_back(AttrFloat("swiglu_limit", c.swiglu_limit));
  return attrs;
}

// The stacked plain weight [E, rows, cols] of one projection, in MatMul layout.
std::string StackedMatMulWeight(DecoderContext& ctx, const std::string& w, const char* proj,
                                int64_t rows, int64_t cols) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const WeightStore* store = &g.weights();
  const std::string which = proj;
  return g.Weight(fmt::format("{}.experts.{}.weight", w, proj), {c.routed_experts, rows, cols},
                  [=, &c] {
                    std::vector<float> stacked;
                    for (int64_t e = 0; e < c.routed_experts; ++e) {
                      const ExpertWeights ew = DrawExpert(*store, c, w, e);
                      const std::vector<float>& m = which == "gate_proj" ? ew.gate
                                                    : which == "up_proj" ? ew.up
                                                                         : ew.down;
                      stacked.insert(stacked.end(), m.begin(), m.end());
                    }
                    return stacked;
                  });
}

// One expert projection's bias as the dense form draws it ("<w>.experts.<e>.<proj>.bias").
std::vector<float> DrawBias(const WeightStore& store, const std::string& w, int64_t e,
                            const char* proj, int64_t in, int64_t out) {
  return store.Uniform(fmt::format("{}.experts.{}.{}.bias", w, e, proj), out,
                       1.0f / std::sqrt(static_cast<float>(in)));
}

// Every expert's bias of one projection, stacked [E, out].
std::string StackedBias(DecoderContext& ctx, const std::string& w, const char* proj, int64_t in,
                        int64_t out) {
  GraphBuilder& g = ctx.graph;
  const int64_t experts = ctx.config.routed_experts;
  const WeightStore* store = &g.weights();
  const std::string which = proj;
  return g.Weight(fmt::format("{}.experts.{}.bias", w, proj), {experts, out}, [=] {
    std::vector<float> stacked;
    for (int64_t e = 0; e < experts; ++e) {
      const std::vector<float> b = DrawBias(*store, w, e, which.c_str(), in, out);
      stacked.insert(stacked.end(), b.begin(), b.end());
    }
    return stacked;
  });
}

// fc1's bias [E, 2 * inter], gate and up interleaved as fc1's rows; fc2's [E, hidden].
std::pair<std::string, std::string> OrtBiases(DecoderContext& ctx, const std::string& w) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  if (!c.mlp_bias) return {};
  const int64_t experts = c.routed_experts, hidden = c.hidden, inter = c.moe_intermediate;
  const WeightStore* store = &g.weights();
  const std::string fc1 = g.Weight(w + ".experts.fc1.bias", {experts, 2 * inter}, [=] {
    std::vector<float> stacked;
    for (int64_t e = 0; e < experts; ++e) {
      const std::vector<float> gate = DrawBias(*store, w, e, "gate_proj", hidden, inter);
      const std::vector<float> up = DrawBias(*store, w, e, "up_proj", hidden, inter);
      for (size_t j = 0; j < gate.size(); ++j) {
        stacked.push_back(gate[j]);
        stacked.push_back(up[j]);
      }
    }
    return stacked;
  });
  return {fc1, StackedBias(ctx, w, "down_proj", inter, hidden)};
}

}  // namespace

std::string OrtMoeExperts(DecoderContext& ctx, const std::string& x, const std::string& logits,
                          const std::string& w, const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const int64_t hidden = c.hidden;
  const int64_t inter = c.moe_intermediate;
  const std::string router =
      g.Op("Reshape", {logits, g.Int64s({-1, c.routed_experts})}, p + "/gate/Reshape");
  std::vector<onnx::AttributeProto> attrs = MoeAttributes(c);
  if (!ctx.nbits_weights()) {
    const std::string fc1 =
        StackedFloat(ctx, w, w + ".experts.fc1.weight", Fc1Of, hidden, 2 * inter);
    const std::string fc2 = StackedFloat(ctx, w, w + ".experts.fc2.weight", Fc2Of, inter, hidden);
    const auto [fc1_bias, fc2_bias] = OrtBiases(ctx, w);
    std::vector<std::string> inputs = {x, router, fc1, fc1_bias, fc2};
    if (!fc2_bias.empty()) inputs.push_back(fc2_bias);
    const std::string out = p + "/MoE/output_0";
    g.OpOutputs("MoE", kMsDomain, inputs, {out}, p + "/MoE", std::move(attrs));
    return out;
  }
  const int64_t bits = ctx.options.weights == WeightFormat::kInt8 ? 8 : 4;
  const auto [fc1, fc1_scales] =
      StackedQuantized(ctx, w, w + ".experts.fc1.weight", Fc1Of, hidden, 2 * inter, bits);
  const auto [fc2, fc2_scales] =
      StackedQuantized(ctx, w, w + ".experts.fc2.weight", Fc2Of, inter, hidden, bits);
  attrs.push_back(AttrInt("expert_weight_bits", bits));
  attrs.push_back(AttrInt("block_size", ctx.options.quant_block_size));
  const auto [fc1_bias, fc2_bias] = OrtBiases(ctx, w);
  std::vector<std::string> inputs = {x, router, fc1, fc1_scales, fc1_bias, fc2, fc2_scales};
  if (!fc2_bias.empty()) inputs.push_back(fc2_bias);
  const std::string out = p + "/QMoE/output_0";
  g.OpOutputs("QMoE", kMsDomain, inputs, {out}, p + "/QMoE", std::move(attrs));
  return out;
}

std::string GatheredExperts(DecoderContext& ctx, const std::string& x, const RoutedTopK& top,
                            const std::string& w, const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const ModelConfig& c = ctx.config;
  const int64_t hidden = c.hidden;
  const int64_t inter = c.moe_intermediate;
  const std::string q = p + "/experts";
  const auto gathered = [&](const char* proj, int64_t rows, int64_t cols) {
    if (ctx.options.weights != WeightFormat::kPlain)
      return GatheredQuantizedWeight(ctx, w, proj, rows, cols, top.indices,
                                     fmt::format("{}/{}/dequant", q, proj));
    return g.Op("Gather", {StackedMatMulWeight(ctx, w, proj, rows, cols), top.indices},
                fmt::format("{}/{}/Gather", q, proj), {AttrInt("axis", 0)});
  };
  // x [B, S, 1, 1, hidden] times each picked expert's [hidden, inter]: [B, S, k, 1, inter].
  const std::string rows = g.Op("Unsqueeze", {x, g.Int64s({2, 3})}, q + "/Unsqueeze");
  // + the picked experts' biases [B, S, k, 1, out], when the experts have them.
  const auto biased = [&](const std::string& product, const char* proj, int64_t in, int64_t out) {
    if (!c.mlp_bias) return product;
    const std::string picked =
        g.Op("Gather", {StackedBias(ctx, w, proj, in, out), top.indices},
             fmt::format("{}/{}/bias/Gather", q, proj), {AttrInt("axis", 0)});
    const std::string row =
        g.Op("Unsqueeze", {picked, g.Int64s({-2})}, fmt::format("{}/{}/bias/Unsqueeze", q, proj));
    return g.Op("Add", {product, row}, fmt::format("{}/{}/Add", q, proj));
  };
  const std::string gate =
      biased(g.Op("MatMul", {rows, gathered("gate_proj", hidden, inter)}, q + "/gate_proj/MatMul"),
             "gate_proj", hidden, inter);
  const std::string up =
      biased(g.Op("MatMul", {rows, gathered("up_proj", hidden, inter)}, q + "/up_proj/MatMul"),
             "up_proj", hidden, inter);
  const std::string gated = GluActivation(ctx, gate, up, q);
  const std::string down =
      biased(g.Op("MatMul", {gated, gathered("down_proj", inter, hidden)}, q + "/down_proj/MatMul"),
             "down_proj", inter, hidden);
  const std::string outs = g.Op("Squeeze", {down, g.Int64s({3})}, q + "/Squeeze");  // [B,S,k,H]
  std::string weights = top.weights;
  if (g.dtype() != ElemType::kFloat32)
    weights = g.Op("Cast", {weights}, q + "/weights/Cast", {AttrInt("to", OnnxType(g.dtype()))});
  const std::string column = g.Op("Unsqueeze", {weights, g.Int64s({-1})}, q + "/weights/Unsqueeze");
  const std::string scaled = g.Op("Mul", {outs, column}, q + "/weights/Mul");
  return g.Op("ReduceSum", {scaled, g.Int64s({2})}, q + "/ReduceSum", {AttrInt("keepdims", 0)});
}

namespace {

// What the gather form's quantized experts need (moe_quantized.h).
std::string GatherWeightProblem(const ModelConfig& c, WeightFormat weights, int64_t fp8_rows,
                                int64_t fp8_cols) {
  const int64_t hidden = c.hidden, inter = c.moe_intermediate;
  switch (weights) {
    case WeightFormat::kPlain:
      return {};
    case WeightFormat::kInt8:
      return "--moe-form gather --weights int8: the gather form stores experts plain, int4, fp8 "
             "or mxfp4";
    case WeightFormat::kInt4:
    case WeightFormat::kMxfp4:
      if (hidden % 32 == 0 && inter % 32 == 0) return {};
      return fmt::format(
          "--moe-form gather --weights {}: hidden ({}) and the expert width ({}) must be "
          "multiples of the 32-weight block",
          WeightFormatName(weights), hidden, inter);
    case WeightFormat::kFp8:
      if (hidden % fp8_rows == 0 && inter % fp8_rows == 0 && hidden % fp8_cols == 0 &&
          inter % fp8_cols == 0)
        return {};
      return fmt::format(
          "--moe-form gather --weights fp8: hidden ({}) and the expert width ({}) must be "
          "multiples of the {}x{} scale block",
          hidden, inter, fp8_rows, fp8_cols);
  }
  return {};
}

}  // namespace

std::string MoeFormProblem(const ModelConfig& config, MoeForm form, WeightFormat weights,
                           int64_t quant_block_size, int64_t fp8_rows, int64_t fp8_cols) {
  if (form == MoeForm::kDense) {
    if (weights == WeightFormat::kMxfp4)
      return "--weights mxfp4: MXFP4 experts are written in the gather form only (--moe-form "
             "gather)";
    return {};
  }
  const char* name = form == MoeForm::kOrt ? "ort" : "gather";
  if (config.routed_experts == 0)
    return fmt::format("--moe-form {}: the model has no experts", name);
  if (form == MoeForm::kOrt && config.router != Router::kSoftmaxTopK &&
      (!config.normalize_top_k || config.mlp_bias))
    return "--moe-form ort: ONNX Runtime's MoE renormalizes its softmax top-k; this model's "
           "sigmoid group-limited router reaches it as logits only with norm_topk_prob and no "
           "expert biases (the dense and gather forms take it as it is)";
  if (form == MoeForm::kGather) return GatherWeightProblem(config, weights, fp8_rows, fp8_cols);
  if (weights == WeightFormat::kMxfp4)
    return "--moe-form ort --weights mxfp4: QMoE reads int4 or int8 blocks with float scales, "
           "not MXFP4 (use --weights int4, 4.5 bits a weight, or --moe-form gather)";
  if (weights == WeightFormat::kFp8)
    return "--moe-form ort --weights fp8: QMoE stores int4 or int8 codes, not fp8";
  const bool quantized = weights == WeightFormat::kInt4 || weights == WeightFormat::kInt8;
  if (quantized &&
      (config.hidden % quant_block_size != 0 || config.moe_intermediate % quant_block_size != 0))
    return fmt::format(
        "--moe-form ort --weights {}: QMoE needs hidden ({}) and the expert width ({}) to be "
        "multiples of the block size {}",
        WeightFormatName(weights), config.hidden, config.moe_intermediate, quant_block_size);
  return {};
}

}  // namespace hyperplan::gen
