#include "contrib_schemas.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <mutex>
#include <string>
#include <vector>

#include "moe_schemas.h"
#include "optimizer_schemas.h"

namespace hyperplan::gen {

namespace {

using onnx::AttributeProto;
using onnx::InferenceContext;
using onnx::OpSchema;

const char* kMs = "com.microsoft";
const std::vector<std::string> kFloatTypes = {"tensor(float)", "tensor(float16)",
                                              "tensor(bfloat16)"};

bool HasInput(InferenceContext& ctx, size_t index) {
  return index < ctx.getNumInputs() && ctx.getInputType(index) != nullptr;
}

bool HasOutput(InferenceContext& ctx, size_t index) {
  return index < ctx.getNumOutputs() && ctx.getOutputType(index) != nullptr;
}

OpSchema SimplifiedLayerNormalization() {
  const int64_t axis = -1;
  const float epsilon = 1e-5f;
  const int64_t stash_type = 1;
  OpSchema s;
  s.SetName("SimplifiedLayerNormalization")
      .SetDomain("")
      .SinceVersion(1)
      .Attr("axis", "First normalized dimension", AttributeProto::INT, axis)
      .Attr("epsilon", "Added to the mean square", AttributeProto::FLOAT, epsilon)
      .Attr("stash_type", "Type of the saved statistics", AttributeProto::INT, stash_type)
      .Input(0, "X", "Input", "T")
      .Input(1, "scale", "Scale", "V")
      .Output(0, "Y", "Output", "V")
      .Output(1, "inv_std_var", "Saved inverse std", "U", OpSchema::Optional)
      .TypeConstraint(
          "T", {"tensor(float)", "tensor(float16)", "tensor(bfloat16)", "tensor(double)"}, "")
      .TypeConstraint("U", {"tensor(float)", "tensor(double)"}, "")
      .TypeConstraint(
          "V", {"tensor(float)", "tensor(float16)", "tensor(bfloat16)", "tensor(double)"}, "")
      .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
        onnx::propagateElemTypeFromInputToOutput(ctx, 1, 0);
        onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
        if (HasOutput(ctx, 1)) onnx::updateOutputElemType(ctx, 1, onnx::TensorProto::FLOAT);
      });
  return s;
}

