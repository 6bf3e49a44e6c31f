// Reading through hyperplan's cache operators (see cache_ops.h).
#include "onnx/cache_ops.h"

#include <string>
#include <unordered_map>

namespace hyperplan::onnx_import {
namespace {

template <typename Field, typename Drop>
void EraseIf(Field& field, Drop drop) {
  Field kept;
  for (auto& item : field) {
    if (!drop(item)) *kept.Add() = std::move(item);
  }
  field.Swap(&kept);
}

}  // namespace

void ReadThroughCacheOps(onnx::ModelProto& model) {
  onnx::GraphProto& graph = *model.mutable_graph();
  // Each cache node's output names a copy of its input; chains resolve to the model's tensor.
  std::unordered_map<std::string, std::string> copy_of;
  for (const onnx::NodeProto& node : graph.node()) {
    if (node.domain() != kCacheOpsDomain || node.input_size() < 1) continue;
    for (const std::string& output : node.output()) copy_of.emplace(output, node.input(0));
  }
  auto original = [&](std::string name) {
    for (auto it = copy_of.find(name); it != copy_of.end(); it = copy_of.find(name)) {
      name = it->second;
    }
    return name;
  };
  EraseIf(*graph.mutable_node(),
          [](const onnx::NodeProto& node) { return node.domain() == kCacheOpsDomain; });
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (std::string& input : *node.mutable_input()) {
      if (!input.empty()) input = original(input);
    }
  }
  EraseIf(*model.mutable_functions(),
          [](const onnx::FunctionProto& function) { return function.domain() == kCacheOpsDomain; });
  EraseIf(*model.mutable_opset_import(),
          [](const onnx::OperatorSetIdProto& opset) { return opset.domain() == kCacheOpsDomain; });
}

}  // namespace hyperplan::onnx_import
