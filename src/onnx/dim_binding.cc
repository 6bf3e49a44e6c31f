// Substitution of bound symbolic dims in declared value types (see dim_binding.h).
#include "onnx/dim_binding.h"

#include <fmt/format.h>

#include <algorithm>

#include "onnx/dim_expression.h"

namespace hyperplan::onnx_import {

const DimValues DimBinding::kNoDefaults;

DimBinding::DimBinding(const DimValues& dims, const DimValues& defaults)
    : dims_(dims), defaults_(defaults) {
  for (const auto& [name, value] : dims) {
    if (name.empty()) throw Error(ErrorKind::kUsage, "--dim: the dimension name is empty");
    if (value < 0) {
      throw Error(ErrorKind::kUsage,
                  fmt::format("--dim {}={}: a dimension cannot be negative", name, value));
    }
  }
}

std::optional<int64_t> DimBinding::Lookup(std::string_view name) {
  const DimValues& source = dims_.count(name) != 0 ? dims_ : defaults_;
  const auto it = source.find(name);
  if (it == source.end()) return std::nullopt;
  used_.emplace(it->first, it->second);
  return it->second;
}

bool DimBinding::BindType(onnx::TypeProto& type, const std::string& value_name, Role role,
                          ImportContext& context) {
  onnx::TensorShapeProto* shape = nullptr;
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      if (type.tensor_type().has_shape()) shape = type.mutable_tensor_type()->mutable_shape();
      break;
    case onnx::TypeProto::kSparseTensorType:
      if (type.sparse_tensor_type().has_shape()) {
        shape = type.mutable_sparse_tensor_type()->mutable_shape();
      }
      break;
    case onnx::TypeProto::kSequenceType:
      return BindType(*type.mutable_sequence_type()->mutable_elem_type(), value_name, role,
                      context);
    case onnx::TypeProto::kOptionalType:
      return BindType(*type.mutable_optional_type()->mutable_elem_type(), value_name, role,
                      context);
    case onnx::TypeProto::kMapType:
      return BindType(*type.mutable_map_type()->mutable_value_type(), value_name, role, context);
    default:
      return false;
  }
  if (shape == nullptr) return false;
  return BindShape(*shape, value_name, role, context);
}

bool DimBinding::BindShape(onnx::TensorShapeProto& shape, const std::string& value_name, Role role,
                           ImportContext& context) {
  bool bound_uncarried = false;
  for (int axis = 0; axis < shape.dim_size(); ++axis) {
    onnx::TensorShapeProto::Dimension& dim = *shape.mutable_dim(axis);
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0) {
        context.Fail(ErrorKind::kModel,
                     fmt::format("value '{}' has negative dimension {} at axis {}", value_name,
                                 dim.dim_value(), axis));
      }
      continue;
    }
    if (!dim.has_dim_param()) continue;
    const std::string text = dim.dim_param();
    if (role == Role::kCarrier) NoteCarried(text);
    const std::optional<int64_t> value = Evaluate(text);
    if (!value) continue;
    if (*value < 0) {
      context.Fail(ErrorKind::kModel,
                   fmt::format("value '{}' has negative dimension {} at axis {} ('{}' with the "
                               "bound dims)",
                               value_name, *value, axis, text));
    }
    if (role == Role::kOther && !IsCarried(text)) bound_uncarried = true;
    dim.set_dim_value(*value);
  }
  return bound_uncarried;
}

void DimBinding::NoteCarried(const std::string& text) {
  DimExpressionResult names = EvaluateDimExpression(
      text, [](std::string_view) -> std::optional<int64_t> { return std::nullopt; });
  if (!names.parsed) names.unbound = {text};
  carried_symbols_.insert(names.unbound.begin(), names.unbound.end());
}

