// ai.onnx opsets 18-24: models import, and operators ONNX 1.12 lacks get their spec's shapes.
#include <catch2/catch.hpp>

#include "model_builder.h"

namespace hyperplan::test {
namespace {

using Dims = std::vector<int64_t>;

TEST_CASE("a model importing ai.onnx opset 23 imports, old operators included", "[onnx][opset]") {
  onnx::ModelProto model = MakeModel(23);
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {2, 3});
  AddInitializer(graph, "w", kFloat, {3, 4});
  AddNode(graph, "MatMul", {"x", "w"}, {"y"});
  AddNode(graph, "Relu", {"y"}, {"z"});
  AddUntypedOutput(graph, "z");
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "z").shape == Dims{2, 4});
  CHECK(imported.warnings.empty());
}

TEST_CASE("the ai.onnx domain may be spelled out", "[onnx][opset]") {
  onnx::ModelProto model = MakeModel(17);
  model.mutable_opset_import(0)->set_domain("ai.onnx");
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {2, 3});
  AddNode(graph, "Relu", {"x"}, {"y"}, "relu", "ai.onnx");
  AddUntypedOutput(graph, "y");
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "y").shape == Dims{2, 3});
  CHECK(NodeNamed(imported, "relu").domain.empty());
}

TEST_CASE("Attention-23 with 4-D inputs and a past cache", "[onnx][opset]") {
  onnx::ModelProto model = MakeModel(23);
  onnx::GraphProto& graph = *model.mutable_graph();
  // 8 query heads, 2 key/value heads, head size 64.
  AddInput(graph, "q", kFloat16, {2, 8, 5, 64});
  AddInput(graph, "k", kFloat16, {2, 2, 5, 64});
  AddInput(graph, "v", kFloat16, {2, 2, 5, 64});
  AddInput(graph, "past_key", kFloat16, {2, 2, 7, 64});
  AddInput(graph, "past_value", kFloat16, {2, 2, 7, 64});
  AddNode(graph, "Attention", {"q", "k", "v", "", "past_key", "past_value"},
          {"y", "present_key", "present_value"}, "attention");
  for (const char* out : {"y", "present_key", "present_value"}) AddUntypedOutput(graph, out);
  const Graph imported = Import(model);
  // Y (B, Nq, S, Hv) = [2, 8, 5, 64]; present (B, Nkv, P + L, H) = [2, 2, 7 + 5, 64].
  CHECK(ValueNamed(imported, "y").shape == Dims{2, 8, 5, 64});
  CHECK(ValueNamed(imported, "present_key").shape == Dims{2, 2, 12, 64});
  CHECK(ValueNamed(imported, "present_value").bytes == 2 * 2 * 12 * 64 * 2);
  const Node& node = NodeNamed(imported, "attention");
  CHECK(node.int_attributes.at("q_num_heads") == 8);  // read off the 4-D inputs
  CHECK(node.int_attributes.at("kv_num_heads") == 2);
}

TEST_CASE("Attention-23 with 3-D inputs and head counts as attributes", "[onnx][opset]") {
  onnx::ModelProto model = MakeModel(23);
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "q", kFloat, {2, 5, 512});
  AddInput(graph, "k", kFloat, {2, 5, 128});
  AddInput(graph, "v", kFloat, {2, 5, 128});
  onnx::NodeProto* attention =
      AddNode(graph, "Attention", {"q", "k", "v"}, {"y", "present_key"}, "attention");
  SetAttribute(attention, "q_num_heads", 8);
  SetAttribute(attention, "kv_num_heads", 2);
  AddUntypedOutput(graph, "y");
  AddUntypedOutput(graph, "present_key");
  const Graph imported = Import(model);
  // head size 512 / 8 = 64 = 128 / 2; Y (B, S, Nq * Hv) = [2, 5, 512].
  CHECK(ValueNamed(imported, "y").shape == Dims{2, 5, 512});
  CHECK(ValueNamed(imported, "present_key").shape == Dims{2, 2, 5, 64});
}

TEST_CASE("RMSNormalization-23 and RotaryEmbedding-23 keep the input's shape", "[onnx][opset]") {
  onnx::ModelProto model = MakeModel(23);
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {2, 4, 5, 64});
  AddInitializer(graph, "scale", kFloat, {64});
  AddInitializer(graph, "cos", kFloat, {128, 32});
  AddInitializer(graph, "sin", kFloat, {128, 32});
  AddInput(graph, "position_ids", kInt64, {2, 5});
  AddNode(graph, "RMSNormalization", {"x", "scale"}, {"normed"});
  AddNode(graph, "RotaryEmbedding", {"normed", "cos", "sin", "position_ids"}, {"rotated"});
  AddUntypedOutput(graph, "rotated");
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "normed").shape == Dims{2, 4, 5, 64});
  CHECK(ValueNamed(imported, "rotated").shape == Dims{2, 4, 5, 64});
  CHECK(ValueNamed(imported, "rotated").bytes == 2 * 4 * 5 * 64 * 4);
}

TEST_CASE("Split-18 with num_outputs makes the last chunk smaller", "[onnx][opset]") {
  onnx::ModelProto model = MakeModel(18);
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {2, 10});
  onnx::NodeProto* split = AddNode(graph, "Split", {"x"}, {"a", "b", "c"});
  SetAttribute(split, "axis", 1);
  SetAttribute(split, "num_outputs", 3);
  for (const char* out : {"a", "b", "c"}) AddUntypedOutput(graph, out);
  const Graph imported = Import(model);
  // ceil(10 / 3) = 4: chunks 4, 4, 2.
  CHECK(ValueNamed(imported, "a").shape == Dims{2, 4});
  CHECK(ValueNamed(imported, "b").shape == Dims{2, 4});
  CHECK(ValueNamed(imported, "c").shape == Dims{2, 2});
}

TEST_CASE("ReduceMean-18 takes its axes from an input", "[onnx][opset]") {
  onnx::ModelProto model = MakeModel(18);
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {2, 5, 8});
  AddInt64Initializer(graph, "axes", {1}, {-1});
  AddNode(graph, "ReduceMean", {"x", "axes"}, {"mean"});
  AddUntypedOutput(graph, "mean");
  const Graph imported = Import(model);
  // Only the last axis is reduced (kept as 1); ReduceMean-13's rule would reduce them all.
  CHECK(ValueNamed(imported, "mean").shape == Dims{2, 5, 1});
}

TEST_CASE("Cast-19 to a float8 type keeps the new element type and Gelu-20 is known",
          "[onnx][opset]") {
  onnx::ModelProto model = MakeModel(20);
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {4, 4});
  SetAttribute(AddNode(graph, "Cast", {"x"}, {"y"}), "to", int64_t{17});
  AddNode(graph, "Gelu", {"x"}, {"g"});
  AddUntypedOutput(graph, "y");
  AddUntypedOutput(graph, "g");
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "y").dtype == DType::kFloat8E4M3FN);
  CHECK(ValueNamed(imported, "y").bytes == 16);
  CHECK(ValueNamed(imported, "g").shape == Dims{4, 4});  // Gelu-20 is not in ONNX 1.12
}

}  // namespace
}  // namespace hyperplan::test
