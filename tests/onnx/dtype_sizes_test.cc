// Element types and byte sizes: every ONNX code, sub-byte packing, strings, unknown codes.
#include <catch2/catch.hpp>

#include "hyperplan/error.h"
#include "model_builder.h"

namespace hyperplan::test {
namespace {

struct TypeCase {
  int32_t code;
  DType dtype;
  int64_t bytes_for_15;  // a [3, 5] tensor: 15 elements
};

// bits x 15 / 8, rounded up: 4-bit types need 60 bits = 7.5 bytes -> 8.
const TypeCase kCases[] = {
    {1, DType::kFloat32, 60},
    {2, DType::kUint8, 15},
    {3, DType::kInt8, 15},
    {4, DType::kUint16, 30},
    {5, DType::kInt16, 30},
    {6, DType::kInt32, 60},
    {7, DType::kInt64, 120},
    {9, DType::kBool, 15},
    {10, DType::kFloat16, 30},
    {11, DType::kFloat64, 120},
    {12, DType::kUint32, 60},
    {13, DType::kUint64, 120},
    {14, DType::kComplex64, 120},
    {15, DType::kComplex128, 240},
    {16, DType::kBFloat16, 30},
    {17, DType::kFloat8E4M3FN, 15},
    {18, DType::kFloat8E4M3FNUZ, 15},
    {19, DType::kFloat8E5M2, 15},
    {20, DType::kFloat8E5M2FNUZ, 15},
    {21, DType::kUint4, 8},
    {22, DType::kInt4, 8},
    {23, DType::kFloat4E2M1, 8},
};

TEST_CASE("every element type is sized from dims and element width", "[onnx][dtype]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  for (const TypeCase& c : kCases) {
    const std::string in = "in" + std::to_string(c.code);
    const std::string out = "out" + std::to_string(c.code);
    AddInput(graph, in, c.code, {3, 5});
    AddNode(graph, "Identity", {in}, {out});
    AddUntypedOutput(graph, out);
  }
  const Graph imported = Import(model);
  for (const TypeCase& c : kCases) {
    INFO("element type code " << c.code);
    for (const std::string& name :
         {"in" + std::to_string(c.code), "out" + std::to_string(c.code)}) {
      const Value& value = ValueNamed(imported, name);
      CHECK(value.dtype == c.dtype);
      CHECK(value.size_known);
      CHECK(value.shape == std::vector<int64_t>{3, 5});
      CHECK(value.bytes == c.bytes_for_15);
    }
  }
  CHECK(imported.warnings.empty());
}

TEST_CASE("sub-byte initializers round up per tensor", "[onnx][dtype]") {
  onnx::ModelProto model = MakeModel(21);
  onnx::GraphProto& graph = *model.mutable_graph();
  // int4 [7]: 28 bits -> 4 bytes; uint4 [1]: 4 bits -> 1 byte; float4 [3, 3]: 36 bits -> 5.
  AddExternalInitializer(graph, "w_int4", 22, {7}, "absent.bin", 0);
  AddExternalInitializer(graph, "w_uint4", 21, {1}, "absent.bin", 4);
  AddExternalInitializer(graph, "w_fp4", 23, {3, 3}, "absent.bin", 5);
  AddNode(graph, "Identity", {"w_int4"}, {"a"});
  AddNode(graph, "Identity", {"w_uint4"}, {"b"});
  AddNode(graph, "Identity", {"w_fp4"}, {"c"});
  for (const char* out : {"a", "b", "c"}) AddUntypedOutput(graph, out);
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "w_int4").bytes == 4);
  CHECK(ValueNamed(imported, "w_uint4").bytes == 1);
  CHECK(ValueNamed(imported, "w_fp4").bytes == 5);
  CHECK(ValueNamed(imported, "a").bytes == 4);
  CHECK(ValueNamed(imported, "c").dtype == DType::kFloat4E2M1);
}

TEST_CASE("a string tensor has no static size and is warned about", "[onnx][dtype]") {
  onnx::ModelProto model = MakeModel();
  AddInput(*model.mutable_graph(), "text", kString, {4});
  AddNode(*model.mutable_graph(), "Identity", {"text"}, {"copy"});
  AddUntypedOutput(*model.mutable_graph(), "copy");
  const Graph imported = Import(model);
  const Value& text = ValueNamed(imported, "text");
  CHECK(text.dtype == DType::kString);
  CHECK_FALSE(text.size_known);
  CHECK(text.bytes == 0);
  CHECK(text.shape == std::vector<int64_t>{4});
  CHECK(HasWarningContaining(imported,
                             "value 'text' has unknown size: it is a string tensor (no static "
                             "size)"));
}

TEST_CASE("an unknown element type code is an error naming the value", "[onnx][dtype]") {
  onnx::ModelProto model = MakeModel();
  AddInput(*model.mutable_graph(), "odd", 99, {2});
  AddNode(*model.mutable_graph(), "Identity", {"odd"}, {"copy"});
  AddUntypedOutput(*model.mutable_graph(), "copy");
  const std::string path = WriteModel(model, "unknown_type.onnx");
  try {
    ImportOnnxModel(path, {});
    FAIL("import succeeded");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kModel);
    CHECK(std::string(error.what()) == path + ": value 'odd' has unknown element type 99");
  }
}

TEST_CASE("an initializer with an unknown element type is an error", "[onnx][dtype]") {
  onnx::ModelProto model = MakeModel();
  AddExternalInitializer(*model.mutable_graph(), "w", 42, {2, 2}, "absent.bin", 0);
  AddNode(*model.mutable_graph(), "Identity", {"w"}, {"copy"});
  AddUntypedOutput(*model.mutable_graph(), "copy");
  const std::string path = WriteModel(model, "unknown_initializer_type.onnx");
  CHECK_THROWS_WITH(ImportOnnxModel(path, {}), path + ": value 'w' has unknown element type 42");
}

}  // namespace
}  // namespace hyperplan::test
