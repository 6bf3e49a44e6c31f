// Merging declared and inferred value types (see type_merge.h).
#include "onnx/type_merge.h"

#include "hyperplan/dtype.h"

namespace hyperplan::onnx_import {
namespace {

std::string ElemTypeName(int32_t code) {
  if (code == 0) return "?";
  if (auto dtype = DTypeFromCode(code)) return std::string(DTypeName(*dtype));
  return "type" + std::to_string(code);
}

}  // namespace

std::string DescribeType(const onnx::TypeProto& type) {
  if (!type.has_tensor_type()) return "non-tensor";
  const onnx::TypeProto_Tensor& tensor = type.tensor_type();
  std::string text = ElemTypeName(tensor.elem_type());
  if (!tensor.has_shape()) return text + " [unknown rank]";
  text += " [";
  for (int i = 0; i < tensor.shape().dim_size(); ++i) {
    const auto& dim = tensor.shape().dim(i);
    if (i > 0) text += ',';
    if (dim.has_dim_value()) {
      text += std::to_string(dim.dim_value());
    } else if (!dim.dim_param().empty()) {
      text += dim.dim_param();
    } else {
      text += '?';
    }
  }
  return text + "]";
}

bool IsCompleteTensorType(const onnx::TypeProto* type) {
  if (type == nullptr || !type->has_tensor_type()) return false;
  const onnx::TypeProto_Tensor& tensor = type->tensor_type();
  if (tensor.elem_type() == 0 || !tensor.has_shape()) return false;
  for (const auto& dim : tensor.shape().dim()) {
    if (!dim.has_dim_value()) return false;
  }
  return true;
}

std::optional<std::string> MergeDeclaredIntoInferred(const onnx::TypeProto& declared,
                                                     onnx::TypeProto& inferred) {
  if (!declared.has_tensor_type() || !inferred.has_tensor_type()) {
    if (inferred.value_case() == onnx::TypeProto::VALUE_NOT_SET) inferred = declared;
    return std::nullopt;
  }
  const onnx::TypeProto_Tensor& from = declared.tensor_type();
  onnx::TypeProto_Tensor& into = *inferred.mutable_tensor_type();
  bool disagree = false;
  if (into.elem_type() == 0) {
    into.set_elem_type(from.elem_type());
  } else if (from.elem_type() != 0 && from.elem_type() != into.elem_type()) {
    disagree = true;
  }
  if (from.has_shape()) {
    if (!into.has_shape()) {
      *into.mutable_shape() = from.shape();
    } else if (into.shape().dim_size() != from.shape().dim_size()) {
      disagree = true;
    } else {
      for (int i = 0; i < from.shape().dim_size(); ++i) {
        const auto& declared_dim = from.shape().dim(i);
        auto& inferred_dim = *into.mutable_shape()->mutable_dim(i);
        if (inferred_dim.has_dim_value()) {
          if (declared_dim.has_dim_value() &&
              declared_dim.dim_value() != inferred_dim.dim_value()) {
            disagree = true;
          }
        } else if (declared_dim.has_dim_value() ||
                   (inferred_dim.dim_param().empty() && !declared_dim.dim_param().empty())) {
          inferred_dim = declared_dim;
        }
      }
    }
  }
  if (!disagree) return std::nullopt;
  return "declared " + DescribeType(declared) + ", inferred " + DescribeType(inferred);
}

}  // namespace hyperplan::onnx_import
