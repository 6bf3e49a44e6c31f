// Declared symbols that exporters invent for sizes they could not work out (issue 13).
//
// torch.onnx 1.13 exported a vision model with a fully static input and declared its logits
// [Gemmlogits_dim_0, 1000]: its shape computation ran through Range and ScatterND, where its
// own inference (and ONNX 1.12's) gave up. hyperplan took the declared symbol and demanded
// --dim Gemmlogits_dim_0; bound, the symbol was used as the size even when wrong. The model
// below reproduces the pattern at small scale.
#include <catch2/catch.hpp>

#include "hyperplan/error.h"
#include "model_builder.h"

namespace hyperplan::test {
namespace {

// x [1, 2, 4] float, static. target = ScatterND([0, -1], [[0]], Gather(Shape(x), Range(0, 1, 1)))
// = [1, -1]; flat = Reshape(x, target) = [1, 8]; logits = Gemm(flat, w [4, 8], transB) = [1, 4],
// declared [Gemmlogits_dim_0, 4] as torch declares it.
onnx::ModelProto TorchStyleClassifier() {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {1, 2, 4});
  AddInitializer(graph, "w", kFloat, {4, 8});
  AddInt64Initializer(graph, "zero", {}, {0});
  AddInt64Initializer(graph, "one", {}, {1});
  AddInt64Initializer(graph, "base", {2}, {0, -1});
  AddInt64Initializer(graph, "first", {1, 1}, {0});
  AddNode(graph, "Shape", {"x"}, {"shape"}, "shape");
  AddNode(graph, "Range", {"zero", "one", "one"}, {"leading"}, "range");
  AddNode(graph, "Gather", {"shape", "leading"}, {"batch_size"}, "gather");
  AddNode(graph, "ScatterND", {"base", "first", "batch_size"}, {"target"}, "scatter");
  AddNode(graph, "Reshape", {"x", "target"}, {"flat"}, "reshape");
  SetAttribute(AddNode(graph, "Gemm", {"flat", "w"}, {"logits"}, "gemm"), "transB", 1);
  AddOutput(graph, "logits", kFloat, {"Gemmlogits_dim_0", 4});
  return model;
}

bool HasNoteContaining(const Graph& graph, const std::string& text) {
  for (const std::string& note : graph.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST_CASE("an exporter's symbol for a size inference finds is not a dim to bind", "[onnx][dims]") {
  const Graph graph = Import(TorchStyleClassifier(), {}, "torch_style.onnx");
  INFO(JoinedWarnings(graph));
  // Every size is known without any --dim: Range(0, 1, 1) = [0]; Gather([1, 2, 4], [0]) = [1];
  // ScatterND([0, -1], [[0]], [1]) = [1, -1]; Reshape to [1, 2 * 4 = 8]; Gemm [1, 8] x [8, 4].
  CHECK(ValueNamed(graph, "leading").shape == std::vector<int64_t>{1});
  CHECK(ValueNamed(graph, "target").shape == std::vector<int64_t>{2});
  CHECK(ValueNamed(graph, "flat").shape == std::vector<int64_t>{1, 8});
  CHECK(ValueNamed(graph, "logits").shape == std::vector<int64_t>{1, 4});
  CHECK(ValueNamed(graph, "logits").bytes == 16);  // 1 * 4 float32
  CHECK(graph.bound_dims.empty());
  CHECK(graph.warnings.empty());
  // -v says which declared symbol lost to which size.
  CHECK(HasNoteContaining(graph,
                          "value 'logits': axis 0 is declared 'Gemmlogits_dim_0' and "
                          "inferred as 1; the inferred size is used"));
}

TEST_CASE("binding an exporter's symbol cannot override the inferred size", "[onnx][dims]") {
  ImportOptions options;
  options.dims = {{"Gemmlogits_dim_0", 7}};
  const Graph graph = Import(TorchStyleClassifier(), options, "torch_style_bound.onnx");
  // The model computes 1 row, whatever the binding says; the disagreement is a warning.
  CHECK(ValueNamed(graph, "logits").shape == std::vector<int64_t>{1, 4});
  CHECK(HasWarningContaining(graph, "value 'logits': declared float [7,4], inferred float [1,4]"));
}

TEST_CASE("Range and ScatterND contents follow ONNX's definitions", "[onnx][dims]") {
  // Range(10, 1, -3) = [10, 7, 4] (ceil((1 - 10) / -3) = 3 elements); it sizes a Reshape of a
  // [210] tensor to [10, 7, -1] -> [10, 7, 3]. ScatterND([5, 6, 7], [[-1], [0]], [8, 9])
  // = [9, 6, 8] (index -1 is the last), used as an Expand shape... here as a Reshape of
  // [432] into [9, 6, 8].
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "a", kFloat, {210});
  AddInput(graph, "b", kFloat, {432});
  AddInt64Initializer(graph, "start", {}, {10});
  AddInt64Initializer(graph, "limit", {}, {1});
  AddInt64Initializer(graph, "delta", {}, {-3});
  AddInt64Initializer(graph, "two", {1}, {2});
  AddInt64Initializer(graph, "minus_one", {1}, {-1});
  AddNode(graph, "Range", {"start", "limit", "delta"}, {"steps"});
  AddInt64Initializer(graph, "take", {2}, {0, 1});
  AddNode(graph, "Gather", {"steps", "take"}, {"first_two"});
  SetAttribute(AddNode(graph, "Concat", {"first_two", "minus_one"}, {"a_shape"}), "axis", 0);
  AddNode(graph, "Reshape", {"a", "a_shape"}, {"a3"});
  AddInt64Initializer(graph, "data", {3}, {5, 6, 7});
  AddInt64Initializer(graph, "where", {2, 1}, {-1, 0});
  AddInt64Initializer(graph, "updates", {2}, {8, 9});
  AddNode(graph, "ScatterND", {"data", "where", "updates"}, {"b_shape"});
  AddNode(graph, "Reshape", {"b", "b_shape"}, {"b3"});
  AddUntypedOutput(graph, "a3");
  AddUntypedOutput(graph, "b3");
  const Graph imported = Import(model, {}, "range_scatter.onnx");
  INFO(JoinedWarnings(imported));
  CHECK(ValueNamed(imported, "steps").shape == std::vector<int64_t>{3});
  CHECK(ValueNamed(imported, "a3").shape == std::vector<int64_t>{10, 7, 3});  // 210 / 70 = 3
  CHECK(ValueNamed(imported, "b3").shape == std::vector<int64_t>{9, 6, 8});   // 9*6*8 = 432
}

}  // namespace
}  // namespace hyperplan::test
