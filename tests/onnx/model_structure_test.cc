// Model structure limits (issue 13): recursive and undefined model-local functions, and the
// documented limits on function call depth and control-flow body nesting. Before, a function
// calling itself or a function the model never defined was planned as an opaque node.
#include "onnx/model_structure.h"

#include <catch2/catch.hpp>

#include "hyperplan/error.h"
#include "model_builder.h"

namespace hyperplan::test {
namespace {

// custom.<name>(a) -> b whose body is one node of `body_op` (domain `body_domain`).
void AddFunction(onnx::ModelProto& model, const std::string& name, const std::string& body_op,
                 const std::string& body_domain) {
  onnx::FunctionProto* function = model.add_functions();
  function->set_name(name);
  function->set_domain("custom");
  function->add_input("a");
  function->add_output("b");
  for (const auto& [domain, version] : {std::pair<std::string, int>{"", 17}, {"custom", 1}}) {
    onnx::OperatorSetIdProto* import = function->add_opset_import();
    import->set_domain(domain);
    import->set_version(version);
  }
  onnx::NodeProto* node = function->add_node();
  node->set_op_type(body_op);
  node->set_domain(body_domain);
  node->add_input("a");
  node->add_output("b");
}

// x [3, 7] -> custom.<entry> -> y, with the functions the caller adds.
onnx::ModelProto CallingModel(const std::string& entry) {
  onnx::ModelProto model = MakeModel();
  AddOpset(model, "custom", 1);
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {3, 7});
  AddNode(graph, entry, {"x"}, {"y"}, "call", "custom");
  AddUntypedOutput(graph, "y");
  return model;
}

std::string ImportErrorText(const onnx::ModelProto& model, const std::string& file_name,
                            std::string* path = nullptr) {
  const std::string written = WriteModel(model, file_name);
  if (path != nullptr) *path = written;
  try {
    ImportOnnxModel(written, {});
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kModel);
    return error.what();
  }
  FAIL("import succeeded");
  return "";
}

TEST_CASE("a function that calls itself is an error naming it", "[onnx][functions]") {
  onnx::ModelProto model = CallingModel("F");
  AddFunction(model, "F", "F", "custom");
  std::string path;
  const std::string text = ImportErrorText(model, "self_call.onnx", &path);
  CHECK(text == path +
                    ": model-local function 'custom.F' calls itself; recursion has no finite "
                    "expansion");
}

TEST_CASE("functions calling each other in a cycle are an error naming the cycle",
          "[onnx][functions]") {
  // F -> G -> H -> G: the cycle is G -> H -> G; F only leads into it.
  onnx::ModelProto model = CallingModel("F");
  AddFunction(model, "F", "G", "custom");
  AddFunction(model, "G", "H", "custom");
  AddFunction(model, "H", "G", "custom");
  std::string path;
  const std::string text = ImportErrorText(model, "cycle.onnx", &path);
  CHECK(text == path +
                    ": model-local functions call each other in a cycle: custom.G -> custom.H "
                    "-> custom.G; recursion has no finite expansion");
}

TEST_CASE("a call to a function the model does not define is an error", "[onnx][functions]") {
  onnx::ModelProto model = CallingModel("Dobule");  // the model defines Double
  AddFunction(model, "Double", "Relu", "");
  std::string path;
  const std::string text = ImportErrorText(model, "undefined.onnx", &path);
  CHECK(text ==
        path +
            ": node 'call' (custom.Dobule) calls function 'custom.Dobule', which the model does "
            "not define (its functions in domain 'custom': custom.Double)");

  // The same inside a function's body.
  onnx::ModelProto nested = CallingModel("Outer");
  AddFunction(nested, "Outer", "Missing", "custom");
  CHECK_THAT(
      ImportErrorText(nested, "undefined_nested.onnx"),
      Catch::Contains("function 'custom.Outer': node 'Missing_0' (custom.Missing) calls function "
                      "'custom.Missing', which the model does not define"));
}

