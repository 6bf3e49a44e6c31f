// Graph validation and normalisation: order, names, attributes, classes, initializers as inputs.
#include <catch2/catch.hpp>

#include "model_builder.h"

namespace hyperplan::test {
namespace {

TEST_CASE("nodes out of order are sorted stably with a warning", "[onnx][validation]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {2});
  // Model order: c (needs b), a (needs x), b (needs a), d (needs x).
  AddNode(graph, "Relu", {"b_out"}, {"c_out"}, "c");
  AddNode(graph, "Relu", {"x"}, {"a_out"}, "a");
  AddNode(graph, "Relu", {"a_out"}, {"b_out"}, "b");
  AddNode(graph, "Relu", {"x"}, {"d_out"}, "d");
  AddUntypedOutput(graph, "c_out");
  AddUntypedOutput(graph, "d_out");
  const Graph imported = Import(model);
  std::vector<std::string> order;
  for (const Node& node : imported.nodes) order.push_back(node.name);
  // Kahn's algorithm, lowest original index first: a (1) and d (3) are ready; a, then b (2),
  // then c (0) becomes ready and precedes d (3).
  CHECK(order == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(HasWarningContaining(imported,
                             "nodes are not in topological order (node 'c' (Relu) comes before a "
                             "producer of its inputs); sorted them"));
  for (size_t i = 0; i < imported.nodes.size(); ++i) {
    for (ValueId input : imported.nodes[i].inputs) {
      CHECK(imported.values[input].producer < static_cast<NodeId>(i));
    }
  }
}

TEST_CASE("unnamed nodes get OpType_<index>, duplicates a suffix", "[onnx][validation]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {2});
  AddNode(graph, "Relu", {"x"}, {"a"});
  AddNode(graph, "Relu", {"a"}, {"b"}, "Relu_0");  // takes the name node 0 would get
  AddNode(graph, "Sigmoid", {"b"}, {"c"}, "same");
  AddNode(graph, "Sigmoid", {"c"}, {"d"}, "same");
  AddUntypedOutput(graph, "d");
  const Graph imported = Import(model);
  std::vector<std::string> names;
  for (const Node& node : imported.nodes) names.push_back(node.name);
  CHECK(names == std::vector<std::string>{"Relu_0_1", "Relu_0", "same", "same_3"});
  CHECK(HasWarningContaining(imported, "node name 'same' is used more than once"));
}

TEST_CASE("int attributes the cost model reads are present, defaults filled",
          "[onnx][validation]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "a", kFloat, {4, 8});
  AddInitializer(graph, "b", kFloat, {16, 8});
  AddInput(graph, "image", kFloat, {1, 4, 8, 8});
  AddInitializer(graph, "kernel", kFloat, {4, 1, 3, 3});
  SetAttribute(AddNode(graph, "Gemm", {"a", "b"}, {"y"}, "gemm"), "transB", 1);
  onnx::NodeProto* conv = AddNode(graph, "Conv", {"image", "kernel"}, {"z"}, "conv");
  SetAttribute(conv, "group", 4);
  SetAttribute(conv, "kernel_shape", std::vector<int64_t>{3, 3});
  AddNode(graph, "Conv", {"image", "kernel"}, {"z2"}, "conv_default");
  AddUntypedOutput(graph, "y");
  AddUntypedOutput(graph, "z");
  AddUntypedOutput(graph, "z2");
  const Graph imported = Import(model);
  const Node& gemm = NodeNamed(imported, "gemm");
  CHECK(gemm.int_attributes.at("transA") == 0);
  CHECK(gemm.int_attributes.at("transB") == 1);
  CHECK(ValueNamed(imported, "y").shape == std::vector<int64_t>{4, 16});
  CHECK(NodeNamed(imported, "conv").int_attributes.at("group") == 4);
  CHECK(NodeNamed(imported, "conv").int_attributes.count("kernel_shape") == 0);  // ints: not ours
  CHECK(NodeNamed(imported, "conv_default").int_attributes.at("group") == 1);
}

TEST_CASE("values are classified, inputs and outputs listed in model order", "[onnx][validation]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "input_ids", kInt64, {1, 4});
  AddInput(graph, "past_key_values.0.key", kFloat16, {1, 2, 3, 8});
  AddInitializer(graph, "embed", kFloat16, {16, 8});
  AddNode(graph, "Gather", {"embed", "input_ids"}, {"hidden"});
  SetAttribute(AddNode(graph, "Concat", {"past_key_values.0.key", "past_key_values.0.key"},
                       {"present.0.key"}),
               "axis", 2);
  AddUntypedOutput(graph, "present.0.key");
  AddUntypedOutput(graph, "hidden");
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "embed").value_class == ValueClass::kWeight);
  CHECK(ValueNamed(imported, "input_ids").value_class == ValueClass::kGraphInput);
  CHECK(ValueNamed(imported, "past_key_values.0.key").value_class == ValueClass::kKvCache);
  CHECK(ValueNamed(imported, "present.0.key").value_class == ValueClass::kKvCache);
  CHECK(ValueNamed(imported, "hidden").value_class == ValueClass::kGraphOutput);
  REQUIRE(imported.inputs.size() == 2);
  CHECK(imported.values[imported.inputs[0]].name == "input_ids");
  REQUIRE(imported.outputs.size() == 2);
  CHECK(imported.values[imported.outputs[1]].name == "hidden");
  CHECK(ValueNamed(imported, "hidden").shape == std::vector<int64_t>{1, 4, 8});
  CHECK(ValueNamed(imported, "present.0.key").shape == std::vector<int64_t>{1, 2, 6, 8});
}

TEST_CASE("an initializer listed among the inputs (IR < 4) is a weight, not an input",
          "[onnx][validation]") {
  onnx::ModelProto model = MakeModel();
  model.set_ir_version(3);
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {2, 3});
  AddInput(graph, "w", kFloat, {3, 3});
  AddInitializer(graph, "w", kFloat, {3, 3});
  AddNode(graph, "MatMul", {"x", "w"}, {"y"});
  AddUntypedOutput(graph, "y");
  const Graph imported = Import(model);
  REQUIRE(imported.inputs.size() == 1);
  CHECK(imported.values[imported.inputs[0]].name == "x");
  const Value& w = ValueNamed(imported, "w");
  CHECK(w.is_initializer);
  CHECK_FALSE(w.is_graph_input);
  CHECK(w.bytes == 36);
}

