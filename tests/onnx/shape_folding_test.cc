// Shape arithmetic folded at import (data_rules.h, issue 32): contents computed through the
// operators ONNX 1.12 does not propagate (or propagates only in 1-D), and computed contents
// read as constants by the shape rules that only take constants (Pad's pads, Slice's ends,
// ConstantOfShape's shape, Range's bounds).
//
// Each test reveals contents as a shape: ConstantOfShape(contents) has shape `contents`, so the
// expected shapes below are the contents, worked out by hand in the comments.
#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>

#include "hyperplan/error.h"
#include "model_builder.h"

namespace hyperplan::test {
namespace {

using Int64s = std::vector<int64_t>;

// `values` as a shape: ConstantOfShape of them, output `name`.
void Reveal(onnx::GraphProto& graph, const std::string& values, const std::string& name) {
  AddNode(graph, "ConstantOfShape", {values}, {name});
  AddUntypedOutput(graph, name);
}

// Scalar `name` = x.shape[axis], as torch traces a size.
void SizeOf(onnx::GraphProto& graph, const std::string& x, int64_t axis, const std::string& name) {
  AddInt64Initializer(graph, name + "_axis", {}, {axis});
  AddNode(graph, "Shape", {x}, {name + "_shape"});
  AddNode(graph, "Gather", {name + "_shape", name + "_axis"}, {name});
}

// Concat of scalars, each unsqueezed, into a 1-D tensor `name`.
void Stack(onnx::GraphProto& graph, const std::vector<std::string>& scalars,
           const std::string& name) {
  AddInt64Initializer(graph, name + "_axes", {1}, {0});
  std::vector<std::string> pieces;
  for (const std::string& scalar : scalars) {
    pieces.push_back(name + "_" + std::to_string(pieces.size()));
    AddNode(graph, "Unsqueeze", {scalar, name + "_axes"}, {pieces.back()});
  }
  SetAttribute(AddNode(graph, "Concat", pieces, {name}), "axis", 0);
}

TEST_CASE("Mod and Div of traced sizes fold as integer operators", "[onnx][folding]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {1, 7, 5, 3});
  SizeOf(graph, "x", 1, "h");  // 7
  SizeOf(graph, "x", 2, "w");  // 5
  AddInt64Initializer(graph, "three", {}, {3});
  AddInt64Initializer(graph, "two", {}, {2});
  AddInt64Initializer(graph, "minus_seven", {}, {-7});
  AddInt64Initializer(graph, "five", {}, {5});
  // pad_b = (3 - 7 % 3) % 3 = (3 - 1) % 3 = 2; pad_r = (3 - 5 % 3) % 3 = (3 - 2) % 3 = 1.
  AddNode(graph, "Mod", {"h", "three"}, {"h_rest"});
  AddNode(graph, "Sub", {"three", "h_rest"}, {"h_gap"});
  AddNode(graph, "Mod", {"h_gap", "three"}, {"pad_b"});
  AddNode(graph, "Mod", {"w", "three"}, {"w_rest"});
  AddNode(graph, "Sub", {"three", "w_rest"}, {"w_gap"});
  AddNode(graph, "Mod", {"w_gap", "three"}, {"pad_r"});
  // 7 / 2 truncates to 3; -7 / 2 truncates to -3, + 5 = 2.
  AddNode(graph, "Div", {"h", "two"}, {"half"});
  AddNode(graph, "Div", {"minus_seven", "two"}, {"negative_half"});
  AddNode(graph, "Add", {"negative_half", "five"}, {"negative_half_up"});
  // -7 mod 3 takes the divisor's sign: 2; with fmod 1 the dividend's: -1, + 5 = 4.
  AddNode(graph, "Mod", {"minus_seven", "three"}, {"python_mod"});
  SetAttribute(AddNode(graph, "Mod", {"minus_seven", "three"}, {"c_fmod"}), "fmod", 1);
  AddNode(graph, "Add", {"c_fmod", "five"}, {"c_fmod_up"});
  Stack(graph, {"pad_b", "pad_r", "half", "negative_half_up", "python_mod", "c_fmod_up"}, "values");
  Reveal(graph, "values", "revealed");
  const Graph imported = Import(model, {}, "mod_div.onnx");
  INFO(JoinedWarnings(imported));
  CHECK(ValueNamed(imported, "revealed").shape == Int64s{2, 1, 3, 2, 2, 4});
}

// torch's _prepare_onnx_paddings for F.pad(x, (0, 0, 0, pad_r, 0, pad_b)) on x [1, 7, 5, 8]:
// list [0, 0, 0, pad_r, 0, pad_b] = [0, 0, 0, 1, 0, 2] (pad_r = 1, pad_b = 2 from the sizes);
// extension = 4 * 2 - 6 = 2 zeros; [0, 0, 0, 1, 0, 2, 0, 0] as [4, 2] rows
// [[0, 0], [0, 1], [0, 2], [0, 0]]; flipped (Slice step -1 on axis 0) [[0, 0], [0, 2], [0, 1],
// [0, 0]]; transposed [[0, 0, 0, 0], [0, 2, 1, 0]]; flattened pads [0, 0, 0, 0, 0, 2, 1, 0]:
// H 7 + 2 = 9, W 5 + 1 = 6.
TEST_CASE("torch's F.pad pads fold through ConstantOfShape, Reshape, Slice and Transpose",
          "[onnx][folding]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {1, 7, 5, 8});
  SizeOf(graph, "x", 1, "h");
  SizeOf(graph, "x", 2, "w");
  AddInt64Initializer(graph, "zero", {}, {0});
  AddInt64Initializer(graph, "one", {}, {1});
  AddInt64Initializer(graph, "two", {}, {2});
  AddNode(graph, "Sub", {"h", "w"}, {"pad_b"});    // 7 - 5 = 2
  AddNode(graph, "Sub", {"w", "h"}, {"minus_2"});  // -2
  AddNode(graph, "Add", {"minus_2", "two"}, {"nought"});
  AddNode(graph, "Sub", {"one", "nought"}, {"pad_r"});  // 1 - 0 = 1
  Stack(graph, {"zero", "zero", "zero", "pad_r", "zero", "pad_b"}, "list");
  AddInt64Initializer(graph, "first", {1}, {0});
  AddNode(graph, "Shape", {"list"}, {"list_shape"});
  AddNode(graph, "Gather", {"list_shape", "first"}, {"length"});  // [6]
  AddInt64Initializer(graph, "eight", {}, {8});
  AddNode(graph, "Sub", {"eight", "length"}, {"extension"});  // [2]
  onnx::TensorProto zero_value;
  zero_value.set_data_type(onnx::TensorProto::INT64);
  zero_value.add_dims(1);
  zero_value.add_int64_data(0);
  SetAttribute(AddNode(graph, "ConstantOfShape", {"extension"}, {"zeros"}), "value", zero_value);
  SetAttribute(AddNode(graph, "Concat", {"list", "zeros"}, {"all"}), "axis", 0);
  AddInt64Initializer(graph, "pairs_shape", {2}, {-1, 2});
  AddNode(graph, "Reshape", {"all", "pairs_shape"}, {"pairs"});
  AddInt64Initializer(graph, "starts", {1}, {-1});
  AddInt64Initializer(graph, "ends", {1}, {-std::numeric_limits<int64_t>::max()});
  AddInt64Initializer(graph, "axes", {1}, {0});
  AddInt64Initializer(graph, "steps", {1}, {-1});
  AddNode(graph, "Slice", {"pairs", "starts", "ends", "axes", "steps"}, {"flipped"});
  SetAttribute(AddNode(graph, "Transpose", {"flipped"}, {"rows"}), "perm", Int64s{1, 0});
  AddInt64Initializer(graph, "flat_shape", {1}, {-1});
  AddNode(graph, "Reshape", {"rows", "flat_shape"}, {"flat"});
  SetAttribute(AddNode(graph, "Cast", {"flat"}, {"pads"}), "to", int64_t{kInt64});
  AddNode(graph, "Pad", {"x", "pads"}, {"padded"});
  AddUntypedOutput(graph, "padded");
  const Graph imported = Import(model, {}, "torch_pads.onnx");
  INFO(JoinedWarnings(imported));
  CHECK(ValueNamed(imported, "flipped").shape == Int64s{4, 2});
  CHECK(ValueNamed(imported, "padded").shape == Int64s{1, 9, 6, 8});
  CHECK(ValueNamed(imported, "padded").bytes == 1 * 9 * 6 * 8 * 4);  // float32
}

// torch's expand(x, [2, -1, 4]): size = Where(Equal(size, -1 * ones), ones, size) with
// ones = ConstantOfShape(Shape(size), 1) = [1, 1, 1]: Equal gives [0, 1, 0], Where [2, 1, 4];
// Expand of x [1, 3, 1] to [2, 1, 4] broadcasts to [2, 3, 4].
TEST_CASE("Equal, Where and Expand fold as torch's expand writes them", "[onnx][folding]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {1, 3, 1});
  AddInt64Initializer(graph, "size", {3}, {2, -1, 4});
  AddInt64Initializer(graph, "minus_one", {}, {-1});
  onnx::TensorProto one_value;
  one_value.set_data_type(onnx::TensorProto::INT64);
  one_value.add_dims(1);
  one_value.add_int64_data(1);
  AddNode(graph, "Shape", {"size"}, {"size_shape"});
  SetAttribute(AddNode(graph, "ConstantOfShape", {"size_shape"}, {"ones"}), "value", one_value);
  AddNode(graph, "Mul", {"ones", "minus_one"}, {"minus_ones"});
  AddNode(graph, "Equal", {"size", "minus_ones"}, {"is_minus_one"});
  AddNode(graph, "Where", {"is_minus_one", "ones", "size"}, {"target"});
  AddNode(graph, "Expand", {"x", "target"}, {"expanded"});
  AddUntypedOutput(graph, "expanded");
  const Graph imported = Import(model, {}, "torch_expand.onnx");
  INFO(JoinedWarnings(imported));
  CHECK(ValueNamed(imported, "expanded").shape == Int64s{2, 3, 4});
}

TEST_CASE("Max, Min, comparisons, Not, Cast to bool and Expand of contents fold",
          "[onnx][folding]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {6, 3});
  SizeOf(graph, "x", 0, "rows");     // 6
  SizeOf(graph, "x", 1, "columns");  // 3
  AddInt64Initializer(graph, "four", {}, {4});
  AddNode(graph, "Max", {"rows", "columns", "four"}, {"largest"});   // max(6, 3, 4) = 6
  AddNode(graph, "Min", {"rows", "columns", "four"}, {"smallest"});  // min(6, 3, 4) = 3
  // (6 > 3) = 1; (6 <= 3) = 0, Not: 1; Cast(3 - 3 = 0 to bool) = 0, Or with (3 >= 3) = 1.
  AddNode(graph, "Greater", {"rows", "columns"}, {"wider"});
  AddNode(graph, "LessOrEqual", {"rows", "columns"}, {"not_wider"});
  AddNode(graph, "Not", {"not_wider"}, {"wider_again"});
  AddNode(graph, "Sub", {"columns", "columns"}, {"nought"});
  SetAttribute(AddNode(graph, "Cast", {"nought"}, {"false"}), "to", int64_t{kBool});
  AddNode(graph, "GreaterOrEqual", {"columns", "columns"}, {"true"});
  AddNode(graph, "Or", {"false", "true"}, {"either"});
  std::vector<std::string> as_int;
  for (const std::string flag : {"wider", "wider_again", "either"}) {
    as_int.push_back(flag + "_int");
    SetAttribute(AddNode(graph, "Cast", {flag}, {as_int.back()}), "to", int64_t{kInt64});
  }
  Stack(graph, {"largest", "smallest", as_int[0], as_int[1], as_int[2]}, "values");
  Reveal(graph, "values", "revealed");
  // Expand([3], [2]) = [3, 3].
  AddInt64Initializer(graph, "pair", {1}, {2});
  Stack(graph, {"smallest"}, "smallest_1d");
  AddNode(graph, "Expand", {"smallest_1d", "pair"}, {"repeated"});
  Reveal(graph, "repeated", "revealed_repeated");
  const Graph imported = Import(model, {}, "max_min.onnx");
  INFO(JoinedWarnings(imported));
  CHECK(ValueNamed(imported, "revealed").shape == Int64s{6, 3, 1, 1, 1});
  CHECK(ValueNamed(imported, "revealed_repeated").shape == Int64s{3, 3});
}

TEST_CASE("computed contents size Slice ends, Range and Unsqueeze axes", "[onnx][folding]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {1, 9, 9, 8});
  AddInput(graph, "y", kFloat, {1, 7, 5, 8});
  SizeOf(graph, "y", 1, "h");        // 7
  SizeOf(graph, "y", 2, "w");        // 5
  Stack(graph, {"h", "w"}, "ends");  // [7, 5]
  AddInt64Initializer(graph, "starts", {2}, {0, 0});
  AddInt64Initializer(graph, "axes", {2}, {1, 2});
  AddNode(graph, "Slice", {"x", "starts", "ends", "axes"}, {"unpadded"});  // [1, 7, 5, 8]
  AddInt64Initializer(graph, "zero", {}, {0});
  AddInt64Initializer(graph, "one", {}, {1});
  AddNode(graph, "Range", {"zero", "h", "one"}, {"rows"});  // [0 .. 6]: 7 elements
  AddUntypedOutput(graph, "unpadded");
  AddUntypedOutput(graph, "rows");
  // Unsqueeze axes computed as Sub(w, 2) = 3: [1, 7, 5, 8] -> [1, 7, 5, 1, 8].
  AddInt64Initializer(graph, "two", {1}, {2});
  AddNode(graph, "Unsqueeze", {"w", "zero"}, {"w_1d"});
  AddNode(graph, "Sub", {"w_1d", "two"}, {"axis"});
  AddNode(graph, "Unsqueeze", {"y", "axis"}, {"widened"});
  AddUntypedOutput(graph, "widened");
  const Graph imported = Import(model, {}, "computed_inputs.onnx");
  INFO(JoinedWarnings(imported));
  CHECK(ValueNamed(imported, "unpadded").shape == Int64s{1, 7, 5, 8});
  CHECK(ValueNamed(imported, "rows").shape == Int64s{7});
  CHECK(ValueNamed(imported, "widened").shape == Int64s{1, 7, 5, 1, 8});
}

TEST_CASE("a Slice with a negative step carries a symbol where it moves", "[onnx][folding]") {
  // Shape(x) = [batch, 4]; reversed (step -1) [4, batch]: element 0 is 4, element 1 the
  // symbol. Gather 0 reveals [4] (known); Reshape(x, reversed) is [4, batch], so it still
  // waits for batch (unbound, not merely unknown: the symbol moved with its element).
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {"batch", 4});
  AddNode(graph, "Shape", {"x"}, {"shape"});
  AddInt64Initializer(graph, "starts", {1}, {-1});
  AddInt64Initializer(graph, "ends", {1}, {-std::numeric_limits<int64_t>::max()});
  AddInt64Initializer(graph, "axes", {1}, {0});
  AddInt64Initializer(graph, "steps", {1}, {-1});
  AddNode(graph, "Slice", {"shape", "starts", "ends", "axes", "steps"}, {"reversed"});
  AddInt64Initializer(graph, "first", {1}, {0});
  AddNode(graph, "Gather", {"reversed", "first"}, {"leading"});
  Reveal(graph, "leading", "revealed_leading");
  AddNode(graph, "Reshape", {"x", "reversed"}, {"swapped"});
  AddUntypedOutput(graph, "swapped");
  ImportOptions options;
  options.allow_unbound_dims = true;
  const Graph imported = Import(model, options, "reversed_symbol.onnx");
  INFO(JoinedWarnings(imported));
  CHECK(ValueNamed(imported, "revealed_leading").shape == Int64s{4});
  CHECK_FALSE(ValueNamed(imported, "swapped").size_known);
  REQUIRE(imported.unbound_dims.size() == 1);
  CHECK(imported.unbound_dims[0].name == "batch");
  const std::vector<std::string>& waiting = imported.unbound_dims[0].values;
  CHECK(std::find(waiting.begin(), waiting.end(), "swapped") != waiting.end());
}

}  // namespace
}  // namespace hyperplan::test
