// The transformer optimizer's ops (optimizer_schemas.h) check and infer: the tiny gpt2-optimized
// model passes --check's CheckModel, and ONNX shape inference through the registered schemas
// gives each op's output the shape ContribOperators.md states, computed here by hand.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "build_options.h"
#include "contrib_schemas.h"
#include "gpt2_optimized.h"
#include "model_check.h"
#include "model_config.h"

namespace hyperplan::gen {
namespace {

// The tiny preset: 4 layers, hidden 64, 4 heads of 16, intermediate 192, vocab 512.
onnx::ModelProto TinyGpt2() {
  return BuildGpt2Optimized(*FindPreset("tiny"), BuildOptions{}, nullptr);
}

// batch 2, sequence 3, past 5 (so total 5 + 3 = 8).
const std::map<std::string, int64_t> kDims = {
    {"batch", 2}, {"sequence", 3}, {"past_sequence", 5}, {"total_sequence", 8}};

// The model with its input dims bound and its output shapes cleared (so every shape below is
// inference's own), after strict shape inference through the registered schemas.
onnx::ModelProto Inferred(onnx::ModelProto model) {
  RegisterOrtContribSchemas();
  for (auto& input : *model.mutable_graph()->mutable_input()) {
    for (auto& dim : *input.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      if (dim.has_dim_param()) dim.set_dim_value(kDims.at(dim.dim_param()));
    }
  }
  for (auto& output : *model.mutable_graph()->mutable_output())
    output.mutable_type()->mutable_tensor_type()->clear_shape();
  onnx::ShapeInferenceOptions options(/*check_type=*/true, /*strict_mode=*/1, /*data_prop=*/true);
  onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  return model;
}

// The inferred dims of value `name` (-1 for an unknown dim), empty when it has no shape.
std::vector<int64_t> Dims(const onnx::ModelProto& model, const std::string& name) {
  std::vector<int64_t> dims;
  for (const auto* values : {&model.graph().value_info(), &model.graph().output()}) {
    for (const auto& value : *values) {
      if (value.name() != name) continue;
      for (const auto& dim : value.type().tensor_type().shape().dim())
        dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    }
  }
  return dims;
}

int32_t ValueElemType(const onnx::ModelProto& model, const std::string& name) {
  for (const auto& value : model.graph().value_info()) {
    if (value.name() == name) return value.type().tensor_type().elem_type();
  }
  return 0;
}

}  // namespace

TEST_CASE("gpt2-optimized: --check passes with the optimizer ops registered", "[generator]") {
  const CheckReport report = CheckModel(TinyGpt2(), kDims);
  INFO(fmt::format("{}", fmt::join(report.lines, "\n")));
  CHECK(report.ok);
  for (const std::string& line : report.lines) CHECK(line.rfind("FAIL", 0) == std::string::npos);
}

TEST_CASE("gpt2-optimized: each optimizer op's output shape is the one its spec states",
          "[generator]") {
  const onnx::ModelProto model = Inferred(TinyGpt2());
  // EmbedLayerNormalization: [batch, sequence, hidden] = [2, 3, 64] for the norm and the sum;
  // mask_index is [batch] = [2], int32.
  CHECK(Dims(model, "EmbedLayerNormalization_0") == std::vector<int64_t>{2, 3, 64});
  CHECK(Dims(model, "embedding_sum") == std::vector<int64_t>{2, 3, 64});
  CHECK(Dims(model, "mask_index") == std::vector<int64_t>{2});
  CHECK(ValueElemType(model, "mask_index") == onnx::TensorProto::INT32);
  // Attention: the QKV weights are [64, 192], so each of Q, K, V is 192 / 3 = 64 wide; the
  // output is [2, 3, 64]. present is [2, batch, heads, past + sequence, head] =
  // [2, 2, 4, 5 + 3 = 8, 64 / 4 = 16].
  CHECK(Dims(model, "/h.0/Attention/output_0") == std::vector<int64_t>{2, 3, 64});
  CHECK(Dims(model, "present_0") == std::vector<int64_t>{2, 2, 4, 8, 16});
  CHECK(Dims(model, "present_3") == std::vector<int64_t>{2, 2, 4, 8, 16});
  // SkipLayerNormalization: the output and input_skip_bias_sum take the input's [2, 3, 64].
  CHECK(Dims(model, "/h.0/SkipLn_1/output_0") == std::vector<int64_t>{2, 3, 64});
  CHECK(Dims(model, "/h.2/SkipLn_2/output_3") == std::vector<int64_t>{2, 3, 64});
  // FastGelu (even layers) and BiasGelu (odd) are elementwise on the [2, 3, 192] MLP input.
  CHECK(Dims(model, "/h.0/mlp/FastGelu/output_0") == std::vector<int64_t>{2, 3, 192});
  CHECK(Dims(model, "/h.1/mlp/BiasGelu/output_0") == std::vector<int64_t>{2, 3, 192});
  // The LM head: [2, 3, 64] x [64, 512] = [2, 3, 512].
  CHECK(Dims(model, "logits") == std::vector<int64_t>{2, 3, 512});
}

TEST_CASE("gpt2-optimized: Attention's present without a past holds the new tokens only",
          "[generator]") {
  // Drop past_0 from layer 0's Attention: present_0 is [2, batch, heads, sequence, head] =
  // [2, 2, 4, 3, 16].
  onnx::ModelProto model = TinyGpt2();
  for (auto& node : *model.mutable_graph()->mutable_node()) {
    if (node.op_type() == "Attention" && node.input(4) == "past_0") node.set_input(4, "");
  }
  CHECK(Dims(Inferred(std::move(model)), "present_0") == std::vector<int64_t>{2, 2, 4, 3, 16});
}

}  // namespace hyperplan::gen
