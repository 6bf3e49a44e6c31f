// The unknown-size refusal (onnx/unknown_sizes.h): which values count, and the one line that
// names the first one, its producer and each operator with no shape rule.
#include <catch2/catch.hpp>

#include "hyperplan/error.h"
#include "model_builder.h"

namespace hyperplan::test {
namespace {

constexpr char kMs[] = "com.microsoft";

// x -> Mystery -> y -> Mystery -> z -> Relu -> out; a Shape of y too.
onnx::ModelProto MysteryModel() {
  onnx::ModelProto model = MakeModel(17);
  AddOpset(model, kMs, 1);
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {4});
  AddNode(graph, "Mystery", {"x"}, {"y"}, "m1", kMs);
  AddNode(graph, "Mystery", {"y"}, {"z"}, "m2", kMs);
  AddNode(graph, "Relu", {"z"}, {"out"}, "relu");
  AddNode(graph, "Shape", {"y"}, {"y_shape"}, "shape");
  AddUntypedOutput(graph, "out");
  AddUntypedOutput(graph, "y_shape");
  return model;
}

std::string RefusalOf(const onnx::ModelProto& model) {
  ImportOptions options;
  options.refuse_unknown_sizes = true;
  try {
    Import(model, options, "mystery.onnx");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kModel);
    return error.what();
  }
  FAIL("the import did not refuse");
  return "";
}

TEST_CASE("unknown sizes: refused with the first value, its producer and the rule-less ops",
          "[onnx][unknown]") {
  const std::string message = RefusalOf(MysteryModel());
  // y, z and out count (3); y_shape is a Shape output and does not.
  CHECK_THAT(message, Catch::Contains("mystery.onnx: 3 values of unknown size (first: 'y' from "
                                      "node 'm1' (com.microsoft.Mystery): no shape rule for "
                                      "com.microsoft.Mystery); no shape rule for "
                                      "com.microsoft.Mystery (2 nodes); --allow-unknown plans "
                                      "them as 0 bytes"));
  CHECK(message.find('\n') == std::string::npos);
}

TEST_CASE("unknown sizes: without the refusal they import as 0 bytes with warnings",
          "[onnx][unknown]") {
  const Graph imported = Import(MysteryModel());
  CHECK_FALSE(ValueNamed(imported, "z").size_known);
  CHECK(ValueNamed(imported, "z").bytes == 0);
  CHECK(HasWarningContaining(imported,
                             "no shape rule for operator 'com.microsoft.Mystery' (2 "
                             "nodes)"));
}

TEST_CASE("unknown sizes: a value known in full is not refused, nor an unbound dim's",
          "[onnx][unknown]") {
  onnx::ModelProto model = MakeModel(17);
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {"batch", 8});
  AddNode(graph, "Relu", {"x"}, {"y"}, "relu");
  AddUntypedOutput(graph, "y");
  ImportOptions options;
  options.refuse_unknown_sizes = true;
  options.dims = {{"batch", 2}};
  // Every size known: 2*8*4 bytes = 64.
  CHECK(ValueNamed(Import(model, options), "y").bytes == 64);
  // Unbound, the dim's own error names it (not the unknown-size refusal).
  options.dims.clear();
  try {
    Import(model, options);
    FAIL("an unbound dim imported");
  } catch (const Error& error) {
    CHECK_THAT(error.what(), Catch::Contains("dimension 'batch' is not bound"));
  }
  options.allow_unbound_dims = true;
  CHECK_NOTHROW(Import(model, options));
}

TEST_CASE("unknown sizes: a value of unknown element type counts with its reason",
          "[onnx][unknown]") {
  onnx::ModelProto model = MakeModel(17);
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInputOfUnknownRank(graph, "x", kFloat);
  AddNode(graph, "Relu", {"x"}, {"y"}, "relu");
  AddUntypedOutput(graph, "y");
  const std::string message = RefusalOf(model);
  // x (a graph input of unknown rank) and y both count; x is first and has no producer.
  CHECK_THAT(message, Catch::Contains("2 values of unknown size (first: 'x': its rank is "
                                      "unknown); --allow-unknown"));
}

}  // namespace
}  // namespace hyperplan::test
