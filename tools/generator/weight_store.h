// Weight initializers of a generated model: inline raw_data (values the caller computes, or
// uniform random values from a stream keyed by the tensor name) or external-data references
// (location, offset, length) into a weights file that is never written.
// Cost: inline, O(elements) time and bytes; external, O(1) per tensor: no element is ever made,
// so a terabyte-scale model costs what its graph costs. Limits: external offsets follow call
// order, each aligned to 4096 bytes, so the same calls give the same layout; inline weights must
// keep the model under protobuf's 2 GiB message limit (the caller checks the total).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "elem_type.h"

namespace hyperplan::gen {

inline constexpr int64_t kExternalAlignmentBytes = 4096;

class WeightStore {
 public:
  WeightStore(bool external, std::string location, uint64_t seed);

  // Fills `tensor` (name, dims, type, data). `values` runs only for inline weights.
  void AddFloat(onnx::TensorProto* tensor, const std::string& name,
                const std::vector<int64_t>& dims, ElemType type,
                const std::function<std::vector<float>()>& values);
  // Same for weights already in their stored byte form (packed 4-bit blocks).
  void AddBytes(onnx::TensorProto* tensor, const std::string& name,
                const std::vector<int64_t>& dims, int32_t onnx_type, int64_t elem_size_bytes,
                const std::function<std::string()>& bytes);

  // `count` values uniform in [-bound, bound), from the stream keyed by `key`.
  std::vector<float> Uniform(const std::string& key, int64_t count, float bound) const;

  bool external() const { return external_; }
  int64_t tensor_count() const { return tensor_count_; }
  int64_t total_bytes() const { return total_bytes_; }
  // One past the last byte the weights file would hold.
  int64_t file_end_bytes() const { return next_offset_bytes_; }

 private:
  void Describe(onnx::TensorProto* tensor, const std::string& name,
                const std::vector<int64_t>& dims, int32_t onnx_type, int64_t length_bytes);

  bool external_;
  std::string location_;
  uint64_t seed_;
  int64_t tensor_count_ = 0;
  int64_t total_bytes_ = 0;
  int64_t next_offset_bytes_ = 0;
};

}  // namespace hyperplan::gen
