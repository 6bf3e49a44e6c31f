#include "linear.h"

#include <cmath>
#include <memory>
#include <optional>

#include "quantize_fp8.h"
#include "quantize_nbits.h"

namespace hyperplan::gen {

namespace {

using Draw = std::function<std::vector<float>()>;

WeightFormat StoredFormat(const DecoderContext& ctx, const std::string& weight_base) {
  // DeepSeek-V3's fp8 checkpoint keeps the LM head (and embedding, norms, router) in bf16.
  if (ctx.options.weights == WeightFormat::kFp8 && weight_base == "lm_head")
    return WeightFormat::kPlain;
  return ctx.options.weights;
}

int64_t Bits(WeightFormat format) { return format == WeightFormat::kInt8 ? 8 : 4; }

std::string MatMulNBits(DecoderContext& ctx, const std::string& x, int64_t in_features,
                        int64_t out_features, const std::string& weight_base, const Draw& draw,
                        const std::string& node_name, const std::string& output) {
  GraphBuilder& g = ctx.graph;
  const int64_t block = ctx.options.quant_block_size;
  const int64_t bits = Bits(ctx.options.weights);
  const ElemType dtype = g.dtype();
  // Both initializers come from one quantization, made at most once and only when some
  // initializer is inline.
  auto quantized = std::make_shared<std::optional<QuantizedNBits>>();
  auto quantize = [=]() -> QuantizedNBits& {
    if (!*quantized)
      *quantized = QuantizeNBits(draw(), in_features, out_features, block, bits, dtype);
    return **quantized;
  };
  const int64_t k_blocks = (in_features + block - 1) / block;
  const std::string packed =
      g.WeightBytes(weight_base + (bits == 8 ? ".weight_Q8" : ".weight_Q4"),
                    {out_features, k_blocks, BlockBytes(block, bits)},
                    onnx::TensorProto_DataType_UINT8, 1, [quantize] { return quantize().packed; });
  const std::string scales = g.Weight(weight_base + ".weight_scales", {out_features, k_blocks},
                                      [quantize] { return quantize().scales; });
  const std::string out = output.empty() ? node_name + "/output_0" : output;
  g.OpOutputs("MatMulNBits", kMsDomain, {x, packed, scales}, {out}, node_name,
              {AttrInt("K", in_features), AttrInt("N", out_features), AttrInt("bits", bits),
               AttrInt("block_size", block), AttrInt("accuracy_level", 0)});
  return out;
}

std::string PlainWeight(DecoderContext& ctx, const std::string& name, int64_t in_features,
                        int64_t out_features, const Draw& draw) {
  GraphBuilder& g = ctx.graph;
  if (!ctx.options.fake_quant) return g.Weight(name, {in_features, out_features}, draw);
  const int64_t block = ctx.options.quant_block_size;
  const ElemType dtype = g.dtype();
  return g.Weight(name, {in_features, out_features}, [=] {
    return DequantizeNBits(QuantizeNBits(draw(), in_features, out_features, block, 4, dtype));
  });
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t product = 1;
  for (int64_t d : dims) product *= d;
  return product;
}

// `lead` followed by `tail`.
std::vector<int64_t> Joined(std::vector<int64_t> lead, const std::vector<int64_t>& tail) {
  lead.insert(lead.end(), tail.begin(), tail.end());
  return lead;
}

}  // namespace

const char* ProjectionOp(const DecoderContext& ctx) {
  return ctx.nbits_weights() ? "/MatMulNBits" : "/MatMul";
}

std::string Fp8Weight(DecoderContext& ctx, const std::string& name,
                      const std::vector<int64_t>& dims, float bound, const std::string& prefix) {
  GraphBuilder& g = ctx.graph;
  WeightStore* store = &g.weights();
  const std::vector<int64_t> lead(dims.begin(), dims.end() - 2);
  const int64_t batch = Product(lead), k = dims[dims.size() - 2], n = dims.back();
  const int64_t block_rows = ctx.options.fp8_block_rows, block_cols = ctx.options.fp8_block_cols;
  const int64_t k_blocks = (k + block_rows - 1) / block_rows;
  const int64_t n_blocks = (n + block_cols - 1) / block_cols;
  auto quantized = std::make_shared<std::optional<QuantizedFp8>>();
  auto quantize = [=]() -> QuantizedFp8& {
    if (!*quantized)
      *quantized = QuantizeFp8(store->Uniform(name, batch * k * n, bound), batch, k, n, block_rows,
                               block_cols);
    return **quantized;
  };
  const std::string codes = g.WeightBytes(name, dims, onnx::TensorProto_DataType_UINT8, 1,
                                          [quantize] { return quantize().codes; });
  const std::string scales =
      g.WeightOfType(name + "_scale_inv", Joined(lead, {k_blocks, 1, n_blocks, 1}),
                     ElemType::kFloat32, [quantize] { return quantize().scales; });
  std::string wide = g.Op("Cast", {codes}, prefix + "/Cast", {AttrInt("to", OnnxType(g.dtype()))});
  const int64_t k_padded = k_blocks * block_rows, n_padded = n_blocks * block_cols;
  const bool padded = k_padded != k || n_padded != n;
  if (padded) {
    std::vector<int64_t> pads(2 * dims.size(), 0);
    pads[pads.size() - 2] = k_padded - k;
    pads[pads.size() - 1] = n_padded - n;
    wide = g.Op("Pad", {wide, g.Int64s(pads)}, prefix + "/Pad");
  }
  const std::string blocked =
      g.Op("Reshape", {wide, g.Int64s(Joined(lead, {k_blocks, block_rows, n_blocks, block_cols}))},
           prefix + "/Reshape");
  const std::string scale_values =
      g.dtype() == ElemType::kFloat32
          ? scales
          : g.Op("Cast", {scales}, prefix + "/scale/Cast", {AttrInt("to", OnnxType(g.dtype()))});
  const std::string scaled = g.Op("Mul", {blocked, scale_values}, prefix + "/Mul");
  const std::string merged = g.Op("Reshape", {scaled, g.Int64s(Joined(lead, {k_padded, n_padded}))},
                                  prefix + "/Reshape_1");
  if (!padded) return merged;
  const auto rank = static_cast<int64_t>(dims.size());
  return g.Op("Slice", {merged, g.Int64s({0, 0}), g.Int64s({k, n}), g.Int64s({rank - 2, rank - 1})},
              prefix + "/Slice");
}

std::string Linear(DecoderContext& ctx, const std::string& x, int64_t in_features,
                   int64_t out_features, const std::string& weight_base,
                   const std::string& node_name, const std::string& output) {
  GraphBuilder& g = ctx.graph;
  const std::string weight_name = weight_base + ".weight";
  WeightStore* store = &g.weights();
  const float bound = 1.0f / std::sqrt(static_cast<float>(in_features));
  const Draw draw = [store, weight_name, in_features, out_features, bound] {
    return store->Uniform(weight_name, in_features * out_features, bound);
  };
  const WeightFormat format = StoredFormat(ctx, weight_base);
  if (format == WeightFormat::kInt4 || format == WeightFormat::kInt8)
    return MatMulNBits(ctx, x, in_features, out_features, weight_base, draw, node_name, output);
  const std::string prefix = node_name.substr(0, node_name.rfind('/'));
  const std::string w =
      format == WeightFormat::kFp8
          ? Fp8Weight(ctx, weight_name, {in_features, out_features}, bound, prefix + "/dequant")
          : PlainWeight(ctx, weight_name, in_features, out_features, draw);
  return g.Op("MatMul", {x, w}, node_name, {}, output);
}

std::string LinearMaybeBias(DecoderContext& ctx, const std::string& x, int64_t in_features,
                            int64_t out_features, const std::string& weight_base,
                            const std::string& node_name, bool bias) {
  const std::string product = Linear(ctx, x, in_features, out_features, weight_base, node_name);
  if (!bias) return product;
  GraphBuilder& g = ctx.graph;
  WeightStore* store = &g.weights();
  const std::string bias_name = weight_base + ".bias";
  const std::string b =
      g.Weight(bias_name, {out_features}, [store, bias_name, in_features, out_features] {
        return store->Uniform(bias_name, out_features,
                              1.0f / std::sqrt(static_cast<float>(in_features)));
      });
  const std::string prefix = node_name.substr(0, node_name.rfind('/'));
  return g.Op("Add", {product, b}, prefix + "/Add");
}

}  // namespace hyperplan::gen
