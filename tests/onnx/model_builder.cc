// Test helper implementation (see model_builder.h).
#include "model_builder.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "hyperplan/dtype.h"

namespace hyperplan::test {
namespace {

// One directory per test process, removed when the process exits.
class TestDirectory {
 public:
  TestDirectory() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "hyperplan-onnx-tests-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TestDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

const std::filesystem::path& Directory() {
  static const TestDirectory directory;
  return directory.path();
}

void FillType(onnx::TypeProto* type, int32_t elem_type, const Shape& shape) {
  onnx::TypeProto_Tensor* tensor = type->mutable_tensor_type();
  tensor->set_elem_type(elem_type);
  onnx::TensorShapeProto* proto_shape = tensor->mutable_shape();
  for (const DimSpec& dim : shape) {
    onnx::TensorShapeProto::Dimension* proto_dim = proto_shape->add_dim();
    if (const auto* value = std::get_if<int64_t>(&dim)) proto_dim->set_dim_value(*value);
    if (const auto* text = std::get_if<std::string>(&dim)) proto_dim->set_dim_param(*text);
  }
}

onnx::ValueInfoProto* AddTyped(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* infos,
                               const std::string& name, int32_t elem_type, const Shape& shape) {
  onnx::ValueInfoProto* info = infos->Add();
  info->set_name(name);
  FillType(info->mutable_type(), elem_type, shape);
  return info;
}

onnx::AttributeProto* NewAttribute(onnx::NodeProto* node, const std::string& name,
                                   onnx::AttributeProto::AttributeType type) {
  onnx::AttributeProto* attribute = node->add_attribute();
  attribute->set_name(name);
  attribute->set_type(type);
  return attribute;
}

}  // namespace

onnx::ModelProto MakeModel(int64_t opset) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("hyperplan-tests");
  AddOpset(model, "", opset);
  model.mutable_graph()->set_name("test");
  return model;
}

void AddOpset(onnx::ModelProto& model, const std::string& domain, int64_t version) {
  onnx::OperatorSetIdProto* import = model.add_opset_import();
  import->set_domain(domain);
  import->set_version(version);
}

onnx::ValueInfoProto* AddInput(onnx::GraphProto& graph, const std::string& name, int32_t elem_type,
                               const Shape& shape) {
  return AddTyped(graph.mutable_input(), name, elem_type, shape);
}

onnx::ValueInfoProto* AddInputOfUnknownRank(onnx::GraphProto& graph, const std::string& name,
                                            int32_t elem_type) {
  onnx::ValueInfoProto* info = graph.add_input();
  info->set_name(name);
  info->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
  return info;
}

onnx::ValueInfoProto* AddOutput(onnx::GraphProto& graph, const std::string& name, int32_t elem_type,
                                const Shape& shape) {
  return AddTyped(graph.mutable_output(), name, elem_type, shape);
}

onnx::ValueInfoProto* AddUntypedOutput(onnx::GraphProto& graph, const std::string& name) {
  onnx::ValueInfoProto* info = graph.add_output();
  info->set_name(name);
  return info;
}

onnx::ValueInfoProto* AddValueInfo(onnx::GraphProto& graph, const std::string& name,
                                   int32_t elem_type, const Shape& shape) {
  return AddTyped(graph.mutable_value_info(), name, elem_type, shape);
}

onnx::TensorProto* AddInitializer(onnx::GraphProto& graph, const std::string& name,
                                  int32_t elem_type, const std::vector<int64_t>& dims) {
  onnx::TensorProto* tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(elem_type);
  int64_t elements = 1;
  for (int64_t dim : dims) {
    tensor->add_dims(dim);
    elements *= dim;
  }
  const std::optional<int64_t> bytes =
      StorageBytes(DTypeFromCode(elem_type).value_or(DType::kUint8), elements);
  tensor->set_raw_data(std::string(static_cast<size_t>(bytes.value_or(0)), '\0'));
  return tensor;
}

onnx::TensorProto* AddInt64Initializer(onnx::GraphProto& graph, const std::string& name,
                                       const std::vector<int64_t>& dims,
                                       const std::vector<int64_t>& values) {
  onnx::TensorProto* tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(kInt64);
  for (int64_t dim : dims) tensor->add_dims(dim);
  for (int64_t value : values) tensor->add_int64_data(value);
  return tensor;
}

onnx::TensorProto* AddExternalInitializer(onnx::GraphProto& graph, const std::string& name,
                                          int32_t elem_type, const std::vector<int64_t>& dims,
                                          const std::string& location, int64_t offset) {
  onnx::TensorProto* tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(elem_type);
  int64_t elements = 1;
  for (int64_t dim : dims) {
    tensor->add_dims(dim);
    elements *= dim;
  }
  tensor->set_data_location(onnx::TensorProto::EXTERNAL);
  const auto add_entry = [&](const std::string& key, const std::string& value) {
    onnx::StringStringEntryProto* entry = tensor->add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  };
  add_entry("location", location);
  add_entry("offset", std::to_string(offset));
  const std::optional<int64_t> bytes =
      StorageBytes(DTypeFromCode(elem_type).value_or(DType::kUint8), elements);
  add_entry("length", std::to_string(bytes.value_or(0)));
  return tensor;
}

onnx::NodeProto* AddNode(onnx::GraphProto& graph, const std::string& op_type,
                         const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs, const std::string& name,
                         const std::string& domain) {
  onnx::NodeProto* node = graph.add_node();
  node->set_op_type(op_type);
  node->set_name(name);
  node->set_domain(domain);
  for (const std::string& input : inputs) node->add_input(input);
  for (const std::string& output : outputs) node->add_output(output);
  return node;
}

void SetAttribute(onnx::NodeProto* node, const std::string& name, int64_t value) {
  NewAttribute(node, name, onnx::AttributeProto::INT)->set_i(value);
}

void SetAttribute(onnx::NodeProto* node, const std::string& name,
                  const std::vector<int64_t>& values) {
  onnx::AttributeProto* attribute = NewAttribute(node, name, onnx::AttributeProto::INTS);
  for (int64_t value : values) attribute->add_ints(value);
}

void SetAttribute(onnx::NodeProto* node, const std::string& name, const onnx::GraphProto& graph) {
  *NewAttribute(node, name, onnx::AttributeProto::GRAPH)->mutable_g() = graph;
}

void SetAttribute(onnx::NodeProto* node, const std::string& name, const onnx::TensorProto& tensor) {
  *NewAttribute(node, name, onnx::AttributeProto::TENSOR)->mutable_t() = tensor;
}

std::string TestPath(const std::string& file_name) { return (Directory() / file_name).string(); }

std::string WriteModel(const onnx::ModelProto& model, const std::string& file_name) {
  const std::string path = TestPath(file_name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!model.SerializeToOstream(&out)) throw std::runtime_error("cannot write " + path);
  return path;
}

Graph Import(const onnx::ModelProto& model, const ImportOptions& options,
             const std::string& file_name) {
  return ImportOnnxModel(WriteModel(model, file_name), options);
}

const Value& ValueNamed(const Graph& graph, const std::string& name) {
  const ValueId id = graph.FindValue(name);
  INFO("value '" << name << "'");
  REQUIRE(id != kNoValue);
  return graph.values[id];
}

const Node& NodeNamed(const Graph& graph, const std::string& name) {
  const NodeId id = graph.FindNode(name);
  INFO("node '" << name << "'");
  REQUIRE(id != kNoNode);
  return graph.nodes[id];
}

bool HasWarningContaining(const Graph& graph, const std::string& text) {
  for (const std::string& warning : graph.warnings) {
    if (warning.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string JoinedWarnings(const Graph& graph) {
  std::string joined;
  for (const std::string& warning : graph.warnings) joined += warning + "\n";
  return joined;
}

}  // namespace hyperplan::test
