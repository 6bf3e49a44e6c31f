// External-data locations relative to the output (see external_data.h).
#include "onnx_rewrite/external_data.h"

#include <filesystem>

#include "hyperplan/error.h"

namespace hyperplan::onnx_rewrite {
namespace {

namespace fs = std::filesystem;

void VisitGraph(onnx::GraphProto& graph, const std::function<void(onnx::TensorProto&)>& visit);

void VisitAttribute(onnx::AttributeProto& attribute,
                    const std::function<void(onnx::TensorProto&)>& visit) {
  if (attribute.has_t()) visit(*attribute.mutable_t());
  for (onnx::TensorProto& tensor : *attribute.mutable_tensors()) visit(tensor);
  if (attribute.has_sparse_tensor()) {
    visit(*attribute.mutable_sparse_tensor()->mutable_values());
    visit(*attribute.mutable_sparse_tensor()->mutable_indices());
  }
  for (onnx::SparseTensorProto& sparse : *attribute.mutable_sparse_tensors()) {
    visit(*sparse.mutable_values());
    visit(*sparse.mutable_indices());
  }
  if (attribute.has_g()) VisitGraph(*attribute.mutable_g(), visit);
  for (onnx::GraphProto& body : *attribute.mutable_graphs()) VisitGraph(body, visit);
}

void VisitNodes(google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
                const std::function<void(onnx::TensorProto&)>& visit) {
  for (onnx::NodeProto& node : nodes) {
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      VisitAttribute(attribute, visit);
    }
  }
}

void VisitGraph(onnx::GraphProto& graph, const std::function<void(onnx::TensorProto&)>& visit) {
  for (onnx::TensorProto& tensor : *graph.mutable_initializer()) visit(tensor);
  for (onnx::SparseTensorProto& sparse : *graph.mutable_sparse_initializer()) {
    visit(*sparse.mutable_values());
    visit(*sparse.mutable_indices());
  }
  VisitNodes(*graph.mutable_node(), visit);
}

// The directory a model file's relative locations start from, absolute and normalised.
fs::path BaseDirectory(const std::string& file) {
  return fs::absolute(fs::path(file)).lexically_normal().parent_path();
}

}  // namespace

void ForEachTensor(onnx::ModelProto& model, const std::function<void(onnx::TensorProto&)>& visit) {
  VisitGraph(*model.mutable_graph(), visit);
  for (onnx::FunctionProto& function : *model.mutable_functions()) {
    VisitNodes(*function.mutable_node(), visit);
  }
}

int64_t RelocateExternalData(onnx::ModelProto& model, const std::string& model_path,
                             const std::string& output_path) {
  const fs::path model_dir = BaseDirectory(model_path);
  const fs::path output_dir = BaseDirectory(output_path);
  int64_t external = 0;
  ForEachTensor(model, [&](onnx::TensorProto& tensor) {
    if (tensor.data_location() != onnx::TensorProto::EXTERNAL) return;
    ++external;
    onnx::StringStringEntryProto* location = nullptr;
    for (onnx::StringStringEntryProto& entry : *tensor.mutable_external_data()) {
      if (entry.key() == "location") location = &entry;
    }
    if (location == nullptr || location->value().empty() ||
        fs::path(location->value()).is_absolute()) {
      throw Error(ErrorKind::kModel, model_path + ": tensor '" + tensor.name() +
                                         "' is external but has no relative 'location'");
    }
    if (model_dir == output_dir) return;
    const fs::path weights = (model_dir / location->value()).lexically_normal();
    const fs::path relative = weights.lexically_relative(output_dir);
    if (relative.empty() || *relative.begin() == "..") {
      throw Error(ErrorKind::kUsage,
                  output_path + ": the model's external weights ('" + location->value() +
                      "') would lie outside this file's directory, which ONNX does not allow, "
                      "and hyperplan never copies weights: write the rewritten model into " +
                      model_dir.string() + " (or a directory above it)");
    }
    location->set_value(relative.generic_string());
  });
  return external;
}

}  // namespace hyperplan::onnx_rewrite
