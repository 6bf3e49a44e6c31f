// Value sizing from ONNX types and initializers (see tensor_sizing.h).
#include "onnx/tensor_sizing.h"

#include <fmt/format.h>

namespace hyperplan::onnx_import {
namespace {

// Element type and a first verdict on sizability; throws for codes no one knows.
std::string SetElementType(int32_t code, Value& value, const std::string& where,
                           const ImportContext& context) {
  if (code == 0) return "its element type is unknown";
  const std::optional<DType> dtype = DTypeFromCode(code);
  if (!dtype) {
    context.Fail(ErrorKind::kModel,
                 fmt::format("{}value '{}' has unknown element type {}", where, value.name, code));
  }
  value.dtype = *dtype;
  if (*dtype == DType::kString) return "it is a string tensor (no static size)";
  return "";
}

// One dim as sizing sees it: a value, symbolic text, or nothing.
struct DimView {
  bool known = false;
  int64_t value = 0;
  const std::string* text = nullptr;
};

// Multiplies the dims out; fills shape, bytes and size_known when every dim is known.
// `dim_at(axis)` returns a DimView, so declared shapes and initializer dims share this code.
template <typename DimAt>
SizingResult SizeDims(int rank, DimAt dim_at, std::string element_verdict, Value& value,
                      const std::string& where, const ImportContext& context) {
  SizingResult result;
  result.unknown_reason = std::move(element_verdict);
  std::vector<int64_t> shape;
  shape.reserve(rank);
  int64_t elements = 1;
  bool overflow = false;
  bool all_known = true;
  for (int axis = 0; axis < rank; ++axis) {
    const DimView dim = dim_at(axis);
    if (!dim.known) {
      all_known = false;
      if (dim.text != nullptr && !dim.text->empty()) result.symbolic_dims.push_back(*dim.text);
      continue;
    }
    if (dim.value < 0) {
      context.Fail(ErrorKind::kModel, fmt::format("{}value '{}' has negative dimension {} at "
                                                  "axis {}",
                                                  where, value.name, dim.value, axis));
    }
    shape.push_back(dim.value);
    overflow = overflow || __builtin_mul_overflow(elements, dim.value, &elements);
  }
  if (!all_known) {
    if (result.unknown_reason.empty()) {
      result.unknown_reason = result.symbolic_dims.empty()
                                  ? "a dimension is unknown"
                                  : "dimension '" + result.symbolic_dims.front() + "' is unknown";
    }
    return result;
  }
  value.shape = std::move(shape);
  if (overflow) {
    context.Fail(
        ErrorKind::kModel,
        fmt::format("{}value '{}' has more elements than int64 can count", where, value.name));
  }
  if (!result.unknown_reason.empty()) return result;
  const std::optional<int64_t> bytes = StorageBytes(value.dtype, elements);
  if (!bytes) {
    context.Fail(ErrorKind::kModel,
                 fmt::format("{}value '{}' is too large to count in bytes", where, value.name));
  }
  value.bytes = *bytes;
  value.size_known = true;
  return result;
}

SizingResult SizeFromDimValues(const google::protobuf::RepeatedField<int64_t>& dims,
                               int32_t elem_type, Value& value, const std::string& where,
                               const ImportContext& context) {
  std::string verdict = SetElementType(elem_type, value, where, context);
  return SizeDims(
      dims.size(),
      [&](int axis) {
        return DimView{true, dims[axis], nullptr};
      },
      std::move(verdict), value, where, context);
}

}  // namespace

SizingResult SizeFromType(const onnx::TypeProto* type, Value& value, const std::string& where,
                          const ImportContext& context) {
  if (type == nullptr || type->value_case() == onnx::TypeProto::VALUE_NOT_SET) {
    return {"its type is unknown", {}};
  }
  const onnx::TensorShapeProto* shape = nullptr;
  int32_t elem_type = 0;
  if (type->has_tensor_type()) {
    elem_type = type->tensor_type().elem_type();
    if (type->tensor_type().has_shape()) shape = &type->tensor_type().shape();
  } else if (type->has_sparse_tensor_type()) {
    elem_type = type->sparse_tensor_type().elem_type();
    if (type->sparse_tensor_type().has_shape()) shape = &type->sparse_tensor_type().shape();
  } else {
    return {"it is not a tensor (sequence, map or optional values have no static size)", {}};
  }
  std::string verdict = SetElementType(elem_type, value, where, context);
  if (shape == nullptr) {
    return {verdict.empty() ? "its rank is unknown" : std::move(verdict), {}};
  }
  return SizeDims(
      shape->dim_size(),
      [&](int axis) {
        const onnx::TensorShapeProto::Dimension& dim = shape->dim(axis);
        return dim.has_dim_value() ? DimView{true, dim.dim_value(), nullptr}
                                   : DimView{false, 0, &dim.dim_param()};
      },
      std::move(verdict), value, where, context);
}

SizingResult SizeFromInitializer(const onnx::TensorProto& tensor, Value& value,
                                 const std::string& where, const ImportContext& context) {
  value.is_external_data = tensor.data_location() == onnx::TensorProto::EXTERNAL;
  return SizeFromDimValues(tensor.dims(), tensor.data_type(), value, where, context);
}

SizingResult SizeFromSparseInitializer(const onnx::SparseTensorProto& sparse, Value& value,
                                       const std::string& where, const ImportContext& context) {
  value.is_external_data = sparse.values().data_location() == onnx::TensorProto::EXTERNAL;
  return SizeFromDimValues(sparse.dims(), sparse.values().data_type(), value, where, context);
}

}  // namespace hyperplan::onnx_import
