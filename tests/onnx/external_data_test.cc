// External data: weights are sized from their dims and never read, even when the file is gone.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>

#include "model_builder.h"

namespace hyperplan::test {
namespace {

TEST_CASE("an external initializer whose file is absent imports with its full size",
          "[onnx][external]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat16, {1, 4096});
  AddExternalInitializer(graph, "w", kFloat16, {4096, 4096}, "missing-weights.bin", 0);
  AddNode(graph, "MatMul", {"x", "w"}, {"y"});
  AddUntypedOutput(graph, "y");
  REQUIRE_FALSE(std::filesystem::exists(TestPath("missing-weights.bin")));
  const Graph imported = Import(model);
  const Value& w = ValueNamed(imported, "w");
  CHECK(w.is_initializer);
  CHECK(w.is_external_data);
  CHECK(w.value_class == ValueClass::kWeight);
  // 4096 * 4096 * 2 bytes.
  CHECK(w.bytes == 33554432);
  CHECK(ValueNamed(imported, "y").shape == std::vector<int64_t>{1, 4096});
  CHECK_FALSE(ValueNamed(imported, "x").is_external_data);
}

TEST_CASE("a model whose external weights total far over 2 GiB imports in parse time",
          "[onnx][external]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  // 40 layers of [8192, 28672] float16 = 469762048 bytes each: 18.8 GB in all, in a file that
  // does not exist.
  AddInput(graph, "h0", kFloat16, {1, 8192});
  int64_t offset = 0;
  const int64_t layer_bytes = int64_t{8192} * 28672 * 2;
  for (int layer = 0; layer < 40; ++layer) {
    const std::string w = "w" + std::to_string(layer);
    AddExternalInitializer(graph, w, kFloat16, {8192, 28672}, "model.weights", offset);
    offset += layer_bytes;
    AddExternalInitializer(graph, w + "_down", kFloat16, {28672, 8192}, "model.weights", offset);
    offset += layer_bytes;
    AddNode(graph, "MatMul", {"h" + std::to_string(layer), w}, {"u" + std::to_string(layer)});
    AddNode(graph, "MatMul", {"u" + std::to_string(layer), w + "_down"},
            {"h" + std::to_string(layer + 1)});
  }
  AddUntypedOutput(graph, "h40");
  const auto start = std::chrono::steady_clock::now();
  const Graph imported = Import(model, {}, "huge.onnx");
  const auto elapsed = std::chrono::steady_clock::now() - start;
  int64_t weight_bytes = 0;
  for (const Value& value : imported.values) {
    if (value.is_initializer) {
      CHECK(value.is_external_data);
      weight_bytes += value.bytes;
    }
  }
  CHECK(weight_bytes == 80 * layer_bytes);
  CHECK(weight_bytes > (int64_t{1} << 31));
  CHECK(ValueNamed(imported, "h40").shape == std::vector<int64_t>{1, 8192});
  // Reading 18.8 GB would take tens of seconds; parsing the graph takes milliseconds.
  CHECK(elapsed < std::chrono::seconds(5));
}

TEST_CASE("external contents are not read even where inference would want them",
          "[onnx][external]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {2, 6});
  AddExternalInitializer(graph, "target_shape", kInt64, {2}, "missing-shapes.bin", 0);
  AddNode(graph, "Reshape", {"x", "target_shape"}, {"y"});
  AddUntypedOutput(graph, "y");
  const Graph imported = Import(model);
  // The target shape's values are in the absent file, so y is not known (ONNX's Reshape rule
  // does not even take the rank from the shape input's length).
  CHECK_FALSE(ValueNamed(imported, "y").size_known);
  INFO(JoinedWarnings(imported));
  CHECK(HasWarningContaining(imported, "value 'y' has unknown size: its rank is unknown"));
  CHECK(ValueNamed(imported, "target_shape").bytes == 16);
}

}  // namespace
}  // namespace hyperplan::test
