// MoE and QMoE schemas (see moe_schemas.h).
#include "moe_schemas.h"

#include <onnx/defs/shape_inference.h>

#include <string>

namespace hyperplan::gen {

namespace {

using onnx::AttributeProto;
using onnx::InferenceContext;
using onnx::OpSchema;

const char* kMs = "com.microsoft";
constexpr size_t kFc1 = 2;

bool HasShapedInput(InferenceContext& ctx, size_t index) {
  return index < ctx.getNumInputs() && ctx.getInputType(index) != nullptr &&
         onnx::hasInputShape(ctx, index);
}

// router_probs [tokens, E] against fc1 [E, ...]: both static and different is an error.
void CheckExperts(InferenceContext& ctx) {
  if (!HasShapedInput(ctx, kFc1)) return;
  const auto& fc1 = onnx::getInputShape(ctx, kFc1);
  if (fc1.dim_size() != 3)
    fail_shape_inference("fc1_experts_weights must be 3-D [experts, rows, cols], got rank ",
                         fc1.dim_size());
  if (!HasShapedInput(ctx, 1)) return;
  const auto& router = onnx::getInputShape(ctx, 1);
  if (router.dim_size() != 2) fail_shape_inference("router_probs must be 2-D [tokens, experts]");
  const auto& experts = fc1.dim(0);
  const auto& routed = router.dim(1);
  if (experts.has_dim_value() && routed.has_dim_value() &&
      experts.dim_value() != routed.dim_value())
    fail_shape_inference("router_probs has ", routed.dim_value(), " experts, fc1 stacks ",
                         experts.dim_value());
}

void InferMoe(InferenceContext& ctx) {
  CheckExperts(ctx);
  onnx::propagateShapeAndTypeFromFirstInput(ctx);
}

// Attributes both ops share.
OpSchema& CommonAttributes(OpSchema& s) {
  return s
      .Attr("activation_type", "relu, gelu, silu, swiglu or identity", AttributeProto::STRING,
            std::string("relu"))
      .Attr("k", "Experts each token runs", AttributeProto::INT, static_cast<int64_t>(1))
      .Attr("normalize_routing_weights", "Softmax over the top k only", AttributeProto::INT,
            static_cast<int64_t>(0))
      .Attr("use_sparse_mixer", "Sparse mixer routing", AttributeProto::INT,
            static_cast<int64_t>(0))
      .Attr("swiglu_fusion", "0: fc1 and fc3; 1: fc1 interleaved; 2: fc1 concatenated",
            AttributeProto::INT, static_cast<int64_t>(0))
      .Attr("swiglu_limit", "Clamp in SwiGLU", AttributeProto::FLOAT, false)
      .Attr("activation_alpha", "Activation alpha", AttributeProto::FLOAT, 1.0f)
      .Attr("activation_beta", "Activation beta", AttributeProto::FLOAT, 0.0f);
}

const std::vector<std::string> kFloatTypes = {"tensor(float)", "tensor(float16)",
                                              "tensor(bfloat16)"};

OpSchema Moe() {
  OpSchema s;
  s.SetName("MoE").SetDomain(kMs).SinceVersion(1);
  CommonAttributes(s)
      .Input(0, "input", "[tokens, hidden] or [batch, sequence, hidden]", "T")
      .Input(1, "router_probs", "[tokens, experts]", "T")
      .Input(2, "fc1_experts_weights", "[experts, fusion * inter, hidden]", "T")
      .Input(3, "fc1_experts_bias", "[experts, fusion * inter]", "T", OpSchema::Optional)
      .Input(4, "fc2_experts_weights", "[experts, hidden, inter]", "T")
      .Input(5, "fc2_experts_bias", "[experts, hidden]", "T", OpSchema::Optional)
      .Input(6, "fc3_experts_weights", "[experts, inter, hidden]", "T", OpSchema::Optional)
      .Input(7, "fc3_experts_bias", "[experts, inter]", "T", OpSchema::Optional)
      .Output(0, "output", "the input's shape", "T")
      .TypeConstraint("T", kFloatTypes, "")
      .TypeAndShapeInferenceFunction(InferMoe);
  return s;
}

OpSchema QMoe() {
  OpSchema s;
  s.SetName("QMoE").SetDomain(kMs).SinceVersion(1);
  CommonAttributes(s)
      .Attr("expert_weight_bits", "4 or 8", AttributeProto::INT, static_cast<int64_t>(4))
      .Attr("block_size", "Quantization block along K", AttributeProto::INT, false)
      .Attr("swiglu_interleaved", "Interleaved SwiGLU", AttributeProto::INT,
            static_cast<int64_t>(0))
      .Input(0, "input", "[tokens, hidden] or [batch, sequence, hidden]", "T")
      .Input(1, "router_probs", "[tokens, experts]", "T")
      .Input(2, "fc1_experts_weights", "[experts, fusion * inter, hidden / pack]", "T1")
      .Input(3, "fc1_scales", "[experts, fusion * inter(, hidden / block)]", "T2")
      .Input(4, "fc1_experts_bias", "[experts, fusion * inter]", "T", OpSchema::Optional)
      .Input(5, "fc2_experts_weights", "[experts, hidden, inter / pack]", "T1")
      .Input(6, "fc2_scales", "[experts, hidden(, inter / block)]", "T2")
      .Input(7, "fc2_experts_bias", "[experts, hidden]", "T", OpSchema::Optional)
      .Input(8, "fc3_experts_weights", "[experts, inter, hidden / pack]", "T1", OpSchema::Optional)
      .Input(9, "fc3_scales", "[experts, inter(, hidden / block)]", "T2", OpSchema::Optional)
      .Input(10, "fc3_experts_bias", "[experts, inter]", "T", OpSchema::Optional)
      .Input(11, "fc1_zero_points", "packed zero points", "T1", OpSchema::Optional)
      .Input(12, "fc2_zero_points", "packed zero points", "T1", OpSchema::Optional)
      .Input(13, "fc3_zero_points", "packed zero points", "T1", OpSchema::Optional)
      .Output(0, "output", "the input's shape", "T")
      .TypeConstraint("T", kFloatTypes, "")
      .TypeConstraint("T1", {"tensor(uint8)"}, "")
      .TypeConstraint("T2", kFloatTypes, "")
      .TypeAndShapeInferenceFunction(InferMoe);
  return s;
}

}  // namespace

std::vector<OpSchema> MoeSchemas() { return {Moe(), QMoe()}; }

}  // namespace hyperplan::gen
