// The ort and gather forms of an MoE layer (see moe_forms.h).
#include "moe_forms.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

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
  return {AttrInt("k", c.experts_per_token), AttrString("activation_type", "swiglu"),
          AttrInt("swiglu_fusion", 1), AttrInt("normalize_routing_weights", 1)};
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
    const std::string out = p + "/MoE/output_0";
    g.OpOutputs("MoE", kMsDomain, {x, router, fc1, "", fc2}, {out}, p + "/MoE", std::move(attrs));
    return out;
  }
  const int64_t bits = ctx.options.weights == WeightFormat::kInt8 ? 8 : 4;
  const auto [fc1, fc1_scales] =
      StackedQuantized(ctx, w, w + ".experts.fc1.weight", Fc1Of, hidden, 2 * inter, bits);
  const auto [fc2, fc2_scales] =
      StackedQuantized(ctx, w, w + ".experts.fc2.weight", Fc2Of, inter, hidden, bits);
  attrs.push_back(AttrInt("expert_weight_bits", bits));
  attrs.push_back(AttrInt("block_size", ctx.options.quant_block_size));
  const std::string out = p + "/QMoE/output_0";
  g.OpOutputs("QMoE", kMsDomain, {x, router, fc1, fc1_scales, "", fc2, fc2_scales}, {out},
              p + "/QMoE", std::move(attrs));
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
    return g.Op("Gather", {StackedMatMulWeight(ctx, w, proj, rows, cols), top.indices},
                fmt::format("{}/{}/Gather", q, proj), {AttrInt("axis", 0)});
  };
  // x [B, S, 1, 1, hidden] times each picked expert's [hidden, inter]: [B, S, k, 1, inter].
  const std::string rows = g.Op("Unsqueeze", {x, g.Int64s({2, 3})}, q + "/Unsqueeze");
  const std::string gate =
      g.Op("MatMul", {rows, gathered("gate_proj", hidden, inter)}, q + "/gate_proj/MatMul");
  const std::string up =
      g.Op("MatMul", {rows, gathered("up_proj", hidden, inter)}, q + "/up_proj/MatMul");
  const std::string silu =
      g.Op("Mul", {gate, g.Op("Sigmoid", {gate}, q + "/act_fn/Sigmoid")}, q + "/act_fn/Mul");
  const std::string gated = g.Op("Mul", {silu, up}, q + "/Mul");
  const std::string down =
      g.Op("MatMul", {gated, gathered("down_proj", inter, hidden)}, q + "/down_proj/MatMul");
  const std::string outs = g.Op("Squeeze", {down, g.Int64s({3})}, q + "/Squeeze");  // [B,S,k,H]
  std::string weights = top.weights;
  if (g.dtype() != ElemType::kFloat32)
    weights = g.Op("Cast", {weights}, q + "/weights/Cast", {AttrInt("to", OnnxType(g.dtype()))});
  const std::string column = g.Op("Unsqueeze", {weights, g.Int64s({-1})}, q + "/weights/Unsqueeze");
  const std::string scaled = g.Op("Mul", {outs, column}, q + "/weights/Mul");
  return g.Op("ReduceSum", {scaled, g.Int64s({2})}, q + "/ReduceSum", {AttrInt("keepdims", 0)});
}

std::string MoeFormProblem(const ModelConfig& config, MoeForm form, WeightFormat weights,
                           int64_t quant_block_size) {
  if (form == MoeForm::kDense) return {};
  const char* name = form == MoeForm::kOrt ? "ort" : "gather";
  if (config.routed_experts == 0)
    return fmt::format("--moe-form {}: the model has no experts", name);
  if (config.router != Router::kSoftmaxTopK)
    return fmt::format(
        "--moe-form {}: ONNX Runtime's MoE routes by softmax top-k; this model's sigmoid "
        "group-limited router is written only in the dense form",
        name);
  if (config.mlp_bias) return fmt::format("--moe-form {}: expert biases are not written", name);
  if (form == MoeForm::kGather && weights != WeightFormat::kPlain)
    return fmt::format("--moe-form gather --weights {}: gather writes plain weights only",
                       WeightFormatName(weights));
  if (form == MoeForm::kOrt && weights == WeightFormat::kFp8)
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