TEST_CASE("operators with a schema stay operators in a domain that has functions",
          "[onnx][functions]") {
  // com.microsoft has both a model-local function and real contrib operators.
  onnx::ModelProto model = MakeModel();
  AddOpset(model, "com.microsoft", 1);
  onnx::FunctionProto* function = model.add_functions();
  function->set_name("Twice");
  function->set_domain("com.microsoft");
  function->add_input("a");
  function->add_output("b");
  onnx::OperatorSetIdProto* import = function->add_opset_import();
  import->set_domain("");
  import->set_version(17);
  onnx::NodeProto* add = function->add_node();
  add->set_op_type("Add");
  add->add_input("a");
  add->add_input("a");
  add->add_output("b");
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {2, 4});
  AddNode(graph, "Twice", {"x"}, {"y"}, "twice", "com.microsoft");
  AddNode(graph, "FastGelu", {"y"}, {"z"}, "gelu", "com.microsoft");
  AddUntypedOutput(graph, "z");
  const Graph imported = Import(model);
  // Add keeps [2, 4]; FastGelu is elementwise.
  CHECK(ValueNamed(imported, "z").shape == std::vector<int64_t>{2, 4});
}

// F0 -> F1 -> ... -> F<count - 1> -> Relu: a chain of `count` function calls.
onnx::ModelProto CallChain(int count) {
  onnx::ModelProto model = CallingModel("F0");
  for (int i = 0; i < count; ++i) {
    const bool last = i + 1 == count;
    AddFunction(model, "F" + std::to_string(i), last ? "Relu" : "F" + std::to_string(i + 1),
                last ? "" : "custom");
  }
  return model;
}

TEST_CASE("function calls nest at most 64 deep", "[onnx][functions]") {
  REQUIRE(onnx_import::kMaxFunctionCallDepth == 64);
  // 64 nested calls import, and ONNX's inference follows them all: Relu keeps [3, 7].
  const Graph imported = Import(CallChain(64), {}, "chain64.onnx");
  CHECK(ValueNamed(imported, "y").shape == std::vector<int64_t>{3, 7});
  std::string path;
  const std::string text = ImportErrorText(CallChain(65), "chain65.onnx", &path);
  CHECK(text ==
        path +
            ": model-local function calls nest 65 deep (custom.F0 -> custom.F1 -> custom.F2 -> "
            "custom.F3 -> custom.F4 -> custom.F5 -> ...), over hyperplan's limit of 64");
}

// `levels` If nodes, each inside the then-branch of the one before; the innermost branches
// are an Identity of x. Every level outputs x's [2] float.
onnx::ModelProto NestedIfs(int levels) {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "cond", kBool, {});
  AddInput(graph, "x", kFloat, {2});
  onnx::GraphProto inner;
  AddNode(inner, "Identity", {"x"}, {"leaf"});
  AddOutput(inner, "leaf", kFloat, {2});
  for (int level = levels; level >= 1; --level) {
    onnx::GraphProto outer;
    const std::string out = "level" + std::to_string(level);
    onnx::NodeProto* branch = AddNode(outer, "If", {"cond"}, {out}, "if" + std::to_string(level));
    SetAttribute(branch, "then_branch", inner);
    onnx::GraphProto otherwise;
    AddNode(otherwise, "Identity", {"x"}, {"other" + std::to_string(level)});
    AddOutput(otherwise, "other" + std::to_string(level), kFloat, {2});
    SetAttribute(branch, "else_branch", otherwise);
    AddOutput(outer, out, kFloat, {2});
    inner = outer;
  }
  // `inner` is now a graph holding if1; its nodes go into the model's graph.
  for (const onnx::NodeProto& node : inner.node()) *graph.add_node() = node;
  AddUntypedOutput(graph, "level1");
  return model;
}

TEST_CASE("control-flow bodies nest at most 64 deep", "[onnx][limits]") {
  REQUIRE(onnx_import::kMaxBodyNesting == 64);
  // 64 levels of If: the innermost Identity sits in the 64th body.
  const Graph imported = Import(NestedIfs(64), {}, "nested64.onnx");
  CHECK(ValueNamed(imported, "level1").shape == std::vector<int64_t>{2});
  // 65 levels: the 65th If's bodies are one too many; the message names the path down.
  std::string path;
  const std::string text = ImportErrorText(NestedIfs(65), "nested65.onnx", &path);
  CHECK_THAT(text, Catch::StartsWith(path + ": node 'if1' (If) body 'then_branch': node 'if2'"));
  CHECK_THAT(text, Catch::EndsWith("node 'if65' (If) body 'then_branch': control-flow bodies "
                                   "nest more than 64 deep (hyperplan's limit)"));
}

}  // namespace
}  // namespace hyperplan::test
