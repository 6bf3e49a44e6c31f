#include "decoder_context.h"

#include <onnx/onnx_pb.h>

namespace hyperplan::gen {

// TensorProto.FLOAT8E4M3FN (ONNX 1.14): the onnx.proto this builds against (1.12) predates it,
// so the enumerator is spelled by its number.
constexpr int32_t kOnnxFloat8E4M3FN = 17;

int32_t DecoderContext::kv_onnx_type() const {
  switch (options.kv_cache) {
    case KvCache::kInt8:
      return onnx::TensorProto_DataType_INT8;
    case KvCache::kFp8:
      return kOnnxFloat8E4M3FN;
    case KvCache::kModelType:
      break;
  }
  return OnnxType(config.dtype);
}

std::string PastName(int64_t layer, const char* kind) {
  return "past_key_values." + std::to_string(layer) + "." + kind;
}

std::string PresentName(int64_t layer, const char* kind) {
  return "present." + std::to_string(layer) + "." + kind;
}

}  // namespace hyperplan::gen
