// Control flow: If, Loop and Scan are one node each, their bodies summarised by hand-derived
// peak bytes, FLOPs and bytes accessed; captured outer values become node inputs.
#include <catch2/catch.hpp>

#include "model_builder.h"

namespace hyperplan::test {
namespace {

using Dims = std::vector<int64_t>;

std::vector<std::string> InputNames(const Graph& graph, const Node& node) {
  std::vector<std::string> names;
  for (ValueId id : node.inputs) names.push_back(graph.values[id].name);
  return names;
}

// cond ? x [4, 8] @ w [8, 16] : Concat(x, x) along axis 1; both branches give [4, 16] float.
onnx::ModelProto Branches() {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "cond", kBool, {});
  AddInput(graph, "x", kFloat, {4, 8});
  AddInitializer(graph, "w", kFloat, {8, 16});
  onnx::GraphProto then_branch;
  then_branch.set_name("then");
  AddNode(then_branch, "MatMul", {"x", "w"}, {"t"});
  AddOutput(then_branch, "t", kFloat, {4, 16});
  onnx::GraphProto else_branch;
  else_branch.set_name("else");
  SetAttribute(AddNode(else_branch, "Concat", {"x", "x"}, {"e"}), "axis", 1);
  AddOutput(else_branch, "e", kFloat, {4, 16});
  onnx::NodeProto* choose = AddNode(graph, "If", {"cond"}, {"y"}, "choose");
  SetAttribute(choose, "then_branch", then_branch);
  SetAttribute(choose, "else_branch", else_branch);
  AddUntypedOutput(graph, "y");
  return model;
}

TEST_CASE("If: captured values become inputs and the larger branch counts", "[onnx][control]") {
  const Graph graph = Import(Branches());
  const Node& node = NodeNamed(graph, "choose");
  CHECK(InputNames(graph, node) == std::vector<std::string>{"cond", "x", "w"});
  CHECK(ValueNamed(graph, "y").shape == Dims{4, 16});
  // then: MatMul 2 * (4*16) * 8 = 1024 FLOPs; else: Concat, one per output element = 64.
  CHECK(node.subgraph_flops == 1024);
  // then: x 128 + w 512 + t 256 = 896 bytes; else: x 128 twice + e 256 = 512.
  CHECK(node.subgraph_bytes_accessed == 896);
  // Captured x and w are held by the outer graph; each branch adds its 256-byte result.
  CHECK(node.subgraph_peak_bytes == 256);
  CHECK(ValueNamed(graph, "w").consumers == std::vector<NodeId>{graph.FindNode("choose")});
}

// Loop(M, "", x [2, 8]) whose body multiplies the carried value by a captured w [8, 8].
onnx::ModelProto Loop(bool constant_trip_count) {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  if (constant_trip_count) {
    AddInt64Initializer(graph, "M", {}, {5});
  } else {
    AddInput(graph, "M", kInt64, {});
  }
  AddInput(graph, "x", kFloat, {2, 8});
  AddInitializer(graph, "w", kFloat, {8, 8});
  onnx::GraphProto body;
  body.set_name("body");
  AddInput(body, "iteration", kInt64, {});
  AddInput(body, "cond_in", kBool, {});
  AddInput(body, "v_in", kFloat, {2, 8});
  AddNode(body, "MatMul", {"v_in", "w"}, {"v_out"});
  AddNode(body, "Identity", {"cond_in"}, {"cond_out"});
  AddOutput(body, "cond_out", kBool, {});
  AddOutput(body, "v_out", kFloat, {2, 8});
  SetAttribute(AddNode(graph, "Loop", {"M", "", "x"}, {"y"}, "repeat"), "body", body);
  AddUntypedOutput(graph, "y");
  return model;
}

TEST_CASE("Loop: work times a constant trip count, peak once", "[onnx][control]") {
  const Graph graph = Import(Loop(true));
  INFO(JoinedWarnings(graph));
  const Node& node = NodeNamed(graph, "repeat");
  CHECK(InputNames(graph, node) == std::vector<std::string>{"M", "x", "w"});
  CHECK(node.int_attributes.at("trip_count") == 5);
  CHECK(ValueNamed(graph, "y").shape == Dims{2, 8});
  // Per iteration: MatMul 2 * (2*8) * 8 = 256 FLOPs (Identity is a view: 0); x 5.
  CHECK(node.subgraph_flops == 1280);
  // Per iteration: MatMul v_in 64 + w 256 + v_out 64 = 384, Identity 1 + 1 = 2; x 5.
  CHECK(node.subgraph_bytes_accessed == 1930);
  // Body inputs iteration 8 + cond 1 + v_in 64 and result v_out 64 from step 0 (137), plus
  // cond_out 1 at step 1: 138. w is captured, so counted by the outer graph.
  CHECK(node.subgraph_peak_bytes == 138);
  CHECK_FALSE(HasWarningContaining(graph, "trip count"));
}

TEST_CASE("Loop: an unknown trip count counts one iteration and warns", "[onnx][control]") {
  const Graph graph = Import(Loop(false));
  const Node& node = NodeNamed(graph, "repeat");
  CHECK(node.int_attributes.count("trip_count") == 0);
  CHECK(node.subgraph_flops == 256);
  CHECK(node.subgraph_bytes_accessed == 386);
  CHECK(HasWarningContaining(graph,
                             "node 'repeat' (Loop): trip count unknown; its body is counted once"));
}

TEST_CASE("Scan: the scanned axis length is the trip count", "[onnx][control]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "s0", kFloat, {4});
  AddInput(graph, "xs", kFloat, {6, 4});
  onnx::GraphProto body;
  body.set_name("step");
  AddInput(body, "s_in", kFloat, {4});
  AddInput(body, "x_t", kFloat, {4});
  AddNode(body, "Add", {"s_in", "x_t"}, {"s_out"});
  AddNode(body, "Identity", {"s_out"}, {"y_t"});
  AddOutput(body, "s_out", kFloat, {4});
  AddOutput(body, "y_t", kFloat, {4});
  onnx::NodeProto* scan = AddNode(graph, "Scan", {"s0", "xs"}, {"s_final", "ys"}, "scan");
  SetAttribute(scan, "body", body);
  SetAttribute(scan, "num_scan_inputs", 1);
  AddUntypedOutput(graph, "s_final");
  AddUntypedOutput(graph, "ys");
  const Graph imported = Import(model);
  const Node& node = NodeNamed(imported, "scan");
  CHECK(node.int_attributes.at("trip_count") == 6);
  CHECK(node.int_attributes.at("num_scan_inputs") == 1);
  CHECK(ValueNamed(imported, "ys").shape == Dims{6, 4});
  // Per step: Add 4 FLOPs; x 6 = 24. Bytes: Add 16 * 3 + Identity 16 * 2 = 80; x 6 = 480.
  CHECK(node.subgraph_flops == 24);
  CHECK(node.subgraph_bytes_accessed == 480);
  // s_in, x_t and s_out (16 each) at step 0, y_t joins at step 1: 64.
  CHECK(node.subgraph_peak_bytes == 64);
}

TEST_CASE("values captured two levels down are inputs at every level", "[onnx][control]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInt64Initializer(graph, "M", {}, {3});
  AddInput(graph, "x", kFloat, {8});
  AddInitializer(graph, "bias", kFloat, {8});
  onnx::GraphProto then_branch;
  then_branch.set_name("then");
  AddNode(then_branch, "Add", {"v_in", "bias"}, {"t"});
  AddOutput(then_branch, "t", kFloat, {8});
  onnx::GraphProto else_branch;
  else_branch.set_name("else");
  AddNode(else_branch, "Neg", {"v_in"}, {"e"});
  AddOutput(else_branch, "e", kFloat, {8});
  onnx::GraphProto body;
  body.set_name("body");
  AddInput(body, "iteration", kInt64, {});
  AddInput(body, "cond_in", kBool, {});
  AddInput(body, "v_in", kFloat, {8});
  onnx::NodeProto* choose = AddNode(body, "If", {"cond_in"}, {"v_out"}, "choose");
  SetAttribute(choose, "then_branch", then_branch);
  SetAttribute(choose, "else_branch", else_branch);
  AddOutput(body, "cond_in", kBool, {});  // a body may return its own input
  AddOutput(body, "v_out", kFloat, {8});
  SetAttribute(AddNode(graph, "Loop", {"M", "", "x"}, {"y"}, "repeat"), "body", body);
  AddUntypedOutput(graph, "y");
  const Graph imported = Import(model);
  INFO(JoinedWarnings(imported));
  const Node& node = NodeNamed(imported, "repeat");
  CHECK(InputNames(imported, node) == std::vector<std::string>{"M", "x", "bias"});
  // Add and Neg both do 8 FLOPs per iteration; 3 iterations.
  CHECK(node.subgraph_flops == 24);
  CHECK(ValueNamed(imported, "y").shape == Dims{8});
}

}  // namespace
}  // namespace hyperplan::test
