#include "attention_inputs.h"

#include <onnx/onnx_pb.h>

namespace hyperplan::gen {

namespace {

constexpr const char* kPrefix = "/model/attn_mask";

// Shape(x)[begin:end] as a 1-D int64 tensor.
std::string ShapeSlice(GraphBuilder& g, const std::string& x, int64_t begin, int64_t end,
                       const std::string& name) {
  return g.Op("Shape", {x}, name, {AttrInt("start", begin), AttrInt("end", end)});
}

}  // namespace

void MakeAttentionInputs(DecoderContext& ctx) {
  if (ctx.shared_kv()) {  // graph inputs: the buffer's shape does not give the lengths
    ctx.seqlens_k = kSeqlensK;
    ctx.total_sequence_length = kTotalSequenceLength;
    return;
  }
  GraphBuilder& g = ctx.graph;
  const std::string p = kPrefix;
  const std::string sequence = ShapeSlice(g, ctx.input_ids, 1, 2, p + "/sequence/Shape");
  std::string past;  // [1] int64, only in the decode form
  std::string total = sequence;
  if (ctx.decode()) {
    past = ShapeSlice(g, PastName(0, "key"), 2, 3, p + "/past_sequence/Shape");
    total = g.Op("Add", {past, sequence}, p + "/total_sequence/Add");
  }

  if (ctx.fused_attention()) {
    const std::string batch = ShapeSlice(g, ctx.input_ids, 0, 1, p + "/batch/Shape");
    const std::string last = g.Op("Sub", {total, g.Int64s({1})}, p + "/seqlens_k/Sub");
    const std::string per_row = g.Op("Expand", {last, batch}, p + "/seqlens_k/Expand");
    ctx.seqlens_k = g.Op("Cast", {per_row}, p + "/seqlens_k/Cast",
                         {AttrInt("to", onnx::TensorProto_DataType_INT32)});
    const std::string scalar = g.Op("Squeeze", {total}, p + "/total_sequence_length/Squeeze");
    ctx.total_sequence_length = g.Op("Cast", {scalar}, p + "/total_sequence_length/Cast",
                                     {AttrInt("to", onnx::TensorProto_DataType_INT32)});
    return;
  }

  const std::string dims = g.Op("Concat", {sequence, total}, p + "/Concat", {AttrInt("axis", 0)});
  onnx::TensorProto fill;
  fill.set_data_type(onnx::TensorProto_DataType_FLOAT);
  fill.add_dims(1);
  fill.add_float_data(LowestFinite(g.dtype()));
  // ConstantOfShape has no bfloat16 before opset 20: build in float32, cast after.
  const std::string blocked =
      g.Op("ConstantOfShape", {dims}, p + "/ConstantOfShape", {AttrTensor("value", fill)});
  // past + offset as the scalar Trilu takes ([1] int64 in, 0-D out).
  auto diagonal = [&](int64_t offset, const std::string& name) {
    if (!ctx.decode()) return g.Int64Scalar(offset);
    const std::string shifted = g.Op("Add", {past, g.Int64s({offset})}, name + "/Add");
    return g.Op("Squeeze", {shifted}, name + "/Squeeze");
  };
  auto in_model_type = [&](const std::string& mask, const std::string& name) {
    if (g.dtype() == ElemType::kFloat32) return mask;
    return g.Op("Cast", {mask}, name, {AttrInt("to", OnnxType(g.dtype()))});
  };
  // Keeps the lowest value where key - query >= past + 1 (the future), zero elsewhere.
  const std::string future =
      g.Op("Trilu", {blocked, diagonal(1, p + "/diagonal")}, p + "/Trilu", {AttrInt("upper", 1)});
  ctx.causal_mask = in_model_type(future, p + "/Cast");
  const int64_t window = ctx.config.sliding_window;
  if (window <= 0) return;
  // Keeps the lowest value where key - query <= past - window (too far behind), zero elsewhere;
  // the two regions are disjoint for window >= 1, so their sum blocks both.
  const std::string w = p + "/window";
  const std::string old = g.Op("Trilu", {blocked, diagonal(-window, w + "/diagonal")}, w + "/Trilu",
                               {AttrInt("upper", 0)});
  ctx.window_mask = in_model_type(g.Op("Add", {future, old}, w + "/Add"), w + "/Cast");
}

}  // namespace hyperplan::gen