TEST_CASE("a declared shape that disagrees with inference is warned about", "[onnx][validation]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {2, 3});
  AddNode(graph, "Relu", {"x"}, {"y"});
  AddNode(graph, "Relu", {"y"}, {"z"});
  AddValueInfo(graph, "y", kFloat, {2, 3, "extra"});  // stale: Relu keeps [2, 3]
  AddUntypedOutput(graph, "z");
  const Graph imported = Import(model);
  CHECK(ValueNamed(imported, "y").shape == std::vector<int64_t>{2, 3});
  CHECK(ValueNamed(imported, "z").shape == std::vector<int64_t>{2, 3});
  CHECK(HasWarningContaining(imported,
                             "value 'y': declared float [2,3,extra], inferred float [2,3]; using "
                             "the inferred type"));
}

TEST_CASE("Reshape shapes computed from Shape ops are found by data propagation",
          "[onnx][validation]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {"batch", 6, 4});
  AddInt64Initializer(graph, "zero", {1}, {0});
  AddInt64Initializer(graph, "minus_one", {1}, {-1});
  AddNode(graph, "Shape", {"x"}, {"shape"});
  SetAttribute(AddNode(graph, "Gather", {"shape", "zero"}, {"batch_dim"}), "axis", 0);
  SetAttribute(AddNode(graph, "Concat", {"batch_dim", "minus_one"}, {"target"}), "axis", 0);
  AddNode(graph, "Reshape", {"x", "target"}, {"flat"});
  AddUntypedOutput(graph, "flat");
  ImportOptions options;
  options.dims = {{"batch", 3}};
  const Graph imported = Import(model, options);
  CHECK(ValueNamed(imported, "flat").shape == std::vector<int64_t>{3, 24});
  CHECK(ValueNamed(imported, "target").shape == std::vector<int64_t>{2});
}

TEST_CASE("a node calling a model-local function is inferred through its body",
          "[onnx][validation]") {
  onnx::ModelProto model = MakeModel();
  AddOpset(model, "custom", 1);
  onnx::FunctionProto* function = model.add_functions();
  function->set_name("Double");
  function->set_domain("custom");
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
  AddInput(graph, "x", kFloat, {3, 7});
  AddNode(graph, "Double", {"x"}, {"y"}, "twice", "custom");
  AddUntypedOutput(graph, "y");
  const Graph imported = Import(model);
  INFO(JoinedWarnings(imported));
  CHECK(ValueNamed(imported, "y").shape == std::vector<int64_t>{3, 7});
  CHECK(NodeNamed(imported, "twice").domain == "custom");
  CHECK(imported.warnings.empty());
}

}  // namespace
}  // namespace hyperplan::test
