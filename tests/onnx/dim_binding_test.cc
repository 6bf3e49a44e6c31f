// Symbolic dims: binding with --dim, expressions over symbols, and the unbound-symbol error.
#include <catch2/catch.hpp>

#include "hyperplan/error.h"
#include "model_builder.h"
#include "onnx/dim_expression.h"

namespace hyperplan::test {
namespace {

// x [batch, sequence, 16] @ w [16, 32] -> y [batch, sequence, 32], all float.
onnx::ModelProto Projection() {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {"batch", "sequence", 16});
  AddInitializer(graph, "w", kFloat, {16, 32});
  AddNode(graph, "MatMul", {"x", "w"}, {"y"}, "project");
  AddOutput(graph, "y", kFloat, {"batch", "sequence", 32});
  return model;
}

std::string ErrorText(const onnx::ModelProto& model, const ImportOptions& options,
                      const std::string& file_name, std::string* path) {
  *path = WriteModel(model, file_name);
  try {
    ImportOnnxModel(*path, options);
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kModel);
    return error.what();
  }
  FAIL("import succeeded");
  return "";
}

TEST_CASE("bound dims make symbolic shapes concrete", "[onnx][dims]") {
  ImportOptions options;
  options.dims = {{"batch", 2}, {"sequence", 5}};
  const Graph graph = Import(Projection(), options);
  // x: 2 * 5 * 16 * 4 bytes = 640; y: 2 * 5 * 32 * 4 = 1280.
  CHECK(ValueNamed(graph, "x").shape == std::vector<int64_t>{2, 5, 16});
  CHECK(ValueNamed(graph, "x").bytes == 640);
  CHECK(ValueNamed(graph, "y").shape == std::vector<int64_t>{2, 5, 32});
  CHECK(ValueNamed(graph, "y").bytes == 1280);
  CHECK(graph.bound_dims ==
        std::map<std::string, int64_t, std::less<>>{{"batch", 2}, {"sequence", 5}});
  CHECK(graph.warnings.empty());
}

TEST_CASE("an unbound symbol that decides a size is an error naming it", "[onnx][dims]") {
  std::string path;
  std::string text = ErrorText(Projection(), {}, "unbound.onnx", &path);
  CHECK(text == path +
                    ": dimension 'batch' is not bound and decides the size of values 'x', 'y'; "
                    "bind it with --dim batch=VALUE (also unbound: 'sequence')");

  ImportOptions options;
  options.dims = {{"batch", 2}};
  text = ErrorText(Projection(), options, "half_bound.onnx", &path);
  CHECK(text ==
        path +
            ": dimension 'sequence' is not bound and decides the size of values 'x', 'y'; bind "
            "it with --dim sequence=VALUE");
}

TEST_CASE("the unbound-symbol error names the first few values only", "[onnx][dims]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "v0", kFloat, {"tokens"});
  for (int i = 1; i <= 5; ++i) {
    AddNode(graph, "Relu", {"v" + std::to_string(i - 1)}, {"v" + std::to_string(i)});
  }
  AddUntypedOutput(graph, "v5");
  std::string path;
  const std::string text = ErrorText(model, {}, "many.onnx", &path);
  CHECK(text ==
        path +
            ": dimension 'tokens' is not bound and decides the size of values 'v0', 'v1', 'v2' "
            "and 3 more; bind it with --dim tokens=VALUE");
}

// past_key [1, 4, past_sequence, 8] ++ new_key [1, 4, sequence, 8] along axis 2, declared as
// present [1, 4, "past_sequence + sequence", 8].
onnx::ModelProto KeyCache() {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "past_key", kFloat, {1, 4, "past_sequence", 8});
  AddInput(graph, "new_key", kFloat, {1, 4, "sequence", 8});
  SetAttribute(AddNode(graph, "Concat", {"past_key", "new_key"}, {"present"}), "axis", 2);
  AddOutput(graph, "present", kFloat, {1, 4, "past_sequence + sequence", 8});
  return model;
}

TEST_CASE("dim expressions evaluate under the bound dims", "[onnx][dims]") {
  ImportOptions options;
  options.dims = {{"past_sequence", 7}, {"sequence", 1}};
  const Graph graph = Import(KeyCache(), options);
  // present: 7 + 1 = 8 positions; 1 * 4 * 8 * 8 * 4 bytes = 1024.
  CHECK(ValueNamed(graph, "present").shape == std::vector<int64_t>{1, 4, 8, 8});
  CHECK(ValueNamed(graph, "present").bytes == 1024);
}

TEST_CASE("an expression with an unbound symbol names that symbol", "[onnx][dims]") {
  ImportOptions options;
  options.dims = {{"past_sequence", 7}};
  std::string path;
  const std::string text = ErrorText(KeyCache(), options, "expression.onnx", &path);
  CHECK(text == path +
                    ": dimension 'sequence' is not bound and decides the size of values 'new_key', "
                    "'present'; bind it with --dim sequence=VALUE");
}

