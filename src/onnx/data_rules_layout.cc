// Contents of shape tensors through operators that move or make elements: Reshape and its kin,
// Transpose, Slice, ConstantOfShape and Cast (see data_rules.h).
#include <onnx/defs/tensor_proto_util.h>

#include <algorithm>
#include <limits>

#include "onnx/data_rules.h"

namespace hyperplan::onnx_import {
namespace {

using Dimension = onnx::TensorShapeProto::Dimension;

const onnx::AttributeProto* Attribute(const onnx::NodeProto& node, std::string_view name) {
  for (const onnx::AttributeProto& attribute : node.attribute()) {
    if (attribute.name() == name) return &attribute;
  }
  return nullptr;
}

// The element count of `dims` (each at most kMaxDataElements, ContentDims), or -1 past
// kMaxDataElements, which no contents reach.
int64_t Elements(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t dim : dims) {
    count *= dim;
    if (count > kMaxDataElements) return -1;
  }
  return count;
}

// Reshape, Squeeze, Unsqueeze, Flatten, Identity: the flattened contents do not change.
std::optional<onnx::TensorShapeProto> SameContents(const onnx::NodeProto& /*node*/,
                                                   const std::vector<DataRuleInput>& inputs) {
  if (inputs.empty() || inputs[0].values == nullptr) return std::nullopt;
  return *inputs[0].values;
}

// Cast: the same contents; to bool, every known value becomes 0 or 1.
std::optional<onnx::TensorShapeProto> CastRule(const onnx::NodeProto& node,
                                               const std::vector<DataRuleInput>& inputs) {
  if (inputs.size() != 1 || inputs[0].values == nullptr) return std::nullopt;
  onnx::TensorShapeProto out = *inputs[0].values;
  if (IntAttribute(node, "to", 0) != onnx::TensorProto::BOOL) return out;
  for (Dimension& dim : *out.mutable_dim()) {
    if (dim.has_dim_value()) {
      dim.set_dim_value(dim.dim_value() != 0 ? 1 : 0);
    } else {
      dim = Dimension();
    }
  }
  return out;
}

// Transpose: output axis i is input axis perm[i] (default: the axes reversed).
std::optional<onnx::TensorShapeProto> TransposeRule(const onnx::NodeProto& node,
                                                    const std::vector<DataRuleInput>& inputs) {
  if (inputs.size() != 1 || inputs[0].values == nullptr) return std::nullopt;
  const std::optional<std::vector<int64_t>> dims = ContentDims(inputs[0]);
  if (!dims || Elements(*dims) != inputs[0].values->dim_size()) return std::nullopt;
  const size_t rank = dims->size();
  std::vector<int64_t> perm(rank);
  for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(rank - 1 - i);
  if (const onnx::AttributeProto* attribute = Attribute(node, "perm")) {
    perm.assign(attribute->ints().begin(), attribute->ints().end());
  }
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < rank; ++i) {
    if (sorted.size() != rank || sorted[i] != static_cast<int64_t>(i)) return std::nullopt;
  }
  std::vector<int64_t> strides(rank, 1);  // the input's, row-major
  for (size_t axis = rank; axis-- > 1;) strides[axis - 1] = strides[axis] * (*dims)[axis];
  onnx::TensorShapeProto out;
  const int64_t count = inputs[0].values->dim_size();
  for (int64_t index = 0; index < count; ++index) {
    int64_t rest = index;
    int64_t source = 0;
    for (size_t axis = rank; axis-- > 0;) {
      const int64_t dim = (*dims)[perm[axis]];
      source += (rest % dim) * strides[perm[axis]];
      rest /= dim;
    }
    *out.add_dim() = inputs[0].values->dim(static_cast<int>(source));
  }
  return out;
}

// One axis of a Slice, clamped as ONNX defines it: the first index, the step and the count.
struct SliceAxis {
  int64_t start = 0;
  int64_t step = 1;
  int64_t count = 0;
};

std::optional<SliceAxis> ClampSlice(int64_t start, int64_t end, int64_t step, int64_t dim) {
  if (step == 0 || step == std::numeric_limits<int64_t>::min()) return std::nullopt;
  if (start < 0) start = std::max<int64_t>(start, std::numeric_limits<int64_t>::min() + dim) + dim;
  if (end < 0) end = std::max<int64_t>(end, std::numeric_limits<int64_t>::min() + dim) + dim;
  SliceAxis axis;
  axis.step = step;
  if (dim == 0) return axis;  // nothing to take (and no index to clamp to)
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    axis.count = end > start ? 1 + (end - start - 1) / step : 0;
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    axis.count = start > end ? 1 + (start - end - 1) / -step : 0;
  }
  axis.start = start;
  return axis;
}

