// Walking a model's tensors (see model_tensors.h).
#include "onnx/model_tensors.h"

#include <filesystem>
#include <unordered_set>

namespace hyperplan::onnx_import {
namespace {

namespace fs = std::filesystem;

void VisitGraph(onnx::GraphProto& graph, const std::function<void(onnx::TensorProto&)>& visit);

void VisitSparse(onnx::SparseTensorProto& sparse,
                 const std::function<void(onnx::TensorProto&)>& visit) {
  visit(*sparse.mutable_values());
  visit(*sparse.mutable_indices());
}

void VisitAttribute(onnx::AttributeProto& attribute,
                    const std::function<void(onnx::TensorProto&)>& visit) {
  if (attribute.has_t()) visit(*attribute.mutable_t());
  for (onnx::TensorProto& tensor : *attribute.mutable_tensors()) visit(tensor);
  if (attribute.has_sparse_tensor()) VisitSparse(*attribute.mutable_sparse_tensor(), visit);
  for (onnx::SparseTensorProto& sparse : *attribute.mutable_sparse_tensors()) {
    VisitSparse(sparse, visit);
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
    VisitSparse(sparse, visit);
  }
  VisitNodes(*graph.mutable_node(), visit);
}

}  // namespace

void ForEachTensor(onnx::ModelProto& model, const std::function<void(onnx::TensorProto&)>& visit) {
  VisitGraph(*model.mutable_graph(), visit);
  for (onnx::FunctionProto& function : *model.mutable_functions()) {
    VisitNodes(*function.mutable_node(), visit);
  }
}

onnx::StringStringEntryProto* ExternalLocation(onnx::TensorProto& tensor) {
  if (tensor.data_location() != onnx::TensorProto::EXTERNAL) return nullptr;
  onnx::StringStringEntryProto* location = nullptr;
  for (onnx::StringStringEntryProto& entry : *tensor.mutable_external_data()) {
    if (entry.key() == "location") location = &entry;
  }
  return location;
}

std::vector<std::string> ExternalDataFiles(onnx::ModelProto& model, const std::string& model_path) {
  const fs::path directory = fs::path(model_path).parent_path();
  std::vector<std::string> files;
  std::unordered_set<std::string> seen;
  ForEachTensor(model, [&](onnx::TensorProto& tensor) {
    const onnx::StringStringEntryProto* location = ExternalLocation(tensor);
    if (location == nullptr || location->value().empty()) return;
    std::string file = (directory / location->value()).lexically_normal().string();
    if (seen.insert(file).second) files.push_back(std::move(file));
  });
  return files;
}

}  // namespace hyperplan::onnx_import
