// Bad inputs: each fails with one precise line, of the right kind, naming the file first.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "hyperplan/error.h"
#include "model_builder.h"

namespace hyperplan::test {
namespace {

// The error an import of `path` fails with; fails the test when it succeeds or throws
// anything but hyperplan::Error.
Error ImportError(const std::string& path, const ImportOptions& options = {}) {
  try {
    ImportOnnxModel(path, options);
  } catch (const Error& error) {
    return error;
  }
  FAIL("import of " << path << " succeeded");
  return Error(ErrorKind::kInternal, "unreachable");
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

onnx::ModelProto ReluChain() {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {2, 3});
  AddNode(graph, "Relu", {"x"}, {"y"}, "first");
  AddNode(graph, "Relu", {"y"}, {"z"}, "second");
  AddOutput(graph, "z", kFloat, {2, 3});
  return model;
}

TEST_CASE("a missing file is an input-file error with the system's reason", "[onnx][errors]") {
  const std::string path = TestPath("does-not-exist.onnx");
  const Error error = ImportError(path);
  CHECK(error.kind() == ErrorKind::kInputFile);
  CHECK(std::string(error.what()) == path + ": cannot open: No such file or directory");
}

TEST_CASE("a directory is not readable as a model", "[onnx][errors]") {
  const std::string path = TestPath("");
  const Error error = ImportError(path);
  CHECK(error.kind() == ErrorKind::kInputFile);
  CHECK(std::string(error.what()) == path + ": cannot read: Is a directory");
}

TEST_CASE("a file that is not a protobuf is not an ONNX model", "[onnx][errors]") {
  const std::string path = TestPath("notes.onnx");
  WriteBytes(path, "this is a text file, not a model\n");
  const Error error = ImportError(path);
  CHECK(error.kind() == ErrorKind::kModel);
  CHECK(std::string(error.what()) == path +
                                         ": not an ONNX model: protobuf parse failed (malformed, "
                                         "or messages nested over 256 deep)");
}

TEST_CASE("a truncated model says where it ends", "[onnx][errors]") {
  std::string bytes;
  REQUIRE(ReluChain().SerializeToString(&bytes));
  const std::string path = TestPath("truncated.onnx");
  const std::string half = bytes.substr(0, bytes.size() / 2);
  WriteBytes(path, half);
  const Error error = ImportError(path);
  CHECK(error.kind() == ErrorKind::kModel);
  CHECK(std::string(error.what()) ==
        path + ": not an ONNX model: the protobuf ends mid-message after " +
            std::to_string(half.size()) + " bytes (truncated file?)");
}

TEST_CASE("a file over protobuf's 2 GiB limit is refused before reading it", "[onnx][errors]") {
  const std::string path = TestPath("too-big.onnx");
  WriteBytes(path, "");
  std::filesystem::resize_file(path, uintmax_t{3} << 30);  // sparse: no disk used
  const Error error = ImportError(path);
  std::filesystem::remove(path);
  CHECK(error.kind() == ErrorKind::kModel);
  CHECK(std::string(error.what()) ==
        path +
            ": 3221225472 bytes is over protobuf's 2 GiB limit for one message (store the weights "
            "as external data)");
}

TEST_CASE("an empty file has no graph", "[onnx][errors]") {
  const std::string path = TestPath("empty.onnx");
  WriteBytes(path, "");
  const Error error = ImportError(path);
  CHECK(error.kind() == ErrorKind::kModel);
  CHECK(std::string(error.what()) == path + ": not an ONNX model: it has no graph");
}

TEST_CASE("a cycle names a node on it", "[onnx][errors]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "x", kFloat, {2});
  AddNode(graph, "Relu", {"x"}, {"a"}, "entry");
  // loop_b reads loop_c's output and loop_c reads loop_b's: a two-node cycle after 'entry'.
  AddNode(graph, "Add", {"a", "c"}, {"b"}, "loop_b");
  AddNode(graph, "Relu", {"b"}, {"c"}, "loop_c");
  AddOutput(graph, "c", kFloat, {2});
  const std::string path = WriteModel(model, "cycle.onnx");
  const Error error = ImportError(path);
  CHECK(error.kind() == ErrorKind::kModel);
  CHECK(std::string(error.what()) ==
        path +
            ": node 'loop_b' (Add): the graph has a cycle through this node: 'loop_b' -> "
            "'loop_c' -> 'loop_b'");
}

TEST_CASE("a value used but never produced names the node and the value", "[onnx][errors]") {
  onnx::ModelProto model = ReluChain();
  model.mutable_graph()->mutable_node(1)->set_input(0, "ghost");
  const std::string path = WriteModel(model, "ghost.onnx");
  const Error error = ImportError(path);
  CHECK(error.kind() == ErrorKind::kModel);
  CHECK(std::string(error.what()) ==
        path + ": node 'second' (Relu): input 'ghost' is used but never produced");
}

TEST_CASE("a graph output nobody produces is an error", "[onnx][errors]") {
  onnx::ModelProto model = ReluChain();
  AddOutput(*model.mutable_graph(), "nowhere", kFloat, {1});
  const std::string path = WriteModel(model, "no_output.onnx");
  CHECK_THROWS_WITH(ImportOnnxModel(path, {}), path + ": graph output 'nowhere' is never produced");
}

TEST_CASE("two producers of one value name both", "[onnx][errors]") {
  onnx::ModelProto model = ReluChain();
  AddNode(*model.mutable_graph(), "Sigmoid", {"x"}, {"y"}, "again");
  const std::string path = WriteModel(model, "duplicate.onnx");
  const Error error = ImportError(path);
  CHECK(error.kind() == ErrorKind::kModel);
  CHECK(std::string(error.what()) ==
        path + ": node 'again' (Sigmoid): output 'y' is also produced by node 'first' (Relu)");
}

TEST_CASE("a node output that shadows a graph input is an error", "[onnx][errors]") {
  onnx::ModelProto model = ReluChain();
  AddNode(*model.mutable_graph(), "Relu", {"z"}, {"x"}, "clobber");
  const std::string path = WriteModel(model, "shadow.onnx");
  CHECK_THROWS_WITH(ImportOnnxModel(path, {}),
                    path + ": node 'clobber' (Relu): output 'x' is also produced by a graph input");
}

TEST_CASE("a negative declared dim is an error naming value and axis", "[onnx][errors]") {
  onnx::ModelProto model = ReluChain();
  model.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(-3);
  const std::string path = WriteModel(model, "negative.onnx");
  const Error error = ImportError(path);
  CHECK(error.kind() == ErrorKind::kModel);
  CHECK(std::string(error.what()) == path + ": value 'x' has negative dimension -3 at axis 1");
}

TEST_CASE("a negative initializer dim is an error", "[onnx][errors]") {
  onnx::ModelProto model = MakeModel();
  onnx::TensorProto* weight =
      AddExternalInitializer(*model.mutable_graph(), "w", kFloat, {4, 4}, "absent.bin", 0);
  weight->set_dims(0, -4);
  AddNode(*model.mutable_graph(), "Relu", {"w"}, {"y"});
  AddUntypedOutput(*model.mutable_graph(), "y");
  const std::string path = WriteModel(model, "negative_initializer.onnx");
  CHECK_THROWS_WITH(ImportOnnxModel(path, {}),
                    path + ": value 'w' has negative dimension -4 at axis 0");
}

TEST_CASE("a negative --dim is a usage error", "[onnx][errors]") {
  const std::string path = WriteModel(ReluChain(), "fine.onnx");
  ImportOptions options;
  options.dims["batch"] = -1;
  const Error error = ImportError(path, options);
  CHECK(error.kind() == ErrorKind::kUsage);
  CHECK(std::string(error.what()) == "--dim batch=-1: a dimension cannot be negative");
}

TEST_CASE("errors inside a body name the enclosing node", "[onnx][errors]") {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "cond", kBool, {});
  AddInput(graph, "x", kFloat, {2});
  onnx::GraphProto then_branch;
  then_branch.set_name("then");
  AddNode(then_branch, "Relu", {"phantom"}, {"t"}, "inner");
  AddOutput(then_branch, "t", kFloat, {2});
  onnx::GraphProto else_branch;
  else_branch.set_name("else");
  AddNode(else_branch, "Relu", {"x"}, {"e"}, "other");
  AddOutput(else_branch, "e", kFloat, {2});
  onnx::NodeProto* branch = AddNode(graph, "If", {"cond"}, {"y"}, "choose");
  SetAttribute(branch, "then_branch", then_branch);
  SetAttribute(branch, "else_branch", else_branch);
  AddOutput(graph, "y", kFloat, {2});
  const std::string path = WriteModel(model, "body_error.onnx");
  CHECK_THROWS_WITH(ImportOnnxModel(path, {}),
                    path +
                        ": node 'choose' (If) body 'then_branch': node 'inner' (Relu): input "
                        "'phantom' is used but never produced");
}

}  // namespace
}  // namespace hyperplan::test
