// The transformer optimizer's fused ops (see optimizer_schemas.h).
#include "optimizer_schemas.h"

#include <onnx/defs/shape_inference.h>

#include <string>

namespace hyperplan::gen {

namespace {

using onnx::AttributeProto;
using onnx::InferenceContext;
using onnx::OpSchema;
using onnx::TensorShapeProto;

const char* kMs = "com.microsoft";

bool HasInput(InferenceContext& ctx, size_t index) {
  return index < ctx.getNumInputs() && ctx.getInputType(index) != nullptr;
}

bool HasOutput(InferenceContext& ctx, size_t index) {
  return index < ctx.getNumOutputs() && ctx.getOutputType(index) != nullptr;
}

TensorShapeProto* ClearedShape(InferenceContext& ctx, size_t output) {
  auto* shape = ctx.getOutputType(output)->mutable_tensor_type()->mutable_shape();
  shape->Clear();
  return shape;
}

// A dim that is `value` when positive, unknown otherwise.
void AddDim(TensorShapeProto* shape, int64_t value) {
  auto* dim = shape->add_dim();
  if (value > 0) dim->set_dim_value(value);
}

// output and embedding_sum are [batch, sequence, hidden] (hidden: word_embedding's columns);
// mask_index is [batch] int32.
void InferEmbedLayerNormalization(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 2, 0);
  if (HasOutput(ctx, 1)) onnx::updateOutputElemType(ctx, 1, onnx::TensorProto::INT32);
  if (HasOutput(ctx, 2)) onnx::propagateElemTypeFromInputToOutput(ctx, 2, 2);
  if (!onnx::hasInputShape(ctx, 0) || !onnx::hasInputShape(ctx, 2)) return;
  const auto& ids = onnx::getInputShape(ctx, 0);
  const auto& words = onnx::getInputShape(ctx, 2);
  if (ids.dim_size() != 2) fail_shape_inference("input_ids must be 2-D");
  if (words.dim_size() != 2) fail_shape_inference("word_embedding must be 2-D");
  for (size_t output : {0, 2}) {
    if (!HasOutput(ctx, output)) continue;
    auto* shape = ClearedShape(ctx, output);
    *shape->add_dim() = ids.dim(0);
    *shape->add_dim() = ids.dim(1);
    *shape->add_dim() = words.dim(1);
  }
  if (HasOutput(ctx, 1)) *ClearedShape(ctx, 1)->add_dim() = ids.dim(0);
}

OpSchema EmbedLayerNormalization() {
  const float epsilon = 1e-12f;  // the kernel's default
  const int64_t one_d_mask = 1;
  OpSchema s;
  s.SetName("EmbedLayerNormalization")
      .SetDomain(kMs)
      .SinceVersion(1)
      .Attr("epsilon", "Added to the variance", AttributeProto::FLOAT, epsilon)
      .Attr("mask_index_type", "0: no mask_index, 1: 1-D mask_index", AttributeProto::INT,
            one_d_mask)
      .Input(0, "input_ids", "[batch, sequence]", "T1")
      .Input(1, "segment_ids", "[batch, sequence]", "T1", OpSchema::Optional)
      .Input(2, "word_embedding", "[vocab, hidden]", "T")
      .Input(3, "position_embedding", "[positions, hidden]", "T")
      .Input(4, "segment_embedding", "[segments, hidden]", "T", OpSchema::Optional)
      .Input(5, "gamma", "[hidden]", "T")
      .Input(6, "beta", "[hidden]", "T")
      .Input(7, "mask", "[batch, sequence]", "T1", OpSchema::Optional)
      .Input(8, "position_ids", "[batch, sequence] or [1, sequence]", "T1", OpSchema::Optional)
      .Output(0, "output", "[batch, sequence, hidden]", "T")
      .Output(1, "mask_index", "[batch]", "T1", OpSchema::Optional)
      .Output(2, "embedding_sum", "Word + position embedding before the norm", "T",
              OpSchema::Optional)
      .TypeConstraint("T1", {"tensor(int32)"}, "")
      .TypeConstraint("T", {"tensor(float)", "tensor(float16)"}, "")
      .TypeAndShapeInferenceFunction(InferEmbedLayerNormalization);
  return s;
}

// Q/K/V hidden sizes: qkv_hidden_sizes when given, else the weights' columns split in three.
bool QkvHidden(InferenceContext& ctx, int64_t* qk_hidden, int64_t* v_hidden) {
  const auto* sizes = ctx.getAttribute("qkv_hidden_sizes");
  if (sizes != nullptr && sizes->ints_size() == 3) {
    *qk_hidden = sizes->ints(0);
    *v_hidden = sizes->ints(2);
    return true;
  }
  if (!onnx::hasInputShape(ctx, 1)) return false;
  const auto& weights = onnx::getInputShape(ctx, 1);
  if (weights.dim_size() != 2 || !weights.dim(1).has_dim_value()) return false;
  *qk_hidden = *v_hidden = weights.dim(1).dim_value() / 3;
  return true;
}

// present: the past's shape with a shared buffer; else [2, batch, heads, past + sequence, head]
// (past + sequence known when both are; sequence alone without a past).
void InferPresent(InferenceContext& ctx, const TensorShapeProto& input, int64_t head_size) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 1);
  const TensorShapeProto* past = HasInput(ctx, 4) ? onnx::getOptionalInputShape(ctx, 4) : nullptr;
  if (onnx::getAttribute(ctx, "past_present_share_buffer", 0) != 0) {
    if (past != nullptr) *ClearedShape(ctx, 1) = *past;
    return;
  }
  auto* shape = ClearedShape(ctx, 1);
  shape->add_dim()->set_dim_value(2);
  *shape->add_dim() = input.dim(0);
  shape->add_dim()->set_dim_value(onnx::getAttribute(ctx, "num_heads", 0));
  auto* total = shape->add_dim();
  if (!HasInput(ctx, 4)) {
    *total = input.dim(1);
  } else if (past != nullptr && past->dim_size() == 5 && past->dim(3).has_dim_value() &&
             input.dim(1).has_dim_value()) {
    total->set_dim_value(past->dim(3).dim_value() + input.dim(1).dim_value());
  }
  AddDim(shape, head_size);
}