std::optional<int64_t> DimBinding::Evaluate(const std::string& text) {
  auto [cached, inserted] = evaluated_.try_emplace(text);
  if (inserted) {
    if (auto exact = Lookup(text)) {
      cached->second = exact;
    } else {
      DimExpressionResult result =
          EvaluateDimExpression(text, [this](std::string_view name) { return Lookup(name); });
      if (!result.parsed) result.unbound = {text};
      cached->second = result.value;
      unbound_symbols_.insert(result.unbound.begin(), result.unbound.end());
      symbols_behind_[text] = std::move(result.unbound);
    }
  }
  return cached->second;
}

bool DimBinding::IsCarried(const std::string& text) {
  if (carried_symbols_.count(text)) return true;
  // Called once the model's inputs are bound, so the answer per text never changes.
  auto [cached, inserted] = carried_texts_.try_emplace(text, false);
  if (!inserted) return cached->second;
  DimExpressionResult names = EvaluateDimExpression(
      text, [](std::string_view) -> std::optional<int64_t> { return std::nullopt; });
  cached->second =
      names.parsed && std::all_of(names.unbound.begin(), names.unbound.end(),
                                  [&](const auto& n) { return carried_symbols_.count(n) > 0; });
  return cached->second;
}

void DimBinding::BindValueInfos(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& infos,
                                Role role, ImportContext& context) {
  for (onnx::ValueInfoProto& info : infos) {
    if (info.has_type() && BindType(*info.mutable_type(), info.name(), role, context)) {
      context.unverified_declarations.insert(info.name());
    }
  }
}

void DimBinding::Bind(onnx::GraphProto& graph, ImportContext& context) {
  BindGraph(graph, /*is_model_graph=*/true, context);
}

void DimBinding::BindGraph(onnx::GraphProto& graph, bool is_model_graph, ImportContext& context) {
  // Inputs first, so the symbols they carry are known before outputs and value_info bind.
  BindValueInfos(*graph.mutable_input(), is_model_graph ? Role::kCarrier : Role::kOther, context);
  BindValueInfos(*graph.mutable_output(), Role::kOther, context);
  BindValueInfos(*graph.mutable_value_info(), Role::kOther, context);
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_g()) BindGraph(*attribute.mutable_g(), false, context);
      for (onnx::GraphProto& body : *attribute.mutable_graphs()) BindGraph(body, false, context);
    }
  }
}

std::vector<std::string> DimBinding::Unused() const {
  std::vector<std::string> unused;
  for (const auto& [name, value] : dims_) {
    if (!used_.count(name)) unused.push_back(name);
  }
  return unused;
}

std::vector<std::string> DimBinding::DeclaredSymbols() const {
  std::vector<std::string> symbols;
  for (const auto& [name, value] : used_) symbols.push_back(name);
  for (const std::string& name : unbound_symbols_) {
    // Text the expression grammar could not read is kept whole as a "symbol" for messages;
    // only real names are something a --dim can bind.
    const DimExpressionResult parsed = EvaluateDimExpression(
        name, [](std::string_view) -> std::optional<int64_t> { return std::nullopt; });
    if (parsed.parsed && parsed.unbound.size() == 1 && parsed.unbound.front() == name) {
      symbols.push_back(name);
    }
  }
  std::sort(symbols.begin(), symbols.end());
  return symbols;
}

const std::vector<std::string>& DimBinding::SymbolsBehind(const std::string& dim_param) {
  auto [cached, inserted] = symbols_behind_.try_emplace(dim_param);
  if (!inserted) return cached->second;
  if (unbound_symbols_.count(dim_param)) {
    cached->second = {dim_param};
    return cached->second;
  }
  // Text composed during inference from declared symbols ("past_sequence + sequence") still
  // depends on them; pick out the names the model declared.
  DimExpressionResult result = EvaluateDimExpression(
      dim_param, [](std::string_view) -> std::optional<int64_t> { return std::nullopt; });
  for (std::string& name : result.unbound) {
    if (unbound_symbols_.count(name)) cached->second.push_back(std::move(name));
  }
  return cached->second;
}

}  // namespace hyperplan::onnx_import
