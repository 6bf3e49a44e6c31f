// Tensor sizing: a value's element type, concrete shape and bytes from its ONNX type.
//
// Bytes are dims x element size (dtype.h: sub-byte types pack two elements per byte, rounded
// up per tensor), never read from stored data, so an external-data initializer is sized without
// touching its file. When a size cannot be known (unknown rank or dim, a string or non-tensor
// value, element type 0) the value keeps size_known = false, bytes = 0, and the reason is
// returned; Value::shape is filled only when every dim is known. An element type code nobody
// knows, a negative dim, or an element count beyond int64 is an Error naming the value.
// Dims left symbolic are handed back so the caller can tell an unbound --dim from a dim that
// inference could not find. Cost: O(rank).
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "onnx/import_context.h"

namespace hyperplan::onnx_import {

struct SizingResult {
  std::string unknown_reason;              // empty when the size is known
  std::vector<std::string> symbolic_dims;  // dim_param texts in the shape, in axis order
};

// Sizes `value` (whose name is set) from a type found by inference; `type` may be null.
// `where` prefixes error messages.
SizingResult SizeFromType(const onnx::TypeProto* type, Value& value, const std::string& where,
                          const ImportContext& context);

// Sizes an initializer from its own dims and data type; marks external data.
SizingResult SizeFromInitializer(const onnx::TensorProto& tensor, Value& value,
                                 const std::string& where, const ImportContext& context);

// A sparse initializer is held dense at run time; sized by its dense shape.
SizingResult SizeFromSparseInitializer(const onnx::SparseTensorProto& sparse, Value& value,
                                       const std::string& where, const ImportContext& context);

}  // namespace hyperplan::onnx_import