void InferAttention(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  const int64_t num_heads = onnx::getAttribute(ctx, "num_heads", 0);
  if (num_heads <= 0) fail_shape_inference("num_heads must be positive");
  if (!onnx::hasInputShape(ctx, 0)) return;
  const auto& input = onnx::getInputShape(ctx, 0);
  if (input.dim_size() != 3) fail_shape_inference("input must be 3-D");
  int64_t qk_hidden = 0;
  int64_t v_hidden = 0;
  const bool known = QkvHidden(ctx, &qk_hidden, &v_hidden);
  auto* out = ClearedShape(ctx, 0);
  *out->add_dim() = input.dim(0);
  *out->add_dim() = input.dim(1);
  AddDim(out, known ? v_hidden : 0);
  if (HasOutput(ctx, 1)) InferPresent(ctx, input, known ? qk_hidden / num_heads : 0);
}

OpSchema Attention() {
  const int64_t zero = 0;
  const float zero_f = 0.0f;
  const float mask_filter = -10000.0f;
  OpSchema s;
  s.SetName("Attention")
      .SetDomain(kMs)
      .SinceVersion(1)
      .Attr("num_heads", "Attention heads", AttributeProto::INT)
      .Attr("unidirectional", "Causal: each token sees earlier tokens only", AttributeProto::INT,
            zero)
      .Attr("qkv_hidden_sizes", "Hidden sizes of Q, K and V", AttributeProto::INTS,
            /*required=*/false)
      .Attr("past_present_share_buffer", "past and present are one max_length buffer",
            AttributeProto::INT, zero)
      .Attr("mask_filter_value", "Score of masked positions", AttributeProto::FLOAT, mask_filter)
      .Attr("scale", "Score scale; default 1/sqrt(head_size)", AttributeProto::FLOAT, zero_f)
      .Attr("do_rotary", "Apply rotary inside", AttributeProto::INT, zero)
      .Attr("rotary_embedding_dim", "Rotated width; default head_size", AttributeProto::INT, zero)
      .Input(0, "input", "[batch, sequence, input_hidden]", "T")
      .Input(1, "weights", "[input_hidden, 2 * hidden + v_hidden], Q/K/V merged", "T")
      .Input(2, "bias", "[2 * hidden + v_hidden]", "T", OpSchema::Optional)
      .Input(3, "mask_index", "Raw mask or per-batch lengths", "M", OpSchema::Optional)
      .Input(4, "past", "[2, batch, heads, past, head]", "T", OpSchema::Optional)
      .Input(5, "attention_bias", "[batch|1, heads|1, sequence, total]", "T", OpSchema::Optional)
      .Input(6, "past_sequence_length", "With a shared buffer: rows already in it", "M",
             OpSchema::Optional)
      .Output(0, "output", "[batch, sequence, v_hidden]", "T")
      .Output(1, "present", "[2, batch, heads, past + sequence, head]", "T", OpSchema::Optional)
      .TypeConstraint("T", {"tensor(float)", "tensor(float16)", "tensor(bfloat16)"}, "")
      .TypeConstraint("M", {"tensor(int32)"}, "")
      .TypeAndShapeInferenceFunction(InferAttention);
  return s;
}

