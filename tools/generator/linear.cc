#include "linear.h"

#include <cmath>
#include <memory>
#include <optional>

#include "quantize4.h"

namespace hyperplan::gen {

std::string Linear(DecoderContext& ctx, const std::string& x, int64_t in_features,
                   int64_t out_features, const std::string& weight_base,
                   const std::string& node_name, const std::string& output) {
  GraphBuilder& g = ctx.graph;
  const std::string weight_name = weight_base + ".weight";
  const int64_t block = ctx.options.quant_block_size;
  WeightStore* store = &g.weights();
  const ElemType dtype = g.dtype();
  auto draw = [store, weight_name, in_features, out_features] {
    return store->Uniform(weight_name, in_features * out_features,
                          1.0f / std::sqrt(static_cast<float>(in_features)));
  };
  // Both contrib initializers come from one quantization, made at most once and only when some
  // initializer is inline.
  auto quantized = std::make_shared<std::optional<Quantized4>>();
  auto quantize = [quantized, draw, in_features, out_features, block, dtype]() -> Quantized4& {
    if (!*quantized) *quantized = Quantize4(draw(), in_features, out_features, block, dtype);
    return **quantized;
  };

  if (!ctx.contrib()) {
    std::string w;
    if (ctx.options.fake_quant) {
      w = g.Weight(weight_name, {in_features, out_features},
                   [quantize] { return Dequantize4(quantize()); });
    } else {
      w = g.Weight(weight_name, {in_features, out_features}, draw);
    }
    return g.Op("MatMul", {x, w}, node_name, {}, output);
  }

  const int64_t k_blocks = (in_features + block - 1) / block;
  const std::string packed =
      g.WeightBytes(weight_base + ".weight_Q4", {out_features, k_blocks, block / 2},
                    onnx::TensorProto_DataType_UINT8, 1, [quantize] { return quantize().packed; });
  const std::string scales = g.Weight(weight_base + ".weight_scales", {out_features, k_blocks},
                                      [quantize] { return quantize().scales; });
  const std::string out = output.empty() ? node_name + "/output_0" : output;
  g.OpOutputs("MatMulNBits", kMsDomain, {x, packed, scales}, {out}, node_name,
              {AttrInt("K", in_features), AttrInt("N", out_features), AttrInt("bits", 4),
               AttrInt("block_size", block), AttrInt("accuracy_level", 0)});
  return out;
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