OpSchema SkipSimplifiedLayerNormalization() {
  const float epsilon = 1e-5f;
  OpSchema s;
  s.SetName("SkipSimplifiedLayerNormalization")
      .SetDomain(kMs)
      .SinceVersion(1)
      .Attr("epsilon", "Added to the mean square", AttributeProto::FLOAT, epsilon)
      .Input(0, "input", "Input", "T")
      .Input(1, "skip", "Residual", "T")
      .Input(2, "gamma", "Scale", "T")
      .Input(3, "bias", "Bias", "T", OpSchema::Optional)
      .Output(0, "output", "Normalized sum", "T")
      .Output(1, "mean", "Saved mean", "U", OpSchema::Optional)
      .Output(2, "inv_std_var", "Saved inverse std", "U", OpSchema::Optional)
      .Output(3, "input_skip_bias_sum", "input + skip (+ bias)", "T", OpSchema::Optional)
      .TypeConstraint("T", kFloatTypes, "")
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

OpSchema RotaryEmbedding() {
  const int64_t zero = 0;
  const float one = 1.0f;
  OpSchema s;
  s.SetName("RotaryEmbedding")
      .SetDomain(kMs)
      .SinceVersion(1)
      .Attr("interleaved", "Real and imaginary parts interleaved", AttributeProto::INT, zero)
      .Attr("is_packed_batching", "Ragged batch", AttributeProto::INT, zero)
      .Attr("num_heads", "Heads, with rotary_embedding_dim", AttributeProto::INT, zero)
      .Attr("rotary_embedding_dim", "Rotated width", AttributeProto::INT, zero)
      .Attr("scale", "Position scale", AttributeProto::FLOAT, one)
      .Input(0, "input", "[batch, sequence, hidden] or [batch, heads, sequence, head]", "T")
      .Input(1, "position_ids", "[1] or [batch, sequence]", "M")
      .Input(2, "cos_cache", "[max_sequence, rotary / 2]", "T")
      .Input(3, "sin_cache", "[max_sequence, rotary / 2]", "T")
      .Output(0, "output", "Same shape as input", "T")
      .TypeConstraint("T", kFloatTypes, "")
      .TypeConstraint("M", {"tensor(int64)"}, "")
      .TypeAndShapeInferenceFunction(onnx::propagateShapeAndTypeFromFirstInput);
  return s;
}

// present_* is [batch, kv_heads, past + sequence, head_size]; past + sequence is known when both
// are, and is the new sequence when there is no past. With total_sequence_length a graph input
// (the shared buffer's form) the length is left to the declaration.
void InferGroupQueryAttention(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  const int64_t num_heads = onnx::getAttribute(ctx, "num_heads", 0);
  const int64_t kv_heads = onnx::getAttribute(ctx, "kv_num_heads", 0);
  if (num_heads <= 0 || kv_heads <= 0)
    fail_shape_inference("num_heads and kv_num_heads must be positive");
  if (!onnx::hasInputShape(ctx, 0)) return;
  const auto& query = onnx::getInputShape(ctx, 0);
  if (query.dim_size() != 3) fail_shape_inference("query must be 3-D");
  const bool packed = !HasInput(ctx, 1);
  int64_t head_size = 0;
  const auto& width = query.dim(2);
  if (width.has_dim_value())
    head_size = width.dim_value() / (packed ? num_heads + 2 * kv_heads : num_heads);

  auto* out = ctx.getOutputType(0)->mutable_tensor_type()->mutable_shape();
  out->Clear();
  *out->add_dim() = query.dim(0);
  *out->add_dim() = query.dim(1);
  if (head_size > 0)
    out->add_dim()->set_dim_value(head_size * num_heads);
  else
    out->add_dim();

  for (size_t present : {1, 2}) {
    if (!HasOutput(ctx, present)) continue;
    const size_t past = present + 2;  // past_key is input 3, past_value input 4
    const bool quantized = onnx::getAttribute(ctx, "k_quant_type", "NONE") != "NONE";
    if (HasInput(ctx, past)) {
      onnx::propagateElemTypeFromInputToOutput(ctx, past, present);
    } else if (quantized) {  // int8: the only 8-bit cache type ONNX 1.12 knows
      ctx.getOutputType(present)->mutable_tensor_type()->set_elem_type(
          onnx::TensorProto_DataType_INT8);
    } else {
      onnx::propagateElemTypeFromInputToOutput(ctx, 0, present);
    }
    auto* shape = ctx.getOutputType(present)->mutable_tensor_type()->mutable_shape();
    shape->Clear();
    *shape->add_dim() = query.dim(0);
    shape->add_dim()->set_dim_value(kv_heads);
    auto* total = shape->add_dim();
    const onnx::TensorShapeProto* past_shape = onnx::getOptionalInputShape(ctx, past);
    // A total_sequence_length with no value known here (a graph input, not the caches'
    // shapes) is the shared max_length buffer's form: present keeps the declared length.
    const bool total_given = ctx.getInputData(6) != nullptr || ctx.getSymbolicInput(6) != nullptr;
    if (!HasInput(ctx, past)) {
      *total = query.dim(1);
    } else if (total_given && past_shape != nullptr && past_shape->dim_size() == 4 &&
               past_shape->dim(2).has_dim_value() && query.dim(1).has_dim_value()) {
      total->set_dim_value(past_shape->dim(2).dim_value() + query.dim(1).dim_value());
    }
    if (head_size > 0)
      shape->add_dim()->set_dim_value(head_size);
    else
      shape->add_dim();
  }
}

OpSchema GroupQueryAttention() {
  const int64_t zero = 0;
  const int64_t one = 1;
  const int64_t minus_one = -1;
  const float zero_f = 0.0f;
  const float qk_norm_epsilon = 1e-6f;
  const std::string none = "NONE";
  const int64_t eight = 8;
  OpSchema s;
  s.SetName("GroupQueryAttention")
      .SetDomain(kMs)
      .SinceVersion(1)
      .Attr("num_heads", "Query heads", AttributeProto::INT)
      .Attr("kv_num_heads", "Key/value heads", AttributeProto::INT)
      .Attr("scale", "Score scale; default 1/sqrt(head_size)", AttributeProto::FLOAT, zero_f)
      .Attr("softcap", "Score softcap", AttributeProto::FLOAT, zero_f)
      .Attr("local_window_size", "Sliding window; -1 unused", AttributeProto::INT, minus_one)
      .Attr("do_rotary", "Apply rotary inside", AttributeProto::INT, zero)
      .Attr("rotary_interleaved", "Interleaved rotary", AttributeProto::INT, zero)
      .Attr("smooth_softmax", "Smooth softmax", AttributeProto::INT, zero)
      .Attr("qk_output", "Output QK", AttributeProto::INT, zero)
      .Attr("causal", "Causal mask", AttributeProto::INT, one)
      .Attr("sliding_window_cache", "Window-sized cache", AttributeProto::INT, zero)
      .Attr("k_quant_type", "Key cache quantization", AttributeProto::STRING, none)
      .Attr("v_quant_type", "Value cache quantization", AttributeProto::STRING, none)
      .Attr("kv_cache_bit_width", "Quantized cache bits", AttributeProto::INT, eight)
      .Attr("qk_norm_epsilon", "Q/K RMS norm epsilon", AttributeProto::FLOAT, qk_norm_epsilon)
      .Input(0, "query", "[batch, sequence, heads * head] or packed QKV", "T")
      .Input(1, "key", "[batch, sequence, kv_heads * head]", "T", OpSchema::Optional)
      .Input(2, "value", "[batch, sequence, kv_heads * head]", "T", OpSchema::Optional)
      .Input(3, "past_key", "[batch, kv_heads, past, head]", "T_CACHE", OpSchema::Optional)
      .Input(4, "past_value", "[batch, kv_heads, past, head]", "T_CACHE", OpSchema::Optional)
      .Input(5, "seqlens_k", "[batch]: total length - 1", "M")
      .Input(6, "total_sequence_length", "Scalar: past + new, batch maximum", "M")
      .Input(7, "cos_cache", "[max_sequence, head / 2]", "T", OpSchema::Optional)
      .Input(8, "sin_cache", "[max_sequence, head / 2]", "T", OpSchema::Optional)
      .Input(9, "position_ids", "[batch, sequence]", "tensor(int64)", OpSchema::Optional)
      .Input(10, "attention_bias", "[batch|1, heads|1, sequence, total]", "T", OpSchema::Optional)
      .Input(11, "head_sink", "[heads]", "T", OpSchema::Optional)
      .Input(12, "k_scale", "[1] or [1, kv_heads, 1, head]", "T_KV_SCALE", OpSchema::Optional)
      .Input(13, "v_scale", "[1] or [1, kv_heads, 1, head]", "T_KV_SCALE", OpSchema::Optional)
      .Output(0, "output", "[batch, sequence, heads * head]", "T")
      .Output(1, "present_key", "[batch, kv_heads, total, head]", "T_CACHE", OpSchema::Optional)
      .Output(2, "present_value", "[batch, kv_heads, total, head]", "T_CACHE", OpSchema::Optional)
      .Output(3, "output_qk", "QK values", "T", OpSchema::Optional)
      .TypeConstraint("T", kFloatTypes, "")
      .TypeConstraint(
          "T_CACHE",
          {"tensor(float)", "tensor(float16)", "tensor(bfloat16)", "tensor(uint8)", "tensor(int8)"},
          "")
      .TypeConstraint("T_KV_SCALE", {"tensor(float)"}, "")
      .TypeConstraint("M", {"tensor(int32)"}, "")
      .TypeAndShapeInferenceFunction(InferGroupQueryAttention);
  return s;
}

OpSchema MatMulNBits() {
  const int64_t four = 4;
  const int64_t zero = 0;
  OpSchema s;
  s.SetName("MatMulNBits")
      .SetDomain(kMs)
      .SinceVersion(1)
      .Attr("K", "Input features", AttributeProto::INT)
      .Attr("N", "Output features", AttributeProto::INT)
      .Attr("bits", "Bits per weight", AttributeProto::INT, four)
      .Attr("block_size", "Block along K", AttributeProto::INT)
      .Attr("accuracy_level", "Minimum accuracy of A", AttributeProto::INT, zero)
      .Attr("weight_prepacked", "EP-specific prepacking", AttributeProto::INT, zero)
      .Input(0, "A", "[..., K]", "T1")
      .Input(1, "B", "[N, k_blocks, block_size * bits / 8] packed", "T2")
      .Input(2, "scales", "[N, k_blocks]", "T1")
      .Input(3, "zero_points", "Packed or unpacked zero points", "T3", OpSchema::Optional)
      .Input(4, "g_idx", "Deprecated", "T4", OpSchema::Optional)
      .Input(5, "bias", "[N]", "T1", OpSchema::Optional)
      .Output(0, "Y", "[..., N]", "T1")
      .TypeConstraint("T1", kFloatTypes, "")
      .TypeConstraint("T2", {"tensor(uint8)"}, "")
      .TypeConstraint("T3",
                      {"tensor(uint8)", "tensor(float)", "tensor(float16)", "tensor(bfloat16)"}, "")
      .TypeConstraint("T4", {"tensor(int32)"}, "")
      .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
        if (!onnx::hasInputShape(ctx, 0)) return;
        const auto& a = onnx::getInputShape(ctx, 0);
        if (a.dim_size() < 1) fail_shape_inference("A must have rank >= 1");
        auto* y = ctx.getOutputType(0)->mutable_tensor_type()->mutable_shape();
        y->Clear();
        for (int i = 0; i + 1 < a.dim_size(); ++i) *y->add_dim() = a.dim(i);
        y->add_dim()->set_dim_value(onnx::getAttribute(ctx, "N", 0));
      });
  return s;
}

}  // namespace

void RegisterOrtContribSchemas() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance();
    if (ranges.Map().count(kMs) == 0) ranges.AddDomainToVersion(kMs, 1, 1);
    std::vector<OpSchema> schemas = {SimplifiedLayerNormalization(),
                                     SkipSimplifiedLayerNormalization(), RotaryEmbedding(),
                                     GroupQueryAttention(), MatMulNBits()};
    for (OpSchema& schema : TransformerOptimizerSchemas()) schemas.push_back(std::move(schema));
    for (OpSchema& schema : MoeSchemas()) schemas.push_back(std::move(schema));
    for (OpSchema& schema : schemas) {
      if (onnx::OpSchemaRegistry::Schema(schema.Name(), schema.SinceVersion(), schema.domain()) ==
          nullptr) {
        onnx::RegisterSchema(std::move(schema));
      }
    }
  });
}

}  // namespace hyperplan::gen
