#include "weight_store.h"

#include <stdexcept>
#include <utility>

#include "prng.h"

namespace hyperplan::gen {

namespace {

int64_t ElementCount(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return count;
}

void AddEntry(onnx::TensorProto* tensor, const char* key, std::string value) {
  auto* entry = tensor->add_external_data();
  entry->set_key(key);
  entry->set_value(std::move(value));
}

}  // namespace

WeightStore::WeightStore(bool external, std::string location, uint64_t seed)
    : external_(external), location_(std::move(location)), seed_(seed) {}

void WeightStore::Describe(onnx::TensorProto* tensor, const std::string& name,
                           const std::vector<int64_t>& dims, int32_t onnx_type,
                           int64_t length_bytes) {
  tensor->set_name(name);
  tensor->set_data_type(onnx_type);
  for (int64_t d : dims) tensor->add_dims(d);
  ++tensor_count_;
  total_bytes_ += length_bytes;
  if (!external_) return;
  const int64_t offset = (next_offset_bytes_ + kExternalAlignmentBytes - 1) /
                         kExternalAlignmentBytes * kExternalAlignmentBytes;
  tensor->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  AddEntry(tensor, "location", location_);
  AddEntry(tensor, "offset", std::to_string(offset));
  AddEntry(tensor, "length", std::to_string(length_bytes));
  next_offset_bytes_ = offset + length_bytes;
}

void WeightStore::AddFloat(onnx::TensorProto* tensor, const std::string& name,
                           const std::vector<int64_t>& dims, ElemType type,
                           const std::function<std::vector<float>()>& values) {
  const int64_t count = ElementCount(dims);
  Describe(tensor, name, dims, OnnxType(type), count * ElemSizeBytes(type));
  if (external_) return;
  const std::vector<float> data = values();
  if (static_cast<int64_t>(data.size()) != count)
    throw std::logic_error("weight " + name + ": value count does not match its dims");
  std::string* raw = tensor->mutable_raw_data();
  raw->reserve(static_cast<size_t>(count * ElemSizeBytes(type)));
  for (float v : data) AppendValue(type, v, raw);
}

void WeightStore::AddBytes(onnx::TensorProto* tensor, const std::string& name,
                           const std::vector<int64_t>& dims, int32_t onnx_type,
                           int64_t elem_size_bytes, const std::function<std::string()>& bytes) {
  const int64_t length = ElementCount(dims) * elem_size_bytes;
  Describe(tensor, name, dims, onnx_type, length);
  if (external_) return;
  std::string data = bytes();
  if (static_cast<int64_t>(data.size()) != length)
    throw std::logic_error("weight " + name + ": byte count does not match its dims");
  tensor->set_raw_data(std::move(data));
}

std::vector<float> WeightStore::Uniform(const std::string& key, int64_t count, float bound) const {
  Prng prng(StreamSeed(seed_, key));
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = prng.Uniform(bound);
  return values;
}

}  // namespace hyperplan::gen