TEST_CASE("a symbol inference resolves needs no binding", "[onnx][dims]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {"batch", 4});
  AddNode(graph, "Relu", {"x"}, {"y"});
  // Exporters name output dims they could not relate to inputs; inference relates them.
  AddOutput(graph, "y", kFloat, {"batch", "Reluy_dim_1"});
  ImportOptions options;
  options.dims = {{"batch", 2}};
  const Graph imported = Import(model, options);
  CHECK(ValueNamed(imported, "y").shape == std::vector<int64_t>{2, 4});
  CHECK(imported.bound_dims.size() == 1);
}

TEST_CASE("a dim no --dim can fix is unknown with a warning, not an error", "[onnx][dims]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {3, 4});
  AddNode(graph, "NonZero", {"x"}, {"where"});
  AddUntypedOutput(graph, "where");
  const Graph imported = Import(model);
  const Value& where = ValueNamed(imported, "where");
  CHECK_FALSE(where.size_known);
  CHECK(where.bytes == 0);
  CHECK(HasWarningContaining(imported, "value 'where' has unknown size"));
}

TEST_CASE("a --dim the model never names is warned about", "[onnx][dims]") {
  ImportOptions options;
  options.dims = {{"batch", 1}, {"sequence", 1}, {"bacth", 3}};
  const Graph graph = Import(Projection(), options);
  CHECK(HasWarningContaining(graph, "--dim bacth: the model has no dimension of that name"));
  CHECK(graph.bound_dims.count("bacth") == 0);
}

TEST_CASE("default dims bind what no --dim does, and are never warned unused", "[onnx][dims]") {
  ImportOptions options;
  options.dims = {{"batch", 2}};
  // An exporter config's dims: batch loses to --dim, sequence binds, the rest the model never
  // names and no warning says so.
  options.default_dims = {{"batch", 7}, {"sequence", 3}, {"past_sequence_length", 9}};
  const Graph graph = Import(Projection(), options);
  // y: 2 * 3 * 32 * 4 bytes = 768.
  CHECK(ValueNamed(graph, "y").shape == std::vector<int64_t>{2, 3, 32});
  CHECK(ValueNamed(graph, "y").bytes == 768);
  CHECK(graph.bound_dims ==
        std::map<std::string, int64_t, std::less<>>{{"batch", 2}, {"sequence", 3}});
  CHECK(graph.warnings.empty());
}

TEST_CASE("a bound expression that comes out negative is an error", "[onnx][dims]") {
  onnx::ModelProto model = MakeModel();
  AddInput(*model.mutable_graph(), "x", kFloat, {"n - 4"});
  AddNode(*model.mutable_graph(), "Relu", {"x"}, {"y"});
  AddUntypedOutput(*model.mutable_graph(), "y");
  ImportOptions options;
  options.dims = {{"n", 1}};
  std::string path;
  const std::string text = ErrorText(model, options, "negative_expression.onnx", &path);
  CHECK(text ==
        path + ": value 'x' has negative dimension -3 at axis 0 ('n - 4' with the bound dims)");
}

TEST_CASE("dim expressions: arithmetic, names, and what is not an expression", "[onnx][dims]") {
  using onnx_import::EvaluateDimExpression;
  const auto lookup = [](std::string_view name) -> std::optional<int64_t> {
    if (name == "a") return 7;
    if (name == "b") return 3;
    if (name == "s0.x") return 10;
    return std::nullopt;
  };
  CHECK(EvaluateDimExpression("a + 1", lookup).value == 8);
  CHECK(EvaluateDimExpression("2*a - b", lookup).value == 11);
  CHECK(EvaluateDimExpression("a - b - 1", lookup).value == 3);  // left to right
  CHECK(EvaluateDimExpression("(a + b) * 2", lookup).value == 20);
  CHECK(EvaluateDimExpression("a // 2", lookup).value == 3);  // floor division
  CHECK(EvaluateDimExpression("-a // 2", lookup).value == -4);
  CHECK(EvaluateDimExpression("a % b", lookup).value == 1);
  CHECK(EvaluateDimExpression("s0.x / 5", lookup).value == 2);
  // "/" must divide exactly: 7 / 2 has no dim value.
  const auto inexact = EvaluateDimExpression("a / 2", lookup);
  CHECK(inexact.parsed);
  CHECK_FALSE(inexact.value);
  CHECK(inexact.unbound.empty());
  const auto unbound = EvaluateDimExpression("past + a + sequence + past", lookup);
  CHECK(unbound.parsed);
  CHECK_FALSE(unbound.value);
  CHECK(unbound.unbound == std::vector<std::string>{"past", "sequence"});
  // A hyphen between name characters belongs to the name.
  CHECK(EvaluateDimExpression("seq-len - 1", lookup).unbound ==
        std::vector<std::string>{"seq-len"});
  CHECK(EvaluateDimExpression("a-b", lookup).unbound == std::vector<std::string>{"a-b"});
  // Not expressions: the whole text is one opaque name.
  for (const char* text : {"batch size", "floor(a/2)", "2x", ""}) {
    INFO(text);
    CHECK_FALSE(EvaluateDimExpression(text, lookup).parsed);
  }
  CHECK_FALSE(EvaluateDimExpression(std::string(300, '('), lookup).parsed);
}

}  // namespace
}  // namespace hyperplan::test
