// Shape rules for ai.onnx operators newer than ONNX 1.12 knows (opsets 18 to 24).
//
// Written from ONNX's Operators.md. Where a newer version only widened types, ONNX 1.12's own
// schema already infers it right and nothing is needed here; these rules cover operators that
// are new (Attention, RMSNormalization, RotaryEmbedding, Gelu, ...) or whose inputs moved
// (Reduce* take axes as an input from opset 18, Split takes num_outputs), where the older
// schema would infer a wrong shape rather than none. Cost: constant per node.
#include <algorithm>
#include <string>
#include <vector>

#include "onnx/shape_rule_helpers.h"
#include "onnx/shape_rules.h"

namespace hyperplan::onnx_import {
namespace {

// Attention-23: Q (B, Nq, S, H) or (B, S, Nq*H); K (B, Nkv, L, H) or (B, L, Nkv*H);
// V (B, Nkv, L, Hv) or (B, L, Nkv*Hv); past_key/value (inputs 4, 5) (B, Nkv, P, H/Hv).
// Y (B, Nq, S, Hv) or (B, S, Nq*Hv); present_key/value (B, Nkv, P + L, H/Hv);
// qk_matmul_output (B, Nq, S, P + L).
void InferAttention(onnx::InferenceContext& ctx) {
  const int32_t query_type = InputElemType(ctx, 0);
  const onnx::TensorShapeProto* q = InputShape(ctx, 0);
  const onnx::TensorShapeProto* k = InputShape(ctx, 1);
  const onnx::TensorShapeProto* v = InputShape(ctx, 2);
  if (q == nullptr || (q->dim_size() != 3 && q->dim_size() != 4)) {
    SetOutputElemType(ctx, 0, query_type);
    return;
  }
  const bool three_d = q->dim_size() == 3;
  const Dim& batch = q->dim(0);
  Dim q_heads = KnownDim(IntAttribute(ctx, "q_num_heads", 0));
  Dim kv_heads = KnownDim(IntAttribute(ctx, "kv_num_heads", 0));
  Dim sequence;
  Dim kv_sequence;
  Dim head_size;
  Dim v_head_size;
  if (three_d) {
    sequence = q->dim(1);
    head_size = DivideDim(q->dim(2), q_heads.dim_value());
    if (k != nullptr && k->dim_size() == 3) kv_sequence = k->dim(1);
    v_head_size =
        v != nullptr && v->dim_size() == 3 ? DivideDim(v->dim(2), kv_heads.dim_value()) : Dim();
  } else {
    q_heads = q->dim(1);
    sequence = q->dim(2);
    head_size = q->dim(3);
    if (k != nullptr && k->dim_size() == 4) {
      kv_heads = k->dim(1);
      kv_sequence = k->dim(2);
    }
    if (v != nullptr && v->dim_size() == 4) v_head_size = v->dim(3);
  }
  if (three_d) {
    const Dim hidden = IsKnown(v_head_size) && IsKnown(q_heads)
                           ? KnownDim(v_head_size.dim_value() * q_heads.dim_value())
                           : Dim();
    SetOutput(ctx, 0, query_type, {batch, sequence, hidden});
  } else {
    SetOutput(ctx, 0, query_type, {batch, q_heads, sequence, v_head_size});
  }
  const onnx::TensorShapeProto* past_key = InputShapeOfRank(ctx, 4, 4);
  const Dim total = past_key != nullptr ? AddDims(past_key->dim(2), kv_sequence) : kv_sequence;
  const int32_t key_type = InputElemType(ctx, 1) != 0 ? InputElemType(ctx, 1) : query_type;
  const int32_t value_type = InputElemType(ctx, 2) != 0 ? InputElemType(ctx, 2) : query_type;
  SetOutput(ctx, 1, key_type, {batch, kv_heads, total, head_size});
  SetOutput(ctx, 2, value_type, {batch, kv_heads, total, v_head_size});
  SetOutput(ctx, 3, query_type, {batch, q_heads, sequence, total});
}

// RMSNormalization-23: Y has X's shape and scale's type (type constraint V).
void InferRmsNormalization(onnx::InferenceContext& ctx) {
  CopyInputToOutput(ctx, 0, 0);
  if (int32_t scale_type = InputElemType(ctx, 1); scale_type != 0 && HasOutput(ctx, 0)) {
    ctx.getOutputType(0)->mutable_tensor_type()->set_elem_type(scale_type);
  }
}

void InferLikeFirstInput(onnx::InferenceContext& ctx) { CopyInputToOutput(ctx, 0, 0); }

// Split-18: with num_outputs and no `split` input, n chunks of ceil(d / n) along `axis`, the
// last one smaller when d does not divide. Otherwise Split-13's inference applies.
void InferSplit(onnx::InferenceContext& ctx) {
  const int64_t num_outputs = IntAttribute(ctx, "num_outputs", 0);
  if (HasInput(ctx, 1) || num_outputs <= 0) {
    onnx::OpSchemaRegistry::Schema("Split", 13, "")->GetTypeAndShapeInferenceFunction()(ctx);
    return;
  }
  const int32_t type = InputElemType(ctx, 0);
  const onnx::TensorShapeProto* input = InputShape(ctx, 0);
  const size_t outputs = ctx.getNumOutputs();
  for (size_t i = 0; i < outputs; ++i) {
    if (input == nullptr) {
      SetOutputElemType(ctx, i, type);
      continue;
    }
    const std::optional<int64_t> found_axis = AxisAttribute(ctx, "axis", 0, input->dim_size());
    if (!found_axis) return;
    const int64_t axis = *found_axis;
    std::vector<Dim> dims(input->dim().begin(), input->dim().end());
    const Dim& split_dim = input->dim(static_cast<int>(axis));
    if (IsKnown(split_dim)) {
      const int64_t chunk = (split_dim.dim_value() + num_outputs - 1) / num_outputs;
      const int64_t start = chunk * static_cast<int64_t>(i);
      dims[axis] = KnownDim(std::max<int64_t>(0, std::min(chunk, split_dim.dim_value() - start)));
    } else {
      dims[axis] = Dim();
    }
    SetOutput(ctx, i, type, dims);
  }
}

// Cast-19 and later: the `to` code is kept as is, so float8/int4/float4 targets survive.
void InferCast(onnx::InferenceContext& ctx) {
  CopyInputToOutput(ctx, 0, 0);
  const int64_t to = IntAttribute(ctx, "to", 0);
  if (to != 0 && HasOutput(ctx, 0)) {
    ctx.getOutputType(0)->mutable_tensor_type()->set_elem_type(static_cast<int32_t>(to));
  }
}

// DequantizeLinear-19+: y has x's shape in x_scale's type, or output_dtype when given (23+).
void InferDequantizeLinear(onnx::InferenceContext& ctx) {
  CopyInputToOutput(ctx, 0, 0);
  int64_t type = IntAttribute(ctx, "output_dtype", 0);
  if (type == 0) type = InputElemType(ctx, 1);
  if (HasOutput(ctx, 0)) {
    onnx::TypeProto_Tensor* tensor = ctx.getOutputType(0)->mutable_tensor_type();
    if (type != 0) {
      tensor->set_elem_type(static_cast<int32_t>(type));
    } else {
      tensor->clear_elem_type();
    }
  }
}

// QuantizeLinear-19+: y has x's shape in y_zero_point's type, else output_dtype (21+), else
// uint8.
void InferQuantizeLinear(onnx::InferenceContext& ctx) {
  CopyInputToOutput(ctx, 0, 0);
  int64_t type = InputElemType(ctx, 2);
  if (type == 0) type = IntAttribute(ctx, "output_dtype", 0);
  if (type == 0) type = onnx::TensorProto::UINT8;
  if (HasOutput(ctx, 0)) {
    ctx.getOutputType(0)->mutable_tensor_type()->set_elem_type(static_cast<int32_t>(type));
  }
}

}  // namespace

std::vector<ShapeRule> NewOnnxShapeRules() {
  std::vector<ShapeRule> rules = {
      {"", "Attention", 23, InferAttention},
      {"", "RMSNormalization", 23, InferRmsNormalization},
      {"", "RotaryEmbedding", 23, InferLikeFirstInput},
      {"", "Split", 18, InferSplit},
      {"", "Cast", 19, InferCast},
      {"", "DequantizeLinear", 19, InferDequantizeLinear},
      {"", "QuantizeLinear", 19, InferQuantizeLinear},
      {"", "Mish", 18, InferLikeFirstInput},
      {"", "BitwiseNot", 18, InferLikeFirstInput},
      {"", "GroupNormalization", 18, InferLikeFirstInput},
      {"", "Gelu", 20, InferLikeFirstInput},
      {"", "Swish", 24, InferLikeFirstInput},
  };
  const onnx::OpSchema* broadcast = onnx::OpSchemaRegistry::Schema("Add", 14, "");
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) {
    rules.push_back({"", op, 18, nullptr, broadcast});
  }
  // From opset 18 every Reduce* takes its axes as an optional input, as ReduceSum did from 13.
  const onnx::OpSchema* reduce = onnx::OpSchemaRegistry::Schema("ReduceSum", 13, "");
  for (const char* op : {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                         "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
    rules.push_back({"", op, 18, nullptr, reduce});
  }
  return rules;
}

}  // namespace hyperplan::onnx_import
