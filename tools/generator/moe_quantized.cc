// Quantized stacked experts of the gather form (see moe_quantized.h).
#include "moe_quantized.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "quantize_fp8.h"

namespace hyperplan::gen {

namespace {

constexpr int64_t kNibbleBlock = 32;  // int4 and MXFP4 blocks along K
constexpr int kE8m0Bias = 127;
constexpr std::array<float, 8> kE2m1Magnitudes = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

// One expert's [K, N] weight, drawn as the dense and plain gather forms draw it.
std::vector<float> DrawWeight(const WeightStore& store, const std::string& w, int64_t e,
                              const char* proj, int64_t k, int64_t n) {
  return store.Uniform(fmt::format("{}.experts.{}.{}.weight", w, e, proj), k * n,
                       1.0f / std::sqrt(static_cast<float>(k)));
}

struct NibbleBlocks {
  std::string codes;          // [E, K/32, 16, N]
  std::vector<float> scales;  // [E, K/32, 1, N]: int4 scales, or MXFP4 E8M0 bytes as floats
};

// The scale of one 32-row block with largest magnitude `amax`, and the code of `value` under it.
float BlockScale(bool mxfp4, float amax) {
  if (!mxfp4) return amax > 0.0f ? amax / 7.0f : 1.0f;
  // e2m1's largest magnitude is 6 = 1.5 * 2^2: the shared exponent puts amax within it.
  const int exponent = amax > 0.0f ? static_cast<int>(std::floor(std::log2(amax))) - 2 : 0;
  return static_cast<float>(std::clamp(exponent + kE8m0Bias, 0, 254));
}
int NibbleCode(bool mxfp4, float value, float scale) {
  if (mxfp4) return E2m1Code(value / std::ldexp(1.0f, static_cast<int>(scale) - kE8m0Bias));
  return static_cast<int>(std::clamp(std::round(value / scale), -8.0f, 7.0f)) + 8;
}

// Every expert's `proj` quantized to 4-bit codes in 32-row blocks.
NibbleBlocks QuantizeNibbles(const WeightStore& store, const std::string& w, const char* proj,
                             int64_t experts, int64_t k, int64_t n, bool mxfp4) {
  const int64_t blocks = k / kNibbleBlock;
  NibbleBlocks out;
  out.codes.assign(static_cast<size_t>(experts * k * n / 2), '\0');
  out.scales.assign(static_cast<size_t>(experts * blocks * n), 0.0f);
  for (int64_t e = 0; e < experts; ++e) {
    const std::vector<float> m = DrawWeight(store, w, e, proj, k, n);
    for (int64_t b = 0; b < blocks; ++b) {
      for (int64_t col = 0; col < n; ++col) {
        float amax = 0.0f;
        for (int64_t r = 0; r < kNibbleBlock; ++r)
          amax =
              std::max(amax, std::fabs(m[static_cast<size_t>((b * kNibbleBlock + r) * n + col)]));
        const float scale = BlockScale(mxfp4, amax);
        out.scales[static_cast<size_t>((e * blocks + b) * n + col)] = scale;
        for (int64_t j = 0; j < kNibbleBlock / 2; ++j) {
          const int64_t row = b * kNibbleBlock + 2 * j;
          const int lo = NibbleCode(mxfp4, m[static_cast<size_t>(row * n + col)], scale);
          const int hi = NibbleCode(mxfp4, m[static_cast<size_t>((row + 1) * n + col)], scale);
          out.codes[static_cast<size_t>(((e * blocks + b) * 16 + j) * n + col)] =
              static_cast<char>(lo | (hi << 4));
        }
      }
    }
  }
  return out;
}

// The value of every byte's low (or high) nibble: int4's code - 8, or MXFP4's e2m1 value.
std::vector<float> NibbleTable(bool mxfp4, bool high) {
  std::vector<float> table(256);
  for (int byte = 0; byte < 256; ++byte) {
    const int nibble = high ? byte >> 4 : byte & 15;
    table[static_cast<size_t>(byte)] = mxfp4 ? E2m1Value(nibble) : static_cast<float>(nibble - 8);
  }
  return table;
}

// `codes` uint8 gathered [.., k, rows, N] looked up in `table` (256 entries) by value.
std::string LookUp(GraphBuilder& g, const std::string& codes, const std::string& table,
                   const std::string& p) {
  const std::string index =
      g.Op("Cast", {codes}, p + "/Cast", {AttrInt("to", onnx::TensorProto_DataType_INT32)});
  return g.Op("Gather", {table, index}, p + "/Gather", {AttrInt("axis", 0)});
}

std::string PickExperts(GraphBuilder& g, const std::string& stacked, const std::string& indices,
                        const std::string& p) {
  return g.Op("Gather", {stacked, indices}, p + "/Gather", {AttrInt("axis", 0)});
}

// int4 and MXFP4: codes and scales stacked, the picked ones widened to [.., k, K, N].
std::string NibbleExperts(DecoderContext& ctx, const std::string& w, const char* proj, int64_t k,
                          int64_t n, const std::string& indices, const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const bool mxfp4 = ctx.options.weights == WeightFormat::kMxfp4;
  const int64_t experts = ctx.config.routed_experts, blocks = k / kNibbleBlock;
  const WeightStore* store = &g.weights();
  const std::string base = fmt::format("{}.experts.{}", w, proj);
  auto quantized = std::make_shared<std::optional<NibbleBlocks>>();
  auto quantize = [=, name = std::string(proj)]() -> const NibbleBlocks& {
    if (!*quantized) *quantized = QuantizeNibbles(*store, w, name.c_str(), experts, k, n, mxfp4);
    return **quantized;
  };
  const std::string codes =
      g.WeightBytes(base + (mxfp4 ? ".weight_blocks" : ".weight_Q4"), {experts, blocks, 16, n},
                    onnx::TensorProto_DataType_UINT8, 1, [quantize] { return quantize().codes; });
  const std::vector<int64_t> scale_dims = {experts, blocks, 1, n};
  const std::string scales =
      mxfp4
          ? g.WeightBytes(base + ".weight_scales", scale_dims, onnx::TensorProto_DataType_UINT8, 1,
                          [quantize] {
                            std::string bytes;
                            for (float s : quantize().scales)
                              bytes.push_back(static_cast<char>(static_cast<int>(s)));
                            return bytes;
                          })
          : g.Weight(base + ".weight_scales", scale_dims, [quantize] { return quantize().scales; });
  const std::string picked = PickExperts(g, codes, indices, p + "/codes");
  const ElemType t = g.dtype();
  const char* kind = mxfp4 ? "e2m1" : "int4";
  const std::string lo = LookUp(
      g, picked, g.FloatTable(fmt::format("{}.lo", kind), NibbleTable(mxfp4, false), t), p + "/lo");
  const std::string hi = LookUp(
      g, picked, g.FloatTable(fmt::format("{}.hi", kind), NibbleTable(mxfp4, true), t), p + "/hi");
  const std::string pairs = g.Op("Concat",
                                 {g.Op("Unsqueeze", {lo, g.Int64s({-2})}, p + "/lo/Unsqueeze"),
                                  g.Op("Unsqueeze", {hi, g.Int64s({-2})}, p + "/hi/Unsqueeze")},
                                 p + "/Concat", {AttrInt("axis", -2)});
  const std::string rows =
      g.Op("Reshape", {pairs, g.Int64s({0, 0, 0, 0, kNibbleBlock, n})}, p + "/Reshape");
  std::string scale_values = PickExperts(g, scales, indices, p + "/scales");
  if (mxfp4) {
    std::vector<float> powers(256);
    for (int s = 0; s < 256; ++s) powers[static_cast<size_t>(s)] = std::ldexp(1.0f, s - kE8m0Bias);
    scale_values = LookUp(g, scale_values, g.FloatTable("e8m0", powers, t), p + "/scales/e8m0");
  }
  const std::string scaled = g.Op("Mul", {rows, scale_values}, p + "/Mul");
  return g.Op("Reshape", {scaled, g.Int64s({0, 0, 0, k, n})}, p + "/Reshape_1");
}

std::vector<float> Fp8Table() {
  std::vector<float> table(256);
  for (int code = 0; code < 256; ++code)
    table[static_cast<size_t>(code)] = Float8E4M3ToFloat(static_cast<uint8_t>(code));
  return table;
}

// fp8: e4m3fn codes [E, K, N] and float32 block scales, the picked ones widened.
std::string Fp8Experts(DecoderContext& ctx, const std::string& w, const char* proj, int64_t k,
                       int64_t n, const std::string& indices, const std::string& p) {
  GraphBuilder& g = ctx.graph;
  const int64_t experts = ctx.config.routed_experts;
  const int64_t rows = ctx.options.fp8_block_rows, cols = ctx.options.fp8_block_cols;
  const WeightStore* store = &g.weights();
  const std::string base = fmt::format("{}.experts.{}", w, proj);
  auto quantized = std::make_shared<std::optional<QuantizedFp8>>();
  auto quantize = [=, name = std::string(proj)]() -> const QuantizedFp8& {
    if (!*quantized) {
      std::vector<float> all;
      for (int64_t e = 0; e < experts; ++e) {
        const std::vector<float> m = DrawWeight(*store, w, e, name.c_str(), k, n);
        all.insert(all.end(), m.begin(), m.end());
      }
      *quantized = QuantizeFp8(all, experts, k, n, rows, cols);
    }
    return **quantized;
  };
  const std::string codes =
      g.WeightBytes(base + ".weight", {experts, k, n}, onnx::TensorProto_DataType_UINT8, 1,
                    [quantize] { return quantize().codes; });
  const std::string scales =
      g.WeightOfType(base + ".weight_scale_inv", {experts, k / rows, 1, n / cols, 1},
                     ElemType::kFloat32, [quantize] { return quantize().scales; });
  const std::string values =
      LookUp(g, PickExperts(g, codes, indices, p + "/codes"),
             g.FloatTable("e4m3fn", Fp8Table(), g.dtype()), p + "/codes/e4m3fn");
  const std::string blocked = g.Op(
      "Reshape", {values, g.Int64s({0, 0, 0, k / rows, rows, n / cols, cols})}, p + "/Reshape");
  std::string scale_values = PickExperts(g, scales, indices, p + "/scales");
  if (g.dtype() != ElemType::kFloat32)
    scale_values =
        g.Op("Cast", {scale_values}, p + "/scales/Cast", {AttrInt("to", OnnxType(g.dtype()))});
  const std::string scaled = g.Op("Mul", {blocked, scale_values}, p + "/Mul");
  return g.Op("Reshape", {scaled, g.Int64s({0, 0, 0, k, n})}, p + "/Reshape_1");
}

}  // namespace

float E2m1Value(int code) {
  const float magnitude = kE2m1Magnitudes[static_cast<size_t>(code & 7)];
  return (code & 8) != 0 ? -magnitude : magnitude;
}

int E2m1Code(float value) {
  const float magnitude = std::fabs(value);
  int best = 0;
  for (int c = 1; c < 8; ++c) {
    if (std::fabs(kE2m1Magnitudes[static_cast<size_t>(c)] - magnitude) <
        std::fabs(kE2m1Magnitudes[static_cast<size_t>(best)] - magnitude))
      best = c;
  }
  return value < 0.0f && best != 0 ? best | 8 : best;
}

std::string GatheredQuantizedWeight(DecoderContext& ctx, const std::string& w, const char* proj,
                                    int64_t k, int64_t n, const std::string& indices,
                                    const std::string& prefix) {
  if (ctx.options.weights == WeightFormat::kFp8)
    return Fp8Experts(ctx, w, proj, k, n, indices, prefix);
  return NibbleExperts(ctx, w, proj, k, n, indices, prefix);
}

}  // namespace hyperplan::gen