OpSchema SkipLayerNormalization() {
  const float epsilon = 1e-12f;  // the kernel's default
  OpSchema s;
  s.SetName("SkipLayerNormalization")
      .SetDomain(kMs)
      .SinceVersion(1)
      .Attr("epsilon", "Added to the variance", AttributeProto::FLOAT, epsilon)
      .Input(0, "input", "[batch, sequence, hidden]", "T")
      .Input(1, "skip", "[batch|1, sequence, hidden] or [sequence, hidden]", "T")
      .Input(2, "gamma", "[hidden]", "T")
      .Input(3, "beta", "[hidden]", "T", OpSchema::Optional)
      .Input(4, "bias", "[hidden]", "T", OpSchema::Optional)
      .Output(0, "output", "Normalized sum", "T")
      .Output(1, "mean", "Saved mean", "U", OpSchema::Optional)
      .Output(2, "inv_std_var", "Saved inverse std", "U", OpSchema::Optional)
      .Output(3, "input_skip_bias_sum", "input + skip (+ bias)", "T", OpSchema::Optional)
      .TypeConstraint("T", {"tensor(float)", "tensor(float16)", "tensor(bfloat16)"}, "")
      .TypeConstraint("U", {"tensor(float)"}, "")
      .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
        onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
        for (size_t stat : {1, 2}) {
          if (HasOutput(ctx, stat)) onnx::updateOutputElemType(ctx, stat, onnx::TensorProto::FLOAT);
        }
        if (HasOutput(ctx, 3)) {
          onnx::propagateElemTypeFromInputToOutput(ctx, 0, 3);
          onnx::propagateShapeFromInputToOutput(ctx, 0, 3);
        }
      });
  return s;
}

// The names of a Gelu's input, bias and output, which the two ops spell differently.
struct GeluNames {
  const char* op;
  const char* input;
  const char* bias;
  const char* output;
};

// FastGelu (X, optional bias -> Y) and BiasGelu (A, bias B -> C): elementwise, the input's shape.
OpSchema Gelu(const GeluNames& names, bool bias_optional) {
  OpSchema s;
  s.SetName(names.op)
      .SetDomain(kMs)
      .SinceVersion(1)
      .Input(0, names.input, "Input", "T")
      .Input(1, names.bias, "1-D, added to the input before the activation", "T",
             bias_optional ? OpSchema::Optional : OpSchema::Single)
      .Output(0, names.output, "Gelu(input + bias)", "T")
      .TypeConstraint(
          "T", {"tensor(float)", "tensor(double)", "tensor(float16)", "tensor(bfloat16)"}, "")
      .TypeAndShapeInferenceFunction(onnx::propagateShapeAndTypeFromFirstInput);
  return s;
}

}  // namespace

std::vector<OpSchema> TransformerOptimizerSchemas() {
  return {EmbedLayerNormalization(), Attention(), SkipLayerNormalization(),
          Gelu({"FastGelu", "X", "bias", "Y"}, /*bias_optional=*/true),
          Gelu({"BiasGelu", "A", "B", "C"}, /*bias_optional=*/false)};
}

}  // namespace hyperplan::gen
