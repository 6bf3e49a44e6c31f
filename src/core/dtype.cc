// Element type sizes and names (see dtype.h).
#include "hyperplan/dtype.h"

#include <array>
#include <limits>
#include <ostream>

namespace hyperplan {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  int bits;
};

constexpr std::array<DTypeInfo, 24> kDTypes = {{
    {DType::kUndefined, "undefined", 0},
    {DType::kFloat32, "float", 32},
    {DType::kUint8, "uint8", 8},
    {DType::kInt8, "int8", 8},
    {DType::kUint16, "uint16", 16},
    {DType::kInt16, "int16", 16},
    {DType::kInt32, "int32", 32},
    {DType::kInt64, "int64", 64},
    {DType::kString, "string", 0},
    {DType::kBool, "bool", 8},
    {DType::kFloat16, "float16", 16},
    {DType::kFloat64, "double", 64},
    {DType::kUint32, "uint32", 32},
    {DType::kUint64, "uint64", 64},
    {DType::kComplex64, "complex64", 64},
    {DType::kComplex128, "complex128", 128},
    {DType::kBFloat16, "bfloat16", 16},
    {DType::kFloat8E4M3FN, "float8e4m3fn", 8},
    {DType::kFloat8E4M3FNUZ, "float8e4m3fnuz", 8},
    {DType::kFloat8E5M2, "float8e5m2", 8},
    {DType::kFloat8E5M2FNUZ, "float8e5m2fnuz", 8},
    {DType::kUint4, "uint4", 4},
    {DType::kInt4, "int4", 4},
    {DType::kFloat4E2M1, "float4e2m1", 4},
}};

// The table is indexed by the enumerator's value; this keeps the two in step.
constexpr bool TableMatchesEnum() {
  for (size_t i = 0; i < kDTypes.size(); ++i) {
    if (static_cast<size_t>(kDTypes[i].dtype) != i) return false;
  }
  return true;
}
static_assert(TableMatchesEnum());

}  // namespace

int BitsPerElement(DType dtype) {
  auto index = static_cast<size_t>(dtype);
  return index < kDTypes.size() ? kDTypes[index].bits : 0;
}

std::optional<int64_t> StorageBytes(DType dtype, int64_t elements) {
  const int64_t bits = BitsPerElement(dtype);
  if (bits == 0 || elements < 0) return std::nullopt;
  if (elements > (std::numeric_limits<int64_t>::max() - 7) / bits) return std::nullopt;
  return (elements * bits + 7) / 8;
}

std::string_view DTypeName(DType dtype) {
  auto index = static_cast<size_t>(dtype);
  return index < kDTypes.size() ? kDTypes[index].name : "undefined";
}

std::ostream& operator<<(std::ostream& out, DType dtype) { return out << DTypeName(dtype); }

std::optional<DType> ParseDType(std::string_view name) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.name == name && info.dtype != DType::kUndefined) return info.dtype;
  }
  // Common aliases used in profiles.
  if (name == "float32" || name == "fp32") return DType::kFloat32;
  if (name == "float64" || name == "fp64") return DType::kFloat64;
  if (name == "fp16") return DType::kFloat16;
  if (name == "bf16") return DType::kBFloat16;
  if (name == "fp8" || name == "float8") return DType::kFloat8E4M3FN;
  if (name == "fp4" || name == "float4") return DType::kFloat4E2M1;
  return std::nullopt;
}

std::optional<DType> DTypeFromCode(int32_t code) {
  if (code <= 0 || code >= static_cast<int32_t>(kDTypes.size())) return std::nullopt;
  return static_cast<DType>(code);
}

}  // namespace hyperplan