// Slice(data, starts, ends[, axes[, steps]]) on contents of any rank.
std::optional<onnx::TensorShapeProto> SliceRule(const onnx::NodeProto& /*node*/,
                                                const std::vector<DataRuleInput>& inputs) {
  if (inputs.size() < 3 || inputs[0].values == nullptr) return std::nullopt;
  const std::optional<std::vector<int64_t>> dims = ContentDims(inputs[0]);
  const auto starts = KnownValues(inputs[1].values);
  const auto ends = KnownValues(inputs[2].values);
  if (!dims || !starts || !ends || starts->size() != ends->size()) return std::nullopt;
  if (Elements(*dims) != inputs[0].values->dim_size()) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(dims->size());
  std::vector<int64_t> axes(starts->size());
  std::vector<int64_t> steps(starts->size(), 1);
  for (size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int64_t>(i);
  if (inputs.size() > 3 && inputs[3].present) {
    const auto given = KnownValues(inputs[3].values);
    if (!given || given->size() != axes.size()) return std::nullopt;
    axes = *given;
  }
  if (inputs.size() > 4 && inputs[4].present) {
    const auto given = KnownValues(inputs[4].values);
    if (!given || given->size() != steps.size()) return std::nullopt;
    steps = *given;
  }
  std::vector<SliceAxis> plan(rank);
  for (int64_t axis = 0; axis < rank; ++axis) plan[axis] = {0, 1, (*dims)[axis]};
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (axis < 0 || axis >= rank) return std::nullopt;
    const std::optional<SliceAxis> clamped =
        ClampSlice((*starts)[i], (*ends)[i], steps[i], (*dims)[axis]);
    if (!clamped) return std::nullopt;
    plan[axis] = *clamped;
  }
  std::vector<int64_t> strides(rank, 1);
  for (int64_t axis = rank - 1; axis > 0; --axis) strides[axis - 1] = strides[axis] * (*dims)[axis];
  int64_t count = 1;
  for (const SliceAxis& axis : plan) count *= axis.count;
  onnx::TensorShapeProto out;
  for (int64_t index = 0; index < count; ++index) {
    int64_t rest = index;
    int64_t source = 0;
    for (int64_t axis = rank - 1; axis >= 0; --axis) {
      const int64_t coordinate = rest % plan[axis].count;
      rest /= plan[axis].count;
      source += (plan[axis].start + coordinate * plan[axis].step) * strides[axis];
    }
    *out.add_dim() = inputs[0].values->dim(static_cast<int>(source));
  }
  return out;
}

// The single integer or bool value of ConstantOfShape's `value` attribute, else nullopt (the
// default is a float 0, whose contents these rules do not compute).
std::optional<int64_t> FillValue(const onnx::NodeProto& node) {
  const onnx::AttributeProto* attribute = Attribute(node, "value");
  if (attribute == nullptr || !attribute->has_t()) return std::nullopt;
  const onnx::TensorProto& tensor = attribute->t();
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
  try {
    if (tensor.data_type() == onnx::TensorProto::INT64) {
      const std::vector<int64_t> values = onnx::ParseData<int64_t>(&tensor);
      if (values.size() == 1) return values[0];
    } else if (tensor.data_type() == onnx::TensorProto::INT32) {
      const std::vector<int32_t> values = onnx::ParseData<int32_t>(&tensor);
      if (values.size() == 1) return values[0];
    } else if (tensor.data_type() == onnx::TensorProto::BOOL) {
      if (tensor.has_raw_data() && tensor.raw_data().size() == 1) return tensor.raw_data()[0] != 0;
      if (tensor.int32_data_size() == 1) return tensor.int32_data(0) != 0;
    }
  } catch (const std::exception&) {
    // malformed contents: not known
  }
  return std::nullopt;
}

// ConstantOfShape(shape): the product of shape's values, each the `value` attribute.
std::optional<onnx::TensorShapeProto> ConstantOfShapeRule(
    const onnx::NodeProto& node, const std::vector<DataRuleInput>& inputs) {
  if (inputs.size() != 1) return std::nullopt;
  const std::optional<std::vector<int64_t>> shape = KnownValues(inputs[0].values);
  const std::optional<int64_t> value = FillValue(node);
  if (!shape || !value) return std::nullopt;
  int64_t count = 1;
  for (int64_t dim : *shape) {
    if (dim < 0) return std::nullopt;
    count *= dim;
    if (count > kMaxDataElements) return std::nullopt;
  }
  onnx::TensorShapeProto out;
  for (int64_t i = 0; i < count; ++i) out.add_dim()->set_dim_value(*value);
  return out;
}

}  // namespace

DataRule FindLayoutDataRule(std::string_view op_type) {
  static const std::pair<std::string_view, DataRule> kRules[] = {
      {"Reshape", &SameContents},
      {"Squeeze", &SameContents},
      {"Unsqueeze", &SameContents},
      {"Flatten", &SameContents},
      {"Identity", &SameContents},
      {"Cast", &CastRule},
      {"Transpose", &TransposeRule},
      {"Slice", &SliceRule},
      {"ConstantOfShape", &ConstantOfShapeRule},
  };
  for (const auto& [name, rule] : kRules) {
    if (name == op_type) return rule;
  }
  return nullptr;
}

}  // namespace hyperplan::onnx_import
