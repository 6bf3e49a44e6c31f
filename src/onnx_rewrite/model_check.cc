// ONNX's checker on rewritten models (see model_check.h).
#include "onnx_rewrite/model_check.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <set>

#include "hyperplan/error.h"

namespace hyperplan::onnx_rewrite {
namespace {

// Where schema-less default-domain ops go in the checked view; never written to a file.
constexpr const char* kUncheckedDomain = "ai.hyperplan.unchecked";

// The checker's messages append context on later lines; one line is enough here.
std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

[[noreturn]] void Fail(const std::string& output_path, const std::string& what) {
  throw Error(ErrorKind::kInternal,
              output_path + ": the rewritten model fails ONNX's checker: " + what);
}

int DefaultOpset(const onnx::ModelProto& model) {
  for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx") {
      return static_cast<int>(opset.version());
    }
  }
  return 0;
}

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// Calls `visit` on every node of `graph` and of the bodies nested in it.
void ForEachNode(onnx::GraphProto& graph, const std::function<void(onnx::NodeProto&)>& visit) {
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    visit(node);
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_g()) ForEachNode(*attribute.mutable_g(), visit);
      for (onnx::GraphProto& body : *attribute.mutable_graphs()) ForEachNode(body, visit);
    }
  }
}

// Whether any node of `graph` or of its nested bodies satisfies `test`.
bool AnyNode(const onnx::GraphProto& graph,
             const std::function<bool(const onnx::NodeProto&)>& test) {
  for (const onnx::NodeProto& node : graph.node()) {
    if (test(node)) return true;
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.has_g() && AnyNode(attribute.g(), test)) return true;
      for (const onnx::GraphProto& body : attribute.graphs()) {
        if (AnyNode(body, test)) return true;
      }
    }
  }
  return false;
}

bool HasExternalInitializers(const onnx::ModelProto& model) {
  for (const onnx::TensorProto& tensor : model.graph().initializer()) {
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL) return true;
  }
  return false;
}

// The main graph's external initializers become graph inputs of the same type and shape.
void ExternalWeightsAsInputs(onnx::GraphProto& graph, const std::string& output_path) {
  std::set<std::string> already_inputs;
  for (const onnx::ValueInfoProto& input : graph.input()) already_inputs.insert(input.name());
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (onnx::TensorProto& tensor : *graph.mutable_initializer()) {
    if (tensor.data_location() != onnx::TensorProto::EXTERNAL) {
      *kept.Add() = std::move(tensor);
      continue;
    }
    bool located = false;
    for (const onnx::StringStringEntryProto& entry : tensor.external_data()) {
      if (entry.key() != "location") continue;
      const std::filesystem::path location =
          std::filesystem::path(entry.value()).lexically_normal();
      located = !location.empty() && !location.is_absolute() && *location.begin() != "..";
    }
    if (!located) {
      Fail(output_path, "tensor '" + tensor.name() + "' has no usable external location");
    }
    if (already_inputs.count(tensor.name())) continue;
    onnx::ValueInfoProto* input = graph.add_input();
    input->set_name(tensor.name());
    onnx::TypeProto_Tensor* type = input->mutable_type()->mutable_tensor_type();
    type->set_elem_type(tensor.data_type());
    onnx::TensorShapeProto* shape = type->mutable_shape();
    for (int64_t dim : tensor.dims()) shape->add_dim()->set_dim_value(dim);
  }
  graph.mutable_initializer()->Swap(&kept);
}

}  // namespace

CheckReport CheckRewrittenModel(const onnx::ModelProto& model, const std::string& output_path) {
  CheckReport report;
  const int opset = DefaultOpset(model);
  auto schemaless = [opset](const onnx::NodeProto& node) {
    return IsDefaultDomain(node.domain()) &&
           onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "") == nullptr;
  };
  std::set<std::string> ops;
  const bool any_schemaless = AnyNode(model.graph(), schemaless);

  std::optional<onnx::ModelProto> view;
  if (HasExternalInitializers(model) || any_schemaless) view = model;
  if (view) {
    ExternalWeightsAsInputs(*view->mutable_graph(), output_path);
    ForEachNode(*view->mutable_graph(), [&](onnx::NodeProto& node) {
      if (!schemaless(node)) return;
      ++report.schemaless_nodes;
      ops.insert(node.op_type());
      node.set_domain(kUncheckedDomain);
    });
    if (report.schemaless_nodes > 0) {
      onnx::OperatorSetIdProto* unchecked = view->add_opset_import();
      unchecked->set_domain(kUncheckedDomain);
      unchecked->set_version(1);
    }
  }
  report.schemaless_ops.assign(ops.begin(), ops.end());
  try {
    onnx::checker::check_model(view ? *view : model);
  } catch (const std::exception& error) {
    Fail(output_path, FirstLine(error.what()));
  }
  return report;
}

}  // namespace hyperplan::onnx_rewrite
