// Type merge: combines a value's declared type (the model's value_info) with the type inferred
// from its producer.
//
// Follows ONNX's own merge: an inferred dim value wins, a declared value fills a dim inference
// left open, and inferred text replaces declared text. Where ONNX would throw (element types,
// ranks or dim values that disagree) this keeps the inferred side and reports the disagreement,
// so one stale annotation costs a warning instead of all inference. Cost: O(rank).
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

namespace hyperplan::onnx_import {

// Merges `declared` into `inferred` in place. Returns a description of the disagreement, if
// any ("declared float16 [2,4], inferred float [2,3]").
std::optional<std::string> MergeDeclaredIntoInferred(const onnx::TypeProto& declared,
                                                     onnx::TypeProto& inferred);

// True when `type` is a tensor with a known element type and every dim a value: nothing left
// for inference to add.
bool IsCompleteTensorType(const onnx::TypeProto* type);

// "float16 [2,batch,?]" for messages.
std::string DescribeType(const onnx::TypeProto& type);

}  // namespace hyperplan::onnx_import
