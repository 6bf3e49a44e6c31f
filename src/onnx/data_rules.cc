// Contents of shape tensors through Range and ScatterND (see data_rules.h).
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
std::optional<onnx::TensorShapeProto> Range(const std::vector<DataRuleInput>& inputs) {
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
std::optional<onnx::TensorShapeProto> ScatterNd(const std::vector<DataRuleInput>& inputs) {
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
  return nullptr;
}

}  // namespace hyperplan::onnx_import
