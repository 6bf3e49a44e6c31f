// Data rules: the integer contents of small shape tensors through operators that ONNX 1.12
// propagates no contents for (or only for 1-D contents), but that exporters put in shape
// computations, so that a Pad's pads, a Reshape's shape, an Expand's shape or a Slice's ends
// computed from Shape become known.
//
// ONNX 1.12 propagates contents (data propagation) through Shape, Size, Gather, Slice, Concat,
// Squeeze, Unsqueeze, Cast, Add, Sub and Mul only, and only for scalars and 1-D tensors.
// torch.onnx writes `x.view(n, -1)` through Range and ScatterND, a Swin window's padding as
// `(w - W % w) % w` (Mod, Sub, Div), F.pad's pads as Concat -> ConstantOfShape -> Reshape
// [-1, 2] -> Slice (step -1) -> Transpose -> Reshape [-1] on a 2-D tensor, and an `expand` as
// Where(Equal(size, -1), 1, size). Without their contents the node after them has no shape,
// and the model's output gets only the symbol the exporter invented (`Gemmlogits_dim_0`).
// These rules compute contents exactly from inputs whose contents are known:
//   elementwise (numpy broadcasting): Div (truncating, as integer Div is), Mod (fmod 0 and 1),
//     Max, Min, Equal, Less, Greater, LessOrEqual, GreaterOrEqual, And, Or, Xor, Not, Where;
//   layout: Reshape, Squeeze, Unsqueeze, Flatten, Identity (contents unchanged), Transpose,
//     Slice (any rank, negative steps), Expand, ConstantOfShape, Cast;
//   generators: Range(start, limit, delta), ScatterND on 1-D data (indices [k, 1]).
// Contents are the flattened values of an integer or bool tensor (bool as 0/1), each a value
// or a symbol, as ONNX's own data propagation represents them; a symbol in an arithmetic rule
// makes that element unknown, and layout rules carry it where it moves. Where a rule exists it
// runs instead of ONNX's (which would read multi-dimensional contents as 1-D).
// Cost: linear in the elements. Limits: results over kMaxDataElements elements are not made
// (shape tensors are small); float contents are not computed; an input whose dims are unknown
// counts as 1-D when the rule needs its dims.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace hyperplan::onnx_import {

inline constexpr int kMaxDataElements = 1024;

struct DataRuleInput {
  bool present = false;                            // false: an optional input left out ("")
  const onnx::TensorShapeProto* values = nullptr;  // flattened contents; nullptr: unknown
  int rank = -1;                                   // -1: unknown
  std::optional<std::vector<int64_t>> dims;        // every dim known, else nullopt
  int32_t elem_type = 0;                           // onnx::TensorProto::DataType; 0: unknown
};

// A node's inputs' contents -> its first output's contents, when they determine it.
using DataRule = std::optional<onnx::TensorShapeProto> (*)(const onnx::NodeProto& node,
                                                           const std::vector<DataRuleInput>&);

// The rule for an operator of ai.onnx (`domain` "" or "ai.onnx"), or nullptr.
DataRule FindDataRule(std::string_view domain, std::string_view op_type);

// The rule families, by operator name (data_rules_elementwise.cc, data_rules_layout.cc).
DataRule FindElementwiseDataRule(std::string_view op_type);
DataRule FindLayoutDataRule(std::string_view op_type);

// Helpers the rule families share.
// The dims of `input` as a rule reads them: its known dims, else 1-D of its contents' length.
std::optional<std::vector<int64_t>> ContentDims(const DataRuleInput& input);
// Every element of `values` known (no symbol, no unknown): the integers, else nullopt.
std::optional<std::vector<int64_t>> KnownValues(const onnx::TensorShapeProto* values);
// Whether a type holds integers or bools, whose contents these rules compute.
bool IsIntegerOrBool(int32_t elem_type);
// The integer attribute `name` of `node`, else `fallback`.
int64_t IntAttribute(const onnx::NodeProto& node, std::string_view name, int64_t fallback);

}  // namespace hyperplan::onnx_import
