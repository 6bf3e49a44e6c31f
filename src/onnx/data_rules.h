// Data rules: the integer contents of small shape tensors through operators that ONNX 1.12
// propagates no contents for, but that exporters put in shape computations.
//
// ONNX 1.12 propagates contents (data propagation) through Shape, Size, Gather, Slice, Concat,
// Squeeze, Unsqueeze, Cast, Add, Sub and Mul only. torch.onnx writes `x.view(n, -1)` and
// friends as chains that also go through Range and ScatterND; without their contents the
// Reshape after them has no shape, and the model's output gets only the symbol the exporter
// invented for it (`Gemmlogits_dim_0`), which a user would then be asked to bind. These rules
// compute the contents exactly, from inputs whose contents are known: Range(start, limit,
// delta), and ScatterND on a 1-D tensor (indices [k, 1]). Contents are flattened int64 values,
// each a value or a symbol, as ONNX's own data propagation represents them.
// Cost: linear in the elements. Limits: results over kMaxDataElements elements are not made
// (shape tensors are small); a symbol where a value is needed leaves the result unknown.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string_view>
#include <vector>

namespace hyperplan::onnx_import {

inline constexpr int kMaxDataElements = 1024;

struct DataRuleInput {
  const onnx::TensorShapeProto* values = nullptr;  // flattened contents; nullptr: unknown
  int rank = -1;                                   // -1: unknown
};

// Inputs' contents -> the first output's contents, when they determine it.
using DataRule = std::optional<onnx::TensorShapeProto> (*)(const std::vector<DataRuleInput>&);

// The rule for an operator of ai.onnx (`domain` "" or "ai.onnx"), or nullptr.
DataRule FindDataRule(std::string_view domain, std::string_view op_type);

}  // namespace hyperplan::onnx_import
