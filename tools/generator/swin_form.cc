// The Swin-class classifier as torch.onnx exports it (see swin_form.h).
#include "swin_form.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "graph_builder.h"
#include "weight_store.h"

namespace hyperplan::gen {
namespace {

constexpr int32_t kFloat = onnx::TensorProto_DataType_FLOAT;
constexpr int32_t kInt64 = onnx::TensorProto_DataType_INT64;
constexpr int64_t kImage = 28;
constexpr int64_t kPatch = 4;
constexpr int64_t kEmbed = 8;
constexpr int64_t kWindow = 3;
constexpr int64_t kClasses = 1000;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// A block's names: nodes "<prefix>/<what>", weights "<prefix>.<what>" (torch's scheme).
struct Scope {
  GraphBuilder& g;
  std::string prefix;

  std::string Op(const std::string& op, const std::vector<std::string>& in, const std::string& what,
                 std::vector<onnx::AttributeProto> attrs = {}) {
    return g.Op(op, in, prefix + "/" + what, std::move(attrs));
  }
  std::string WeightName(const std::string& what) const {
    return prefix.empty() ? what : prefix + "." + what;
  }
  std::string W(const std::string& what, const std::vector<int64_t>& dims, float bound = 0.3F) {
    const std::string name = WeightName(what);
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    return g.Weight(name, dims, [&] { return g.weights().Uniform(name, count, bound); });
  }
  std::string Ones(const std::string& what, int64_t count) {
    return g.Weight(WeightName(what), {count}, [count] { return std::vector<float>(count, 1); });
  }
  // x.shape[axis] as torch traces it: Gather(Shape(x), axis), an int64 scalar.
  std::string Dim(const std::string& x, int64_t axis, const std::string& what) {
    const std::string shape = Op("Shape", {x}, what + "/Shape");
    return Op("Gather", {shape, g.Int64Scalar(axis)}, what + "/Gather", {AttrInt("axis", 0)});
  }
  std::string Unsqueeze(const std::string& x, const std::string& what) {
    return Op("Unsqueeze", {x, g.Int64s({0})}, what);
  }
  // A shape from scalars (unsqueezed) and constants, as torch writes a view's argument list.
  std::string ShapeOf(const std::vector<std::string>& parts, const std::string& what) {
    std::vector<std::string> pieces;
    for (size_t i = 0; i < parts.size(); ++i) {
      pieces.push_back(Unsqueeze(parts[i], what + "/Unsqueeze_" + std::to_string(i)));
    }
    return Op("Concat", pieces, what + "/Concat", {AttrInt("axis", 0)});
  }
  std::string LayerNorm(const std::string& x, int64_t dim, const std::string& what) {
    return Op("LayerNormalization", {x, Ones(what + ".weight", dim), W(what + ".bias", {dim})},
              what + "/LayerNormalization", {AttrInt("axis", -1), AttrFloat("epsilon", 1e-5F)});
  }
  std::string Linear(const std::string& x, int64_t in, int64_t out, const std::string& what) {
    const std::string product = Op("MatMul", {x, W(what + ".weight", {in, out})}, what + "/MatMul");
    return Op("Add", {product, W(what + ".bias", {out}, 0.1F)}, what + "/Add");
  }
};

// torch's _prepare_onnx_paddings for F.pad(x, (0, 0, 0, pad_r, 0, pad_b)) on a 4-D x: the
// list's pairs run from the last axis, ONNX's pads are all begins then all ends.
std::string TorchPads(Scope& s, const std::string& pad_r, const std::string& pad_b,
                      const std::string& what) {
  GraphBuilder& g = s.g;
  const std::string zero = g.Int64Scalar(0);
  const std::string list = s.ShapeOf({zero, zero, zero, pad_r, zero, pad_b}, what + "/list");
  const std::string length = s.Op("Gather", {s.Op("Shape", {list}, what + "/Shape"), g.Int64s({0})},
                                  what + "/Gather", {AttrInt("axis", 0)});
  const std::string twice_rank =
      s.Op("Mul", {g.Int64Scalar(4), g.Int64Scalar(2)}, what + "/Mul");  // rank 4, begin + end
  const std::string extension = s.Op("Sub", {twice_rank, length}, what + "/Sub");
  const std::string listed = s.Op("Cast", {list}, what + "/Cast", {AttrInt("to", kInt64)});
  onnx::TensorProto zero_value;
  zero_value.set_data_type(kInt64);
  zero_value.add_dims(1);
  zero_value.add_int64_data(0);
  const std::string zeros = s.Op("ConstantOfShape", {extension}, what + "/ConstantOfShape",
                                 {AttrTensor("value", zero_value)});
  const std::string all = s.Op("Concat", {listed, zeros}, what + "/Concat_1", {AttrInt("axis", 0)});
  const std::string pairs = s.Op("Reshape", {all, g.Int64s({-1, 2})}, what + "/Reshape");
  const std::string flipped =
      s.Op("Slice", {pairs, g.Int64s({-1}), g.Int64s({-kInt64Max}), g.Int64s({0}), g.Int64s({-1})},
           what + "/Slice");
  const std::string rows =
      s.Op("Transpose", {flipped}, what + "/Transpose", {AttrInts("perm", {1, 0})});
  const std::string flat = s.Op("Reshape", {rows, g.Int64s({-1})}, what + "/Reshape_1");
  return s.Op("Cast", {flat}, what + "/Cast_1", {AttrInt("to", kInt64)});
}

// (window - size % window) % window, as torch exports it.
std::string PadTo(Scope& s, const std::string& size, int64_t window, const std::string& what) {
  const std::string w = s.g.Int64Scalar(window);
  const std::string rest = s.Op("Mod", {size, w}, what + "/Mod", {AttrInt("fmod", 0)});
  const std::string gap = s.Op("Sub", {w, rest}, what + "/Sub");
  return s.Op("Mod", {gap, w}, what + "/Mod_1", {AttrInt("fmod", 0)});
}

// torch.roll(x, shift, axis) for one axis: Concat(x[-shift:], x[:-shift]) along it.
std::string Roll(Scope& s, const std::string& x, int64_t shift, int64_t axis,
                 const std::string& what) {
  GraphBuilder& g = s.g;
  const std::string tail = s.Op(
      "Slice", {x, g.Int64s({-shift}), g.Int64s({kInt64Max}), g.Int64s({axis})}, what + "/Slice");
  const std::string head =
      s.Op("Slice", {x, g.Int64s({0}), g.Int64s({-shift}), g.Int64s({axis})}, what + "/Slice_1");
  return s.Op("Concat", {tail, head}, what + "/Concat", {AttrInt("axis", axis)});
}

// size // window as torch exports an integer floor division of a traced size.
std::string Windows(Scope& s, const std::string& size, const std::string& what) {
  const std::string quotient = s.Op("Div", {size, s.g.Int64Scalar(kWindow)}, what + "/Div");
  return s.Op("Cast", {quotient}, what + "/Cast", {AttrInt("to", kInt64)});
}

// The sizes a block computes from its input and its padded input.
struct WindowSizes {
  std::string batch, height, width, channels;  // of the input, int64 scalars
  std::string padded_height, padded_width;
  std::string rows, columns, windows;  // padded / window, and their product
};

// torchvision's relative_position_index for a kWindow x kWindow window, flattened.
std::vector<int64_t> RelativePositionIndex() {
  std::vector<int64_t> index;
  const int64_t span = 2 * kWindow - 1;
  for (int64_t i = 0; i < kWindow * kWindow; ++i) {
    for (int64_t j = 0; j < kWindow * kWindow; ++j) {
      const int64_t dh = i / kWindow - j / kWindow + kWindow - 1;
      const int64_t dw = i % kWindow - j % kWindow + kWindow - 1;
      index.push_back(dh * span + dw);
    }
  }
  return index;
}

// The relative position bias, [1, heads, N, N]: the table gathered by the constant index.
std::string PositionBias(Scope& s, int64_t heads) {
  const int64_t n = kWindow * kWindow;
  const int64_t span = 2 * kWindow - 1;
  const std::string table = s.W("relative_position_bias_table", {span * span, heads}, 0.02F);
  const std::string gathered = s.Op("Gather", {table, s.g.Int64s(RelativePositionIndex())},
                                    "bias/Gather", {AttrInt("axis", 0)});
  const std::string square = s.Op("Reshape", {gathered, s.g.Int64s({n, n, -1})}, "bias/Reshape");
  const std::string first =
      s.Op("Transpose", {square}, "bias/Transpose", {AttrInts("perm", {2, 0, 1})});
  return s.Op("Unsqueeze", {first, s.g.Int64s({0})}, "bias/Unsqueeze");
}

// Region ids along one padded axis: 0 before size - window, 1 up to size - shift, 2 after.
std::string RegionIds(Scope& s, const std::string& size, int64_t shift, const std::string& what) {
  GraphBuilder& g = s.g;
  const std::string index =
      s.Op("Range", {g.Int64Scalar(0), size, g.Int64Scalar(1)}, what + "/Range");
  const auto at_least = [&](int64_t back, const std::string& tag) {
    const std::string bound = s.Op("Sub", {size, g.Int64Scalar(back)}, what + "/Sub" + tag);
    const std::string flag = s.Op("GreaterOrEqual", {index, bound}, what + "/GreaterOrEqual" + tag);
    return s.Op("Cast", {flag}, what + "/Cast" + tag, {AttrInt("to", kInt64)});
  };
  return s.Op("Add", {at_least(kWindow, ""), at_least(shift, "_1")}, what + "/Add");
}

// The shifted windows' mask, [1, nW, 1, N, N]: 0 within a region, -100 across regions.
std::string ShiftMask(Scope& s, const WindowSizes& z, int64_t shift) {
  GraphBuilder& g = s.g;
  const int64_t n = kWindow * kWindow;
  const std::string rows =
      s.Op("Unsqueeze", {RegionIds(s, z.padded_height, shift, "mask/h"), g.Int64s({1})},
           "mask/Unsqueeze");
  const std::string columns =
      s.Op("Unsqueeze", {RegionIds(s, z.padded_width, shift, "mask/w"), g.Int64s({0})},
           "mask/Unsqueeze_1");
  const std::string ids =
      s.Op("Add", {s.Op("Mul", {rows, g.Int64Scalar(3)}, "mask/Mul"), columns}, "mask/Add");
  const std::string image = s.Op("Cast", {ids}, "mask/Cast", {AttrInt("to", kFloat)});
  const std::string grid =
      s.Op("Reshape",
           {image, s.ShapeOf({z.rows, g.Int64Scalar(kWindow), z.columns, g.Int64Scalar(kWindow)},
                             "mask/shape")},
           "mask/Reshape");
  const std::string swapped =
      s.Op("Transpose", {grid}, "mask/Transpose", {AttrInts("perm", {0, 2, 1, 3})});
  const std::string per_window =
      s.Op("Reshape", {swapped, s.ShapeOf({z.windows, g.Int64Scalar(n)}, "mask/shape_1")},
           "mask/Reshape_1");
  const std::string diff =
      s.Op("Sub",
           {s.Op("Unsqueeze", {per_window, g.Int64s({1})}, "mask/Unsqueeze_2"),
            s.Op("Unsqueeze", {per_window, g.Int64s({2})}, "mask/Unsqueeze_3")},
           "mask/Sub");
  const std::string same =
      s.Op("Equal", {diff, g.FloatScalar(0.0F, ElemType::kFloat32)}, "mask/Equal");
  const std::string mask = s.Op(
      "Where",
      {same, g.FloatScalar(0.0F, ElemType::kFloat32), g.FloatScalar(-100.0F, ElemType::kFloat32)},
      "mask/Where");
  return s.Op("Unsqueeze", {mask, g.Int64s({0, 2})}, "mask/Unsqueeze_4");
}

// Scores plus bias (and, shifted, the mask, through the 5-D view torchvision adds it in).
std::string MaskedScores(Scope& s, const std::string& scores, const WindowSizes& z, int64_t heads,
                         int64_t shift) {
  GraphBuilder& g = s.g;
  const std::string biased = s.Op("Add", {scores, PositionBias(s, heads)}, "attn/Add");
  if (shift == 0) return biased;
  const int64_t n = kWindow * kWindow;
  const std::string groups =
      s.Op("Div", {s.Dim(biased, 0, "attn/groups"), z.windows}, "attn/groups/Div");
  const std::string five =
      s.Op("Reshape",
           {biased,
            s.ShapeOf({groups, z.windows, g.Int64Scalar(heads), g.Int64Scalar(n), g.Int64Scalar(n)},
                      "attn/shape_5d")},
           "attn/Reshape_5d");
  const std::string masked = s.Op("Add", {five, ShiftMask(s, z, shift)}, "attn/Add_mask");
  return s.Op("Reshape", {masked, g.Int64s({-1, heads, n, n})}, "attn/Reshape_4d");
}

// Windows [B*nW, N, C] -> attention -> [B*nW, N, C], through the output projection.
std::string WindowAttention(Scope& s, const std::string& windows, const WindowSizes& z, int64_t dim,
                            int64_t heads, int64_t shift) {
  GraphBuilder& g = s.g;
  const std::string qkv = s.Linear(windows, dim, 3 * dim, "attn.qkv");
  const std::string count = s.Dim(windows, 0, "attn/count");
  const std::string length = s.Dim(windows, 1, "attn/length");
  const std::string head_dim = s.Op("Div", {z.channels, g.Int64Scalar(heads)}, "attn/Div");
  const std::string split =
      s.Op("Reshape",
           {qkv, s.ShapeOf({count, length, g.Int64Scalar(3), g.Int64Scalar(heads), head_dim},
                           "attn/qkv_shape")},
           "attn/Reshape");
  const std::string parts =
      s.Op("Transpose", {split}, "attn/Transpose", {AttrInts("perm", {2, 0, 3, 1, 4})});
  const auto part = [&](int64_t i) {
    return s.Op("Gather", {parts, g.Int64Scalar(i)}, "attn/Gather_" + std::to_string(i),
                {AttrInt("axis", 0)});
  };
  const float scale = 1.0F / std::sqrt(static_cast<float>(dim / heads));
  const std::string q =
      s.Op("Mul", {part(0), g.FloatScalar(scale, ElemType::kFloat32)}, "attn/Mul");
  const std::string kt =
      s.Op("Transpose", {part(1)}, "attn/Transpose_1", {AttrInts("perm", {0, 1, 3, 2})});
  const std::string scores = s.Op("MatMul", {q, kt}, "attn/MatMul");
  const std::string probs = s.Op("Softmax", {MaskedScores(s, scores, z, heads, shift)},
                                 "attn/Softmax", {AttrInt("axis", -1)});
  const std::string context = s.Op("MatMul", {probs, part(2)}, "attn/MatMul_1");
  const std::string merged =
      s.Op("Reshape",
           {s.Op("Transpose", {context}, "attn/Transpose_2", {AttrInts("perm", {0, 2, 1, 3})}),
            s.ShapeOf({count, length, z.channels}, "attn/merge_shape")},
           "attn/Reshape_1");
  return s.Linear(merged, dim, dim, "attn.proj");
}

// The padded, shifted input cut into windows, [B*nW, N, C], and the sizes that took.
std::string Partition(Scope& s, const std::string& x, int64_t shift, WindowSizes& z) {
  GraphBuilder& g = s.g;
  z.batch = s.Dim(x, 0, "size_b");
  z.height = s.Dim(x, 1, "size_h");
  z.width = s.Dim(x, 2, "size_w");
  z.channels = s.Dim(x, 3, "size_c");
  const std::string pads = TorchPads(s, PadTo(s, z.width, kWindow, "pad_r"),
                                     PadTo(s, z.height, kWindow, "pad_b"), "pads");
  std::string padded = s.Op("Pad", {x, pads, g.FloatScalar(0.0F, ElemType::kFloat32)}, "Pad",
                            {AttrString("mode", "constant")});
  z.padded_height = s.Dim(padded, 1, "padded_h");
  z.padded_width = s.Dim(padded, 2, "padded_w");
  if (shift > 0) {
    padded = Roll(s, Roll(s, padded, -shift, 1, "roll_h"), -shift, 2, "roll_w");
  }
  z.rows = Windows(s, z.padded_height, "rows");
  z.columns = Windows(s, z.padded_width, "columns");
  z.windows = s.Op("Mul", {z.rows, z.columns}, "num_windows/Mul");
  const std::string w = g.Int64Scalar(kWindow);
  const std::string six =
      s.Op("Reshape", {padded, s.ShapeOf({z.batch, z.rows, w, z.columns, w, z.channels}, "view")},
           "Reshape");
  const std::string grouped =
      s.Op("Transpose", {six}, "Transpose", {AttrInts("perm", {0, 1, 3, 2, 4, 5})});
  const std::string count = s.Op("Mul", {z.batch, z.windows}, "count/Mul");
  return s.Op("Reshape",
              {grouped, s.ShapeOf({count, g.Int64Scalar(kWindow * kWindow), z.channels}, "view_1")},
              "Reshape_1");
}

// Windows back into the padded map, unshifted and unpadded: [B, H, W, C].
std::string Reverse(Scope& s, const std::string& windows, int64_t shift, const WindowSizes& z) {
  GraphBuilder& g = s.g;
  const std::string w = g.Int64Scalar(kWindow);
  const std::string six = s.Op(
      "Reshape", {windows, s.ShapeOf({z.batch, z.rows, z.columns, w, w, z.channels}, "view_2")},
      "Reshape_2");
  const std::string grouped =
      s.Op("Transpose", {six}, "Transpose_1", {AttrInts("perm", {0, 1, 3, 2, 4, 5})});
  std::string map =
      s.Op("Reshape",
           {grouped, s.ShapeOf({z.batch, z.padded_height, z.padded_width, z.channels}, "view_3")},
           "Reshape_3");
  if (shift > 0) map = Roll(s, Roll(s, map, shift, 1, "unroll_h"), shift, 2, "unroll_w");
  const std::string rows =
      s.Op("Slice", {map, g.Int64s({0}), s.Unsqueeze(z.height, "unpad/Unsqueeze"), g.Int64s({1})},
           "unpad/Slice");
  return s.Op("Slice",
              {rows, g.Int64s({0}), s.Unsqueeze(z.width, "unpad/Unsqueeze_1"), g.Int64s({2})},
              "unpad/Slice_1");
}

// GELU as torch writes it below opset 20: x * (erf(x / sqrt 2) + 1) * 0.5.
std::string Gelu(Scope& s, const std::string& x) {
  GraphBuilder& g = s.g;
  const std::string scaled =
      s.Op("Div", {x, g.FloatScalar(1.4142135F, ElemType::kFloat32)}, "mlp/Div");
  const std::string erf = s.Op("Erf", {scaled}, "mlp/Erf");
  const std::string shifted =
      s.Op("Add", {erf, g.FloatScalar(1.0F, ElemType::kFloat32)}, "mlp/Add_erf");
  const std::string product = s.Op("Mul", {x, shifted}, "mlp/Mul");
  return s.Op("Mul", {product, g.FloatScalar(0.5F, ElemType::kFloat32)}, "mlp/Mul_1");
}

// One SwinTransformerBlock: x + attention(norm1(x)), then + mlp(norm2(x)).
std::string Block(GraphBuilder& g, const std::string& x, const std::string& prefix, int64_t dim,
                  int64_t heads, int64_t shift) {
  Scope s{g, prefix};
  WindowSizes z;
  const std::string normed = s.LayerNorm(x, dim, "norm1");
  const std::string windows = Partition(s, normed, shift, z);
  const std::string attended = WindowAttention(s, windows, z, dim, heads, shift);
  const std::string x1 = s.Op("Add", {x, Reverse(s, attended, shift, z)}, "Add");
  const std::string hidden =
      Gelu(s, s.Linear(s.LayerNorm(x1, dim, "norm2"), dim, 4 * dim, "mlp.0"));
  return s.Op("Add", {x1, s.Linear(hidden, 4 * dim, dim, "mlp.3")}, "Add_1");
}

// torchvision's _patch_merging_pad, then norm and the 4C -> 2C reduction.
std::string PatchMerging(GraphBuilder& g, const std::string& x, const std::string& prefix,
                         int64_t dim) {
  Scope s{g, prefix};
  const std::string height = s.Dim(x, 1, "size_h");
  const std::string width = s.Dim(x, 2, "size_w");
  const std::string two = g.Int64Scalar(2);
  const std::string pads =
      TorchPads(s, s.Op("Mod", {width, two}, "pad_r/Mod", {AttrInt("fmod", 0)}),
                s.Op("Mod", {height, two}, "pad_b/Mod", {AttrInt("fmod", 0)}), "pads");
  const std::string padded = s.Op("Pad", {x, pads, g.FloatScalar(0.0F, ElemType::kFloat32)}, "Pad",
                                  {AttrString("mode", "constant")});
  std::vector<std::string> quarters;
  for (const auto& [row, column] :
       std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {1, 0}, {0, 1}, {1, 1}}) {
    const std::string tag = "_" + std::to_string(quarters.size());
    const std::string rows = s.Op(
        "Slice", {padded, g.Int64s({row}), g.Int64s({kInt64Max}), g.Int64s({-3}), g.Int64s({2})},
        "Slice_rows" + tag);
    quarters.push_back(s.Op(
        "Slice", {rows, g.Int64s({column}), g.Int64s({kInt64Max}), g.Int64s({-2}), g.Int64s({2})},
        "Slice_columns" + tag));
  }
  const std::string joined = s.Op("Concat", quarters, "Concat", {AttrInt("axis", -1)});
  const std::string normed = s.LayerNorm(joined, 4 * dim, "norm");
  return s.Op("MatMul", {normed, s.W("reduction.weight", {4 * dim, 2 * dim})}, "reduction/MatMul");
}

std::string PatchEmbedding(GraphBuilder& g, const std::string& image) {
  Scope s{g, "/features/0"};
  const std::string conv =
      s.Op("Conv", {image, s.W("0.weight", {kEmbed, 3, kPatch, kPatch}), s.W("0.bias", {kEmbed})},
           "0/Conv",
           {AttrInts("kernel_shape", {kPatch, kPatch}), AttrInts("strides", {kPatch, kPatch})});
  const std::string nhwc =
      s.Op("Transpose", {conv}, "1/Transpose", {AttrInts("perm", {0, 2, 3, 1})});
  return s.LayerNorm(nhwc, kEmbed, "2");
}

// Final norm, average pool over the map and the Gemm head, declared as torch declares it.
void Head(GraphBuilder& g, const std::string& x, int64_t dim) {
  Scope s{g, ""};
  const std::string normed = s.LayerNorm(x, dim, "norm");
  const std::string nchw =
      s.Op("Transpose", {normed}, "permute/Transpose", {AttrInts("perm", {0, 3, 1, 2})});
  const std::string pooled = s.Op("GlobalAveragePool", {nchw}, "avgpool/GlobalAveragePool");
  const std::string flat = s.Op("Flatten", {pooled}, "flatten/Flatten", {AttrInt("axis", 1)});
  g.Op("Gemm",
       {flat, s.W("head.weight", {kClasses, dim}, 0.1F), s.W("head.bias", {kClasses}, 0.1F)},
       "/head/Gemm", {AttrFloat("alpha", 1.0F), AttrFloat("beta", 1.0F), AttrInt("transB", 1)},
       "logits");
  g.Output("logits", kFloat, {std::string("Gemmlogits_dim_0"), kClasses});
}

}  // namespace

onnx::ModelProto BuildSwinForm(uint64_t seed, const std::string& weights_location) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("hyperplan-gen");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  model.set_doc_string("swin: a Swin-class classifier as torch.onnx exports torchvision swin_t");
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("swin");
  WeightStore weights(/*external=*/!weights_location.empty(), weights_location, seed);
  GraphBuilder g(graph, &weights, ElemType::kFloat32);
  g.Input("input", kFloat, {int64_t{1}, int64_t{3}, kImage, kImage});
  std::string x = PatchEmbedding(g, "input");
  x = Block(g, x, "/features/1/0", kEmbed, 2, 0);
  x = Block(g, x, "/features/1/1", kEmbed, 2, kWindow / 2);
  x = PatchMerging(g, x, "/features/2", kEmbed);
  x = Block(g, x, "/features/3/0", 2 * kEmbed, 4, 0);
  x = Block(g, x, "/features/3/1", 2 * kEmbed, 4, kWindow / 2);
  Head(g, x, 2 * kEmbed);
  return model;
}

}  // namespace hyperplan::gen
