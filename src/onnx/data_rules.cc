// Contents of shape tensors through Range and ScatterND, the rule table and the helpers the
// rule families share (see data_rules.h).
#include "onnx/data_rules.h"

#include "onnx/import_context.h"

namespace hyperplan::onnx_import {
namespace {

// The single value of a known scalar (or one-element) input.
std::optional<int64_t> ScalarValue(const DataRuleInput& input) {
  const onnx::TensorShapeProto* data = input.values;
  if (data == nullptr || data->dim_size() != 1 || !data->dim(0).has_dim_value()) {
    return std::nullopt;
  }
  return data->dim(0).dim_value();
}

// Range(start, limit, delta): start, start + delta, ... while before limit;
// max(ceil((limit - start) / delta), 0) elements.
std::optional<onnx::TensorShapeProto> Range(const onnx::NodeProto& /*node*/,
                                            const std::vector<DataRuleInput>& inputs) {
  if (inputs.size() != 3) return std::nullopt;
  const std::optional<int64_t> start = ScalarValue(inputs[0]);
  const std::optional<int64_t> limit = ScalarValue(inputs[1]);
  const std::optional<int64_t> delta = ScalarValue(inputs[2]);
  if (!start || !limit || !delta || *delta == 0) return std::nullopt;
  const __int128 span = static_cast<__int128>(*limit) - *start;
  __int128 count = span / *delta;
  if (count * *delta != span) ++count;  // same signs here whenever count > 0: round up
  if (count < 0) count = 0;
  if (count > kMaxDataElements) return std::nullopt;
  onnx::TensorShapeProto out;
  for (__int128 i = 0; i < count; ++i) {
    out.add_dim()->set_dim_value(static_cast<int64_t>(*start + i * *delta));
  }
  return out;
}

// ScatterND(data, indices, updates) on 1-D data: indices [k, 1] (k values, flattened), updates
// [k]; each update replaces the element its index names (negative indices count from the
// end). Elements of `data` may be symbols; they are copied as they are.
std::optional<onnx::TensorShapeProto> ScatterNd(const onnx::NodeProto& /*node*/,
                                                const std::vector<DataRuleInput>& inputs) {
  if (inputs.size() < 3 || inputs[0].rank != 1 || inputs[1].rank != 2) return std::nullopt;
  if (!inputs[0].values || !inputs[1].values || !inputs[2].values) return std::nullopt;
  const onnx::TensorShapeProto& indices = *inputs[1].values;
  const onnx::TensorShapeProto& updates = *inputs[2].values;
  if (indices.dim_size() != updates.dim_size()) return std::nullopt;  // indices are [k, 1]
  onnx::TensorShapeProto out = *inputs[0].values;
  const int64_t size = out.dim_size();
  for (int i = 0; i < indices.dim_size(); ++i) {
    if (!indices.dim(i).has_dim_value()) return std::nullopt;
    int64_t index = indices.dim(i).dim_value();
    if (index < 0) index += size;
    if (index < 0 || index >= size) return std::nullopt;  // ONNX calls this an error
    *out.mutable_dim(static_cast<int>(index)) = updates.dim(i);
  }
  return out;
}

}  // namespace

DataRule FindDataRule(std::string_view domain, std::string_view op_type) {
  if (!IsDefaultDomain(domain)) return nullptr;
  if (op_type == "Range") return &Range;
  if (op_type == "ScatterND") return &ScatterNd;
  if (DataRule rule = FindElementwiseDataRule(op_type)) return rule;
  return FindLayoutDataRule(op_type);
}

std::optional<std::vector<int64_t>> ContentDims(const DataRuleInput& input) {
  if (input.dims) {
    // A malformed model may declare negative or huge dims; contents are small.
    for (int64_t dim : *input.dims) {
      if (dim < 0 || dim > kMaxDataElements) return std::nullopt;
    }
    return input.dims;
  }
  if (input.values == nullptr || input.rank > 1) return std::nullopt;
  return std::vector<int64_t>{input.values->dim_size()};
}

std::optional<std::vector<int64_t>> KnownValues(const onnx::TensorShapeProto* values) {
  if (values == nullptr) return std::nullopt;
  std::vector<int64_t> known;
  known.reserve(values->dim_size());
  for (const onnx::TensorShapeProto::Dimension& dim : values->dim()) {
    if (!dim.has_dim_value()) return std::nullopt;
    known.push_back(dim.dim_value());
  }
  return known;
}

bool IsIntegerOrBool(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL:
      return true;
    default:
      return false;
  }
}

int64_t IntAttribute(const onnx::NodeProto& node, std::string_view name, int64_t fallback) {
  for (const onnx::AttributeProto& attribute : node.attribute()) {
    if (attribute.name() == name && attribute.type() == onnx::AttributeProto::INT) {
      return attribute.i();
    }
  }
  return fallback;
}

}  // namespace hyperplan::onnx_import
