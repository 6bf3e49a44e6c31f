// Test support: the bytes an ONNX initializer holds, counted from its dims and element type
// (not the generator's own tally), for the generator's byte-count tests.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>

namespace hyperplan::testing {

// Bytes per element of the types the generator writes; 1 for the byte-sized ones (uint8
// codes, int8, float8).
inline int64_t OnnxElementBytes(int32_t onnx_type) {
  switch (onnx_type) {
    case onnx::TensorProto_DataType_FLOAT:
      return 4;
    case onnx::TensorProto_DataType_BFLOAT16:
    case onnx::TensorProto_DataType_FLOAT16:
      return 2;
    case onnx::TensorProto_DataType_INT64:
      return 8;
    default:
      return 1;
  }
}

inline int64_t OnnxTensorBytes(const onnx::TensorProto& tensor) {
  int64_t elements = 1;
  for (int64_t d : tensor.dims()) elements *= d;
  return elements * OnnxElementBytes(tensor.data_type());
}

}  // namespace hyperplan::testing
