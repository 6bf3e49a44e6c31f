// Input access, output writing and dim arithmetic for shape rules (see shape_rule_helpers.h).
#include "onnx/shape_rule_helpers.h"

#include <onnx/defs/tensor_proto_util.h>

#include <algorithm>
#include <string>

namespace hyperplan::onnx_import {
namespace {

// Symbolic text as an operand: parenthesised unless it is a plain name.
std::string Operand(const Dim& dim) {
  if (dim.has_dim_value()) return std::to_string(dim.dim_value());
  const std::string& text = dim.dim_param();
  const bool plain = std::none_of(text.begin(), text.end(), [](char c) {
    return c == ' ' || c == '+' || c == '-' || c == '*' || c == '/' || c == '%';
  });
  return plain ? text : "(" + text + ")";
}

bool IsUsable(const Dim& dim) { return dim.has_dim_value() || !dim.dim_param().empty(); }

Dim ParamDim(std::string text) {
  Dim dim;
  dim.set_dim_param(std::move(text));
  return dim;
}

}  // namespace

Dim KnownDim(int64_t value) {
  Dim dim;
  dim.set_dim_value(value);
  return dim;
}

bool IsKnown(const Dim& dim) { return dim.has_dim_value(); }

Dim AddDims(const Dim& left, const Dim& right) {
  if (left.has_dim_value() && right.has_dim_value()) {
    int64_t sum = 0;
    if (__builtin_add_overflow(left.dim_value(), right.dim_value(), &sum)) return Dim();
    return KnownDim(sum);
  }
  if (!IsUsable(left) || !IsUsable(right)) return Dim();
  if (left.has_dim_value() && left.dim_value() == 0) return right;
  if (right.has_dim_value() && right.dim_value() == 0) return left;
  return ParamDim(Operand(left) + " + " + Operand(right));
}

Dim MultiplyDim(const Dim& dim, int64_t factor) {
  if (dim.has_dim_value()) {
    int64_t product = 0;
    if (__builtin_mul_overflow(dim.dim_value(), factor, &product)) return Dim();
    return KnownDim(product);
  }
  if (!IsUsable(dim)) return Dim();
  if (factor == 1) return dim;
  return ParamDim(std::to_string(factor) + "*" + Operand(dim));
}

Dim DivideDim(const Dim& dim, int64_t divisor) {
  if (divisor <= 0) return Dim();
  if (dim.has_dim_value()) {
    if (dim.dim_value() % divisor != 0) return Dim();
    return KnownDim(dim.dim_value() / divisor);
  }
  if (!IsUsable(dim)) return Dim();
  if (divisor == 1) return dim;
  return ParamDim(Operand(dim) + "/" + std::to_string(divisor));
}

Dim MaxDim(const Dim& left, const Dim& right) {
  if (!left.has_dim_value() || !right.has_dim_value()) return Dim();
  return KnownDim(std::max(left.dim_value(), right.dim_value()));
}

bool HasInput(onnx::InferenceContext& ctx, size_t index) {
  return index < ctx.getNumInputs() && ctx.getInputType(index) != nullptr;
}

const onnx::TensorShapeProto* InputShape(onnx::InferenceContext& ctx, size_t index) {
  if (!HasInput(ctx, index)) return nullptr;
  const onnx::TypeProto* type = ctx.getInputType(index);
  if (!type->has_tensor_type() || !type->tensor_type().has_shape()) return nullptr;
  return &type->tensor_type().shape();
}

const onnx::TensorShapeProto* InputShapeOfRank(onnx::InferenceContext& ctx, size_t index,
                                               int rank) {
  const onnx::TensorShapeProto* shape = InputShape(ctx, index);
  return shape != nullptr && shape->dim_size() == rank ? shape : nullptr;
}

int32_t InputElemType(onnx::InferenceContext& ctx, size_t index) {
  if (!HasInput(ctx, index)) return 0;
  const onnx::TypeProto* type = ctx.getInputType(index);
  return type->has_tensor_type() ? type->tensor_type().elem_type() : 0;
}

std::optional<int64_t> ConstantScalarInput(onnx::InferenceContext& ctx, size_t index) {
  if (index >= ctx.getNumInputs()) return std::nullopt;
  if (const onnx::TensorProto* data = ctx.getInputData(index)) {
    try {
      if (data->data_type() == onnx::TensorProto::INT64) {
        const std::vector<int64_t> values = onnx::ParseData<int64_t>(data);
        if (values.size() == 1) return values[0];
      } else if (data->data_type() == onnx::TensorProto::INT32) {
        const std::vector<int32_t> values = onnx::ParseData<int32_t>(data);
        if (values.size() == 1) return values[0];
      }
    } catch (const std::exception&) {
      // External or malformed data: the value is simply not known here.
    }
    return std::nullopt;
  }
  const onnx::TensorShapeProto* propagated = ctx.getSymbolicInput(index);
  if (propagated != nullptr && propagated->dim_size() == 1 && propagated->dim(0).has_dim_value()) {
    return propagated->dim(0).dim_value();
  }
  return std::nullopt;
}

int64_t IntAttribute(onnx::InferenceContext& ctx, const char* name, int64_t fallback) {
  const onnx::AttributeProto* attribute = ctx.getAttribute(name);
  return attribute != nullptr && attribute->has_i() ? attribute->i() : fallback;
}

std::optional<int64_t> AxisAttribute(onnx::InferenceContext& ctx, const char* name,
                                     int64_t fallback, int64_t rank) {
  int64_t axis = IntAttribute(ctx, name, fallback);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  return axis;
}

std::vector<int64_t> IntsAttribute(onnx::InferenceContext& ctx, const char* name) {
  const onnx::AttributeProto* attribute = ctx.getAttribute(name);
  if (attribute == nullptr) return {};
  return {attribute->ints().begin(), attribute->ints().end()};
}

bool HasOutput(onnx::InferenceContext& ctx, size_t index) { return index < ctx.getNumOutputs(); }

void SetOutput(onnx::InferenceContext& ctx, size_t index, int32_t elem_type,
               const std::vector<Dim>& dims) {
  if (!HasOutput(ctx, index)) return;
  onnx::TypeProto_Tensor* tensor = ctx.getOutputType(index)->mutable_tensor_type();
  if (elem_type != 0) tensor->set_elem_type(elem_type);
  onnx::TensorShapeProto* shape = tensor->mutable_shape();
  shape->clear_dim();
  for (const Dim& dim : dims) *shape->add_dim() = dim;
}

void SetOutputElemType(onnx::InferenceContext& ctx, size_t index, int32_t elem_type) {
  if (!HasOutput(ctx, index) || elem_type == 0) return;
  ctx.getOutputType(index)->mutable_tensor_type()->set_elem_type(elem_type);
}

void CopyInputToOutput(onnx::InferenceContext& ctx, size_t input, size_t index) {
  if (!HasOutput(ctx, index)) return;
  const int32_t elem_type = InputElemType(ctx, input);
  if (const onnx::TensorShapeProto* shape = InputShape(ctx, input)) {
    SetOutput(ctx, index, elem_type, {shape->dim().begin(), shape->dim().end()});
  } else {
    SetOutputElemType(ctx, index, elem_type);
  }
}

std::optional<std::vector<Dim>> ReducedShape(onnx::InferenceContext& ctx, int64_t axis) {
  const onnx::TensorShapeProto* shape = InputShape(ctx, 0);
  if (shape == nullptr) return std::nullopt;
  const int64_t rank = shape->dim_size();
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return std::nullopt;
  std::vector<Dim> dims(shape->dim().begin(), shape->dim().end());
  for (int64_t i = axis; i < rank; ++i) dims[i] = KnownDim(1);
  return dims;
}

}  // namespace hyperplan::onnx_import
