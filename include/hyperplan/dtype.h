// DType: tensor element types and their storage sizes.
//
// The enumerators carry the same numbers as ONNX's TensorProto.DataType so that adapters map
// them one to one, but the core knows nothing of ONNX. Sub-byte types (int4, uint4, float4)
// pack two elements per byte, rounded up per tensor. Strings have no static size: StorageBytes
// reports them as unknown and the caller must flag the value.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string_view>

namespace hyperplan {

enum class DType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUint4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
};

// Bits one element occupies; 0 for kString and kUndefined (no static size).
int BitsPerElement(DType dtype);

// Bytes a dense tensor of `elements` elements occupies, or nullopt when the type has no static
// size. Sub-byte types round up to whole bytes.
std::optional<int64_t> StorageBytes(DType dtype, int64_t elements);

// Lower-case names as ONNX spells them ("float", "bfloat16", "float8e4m3fn", "int4", ...).
std::string_view DTypeName(DType dtype);
std::ostream& operator<<(std::ostream& out, DType dtype);  // its name
std::optional<DType> ParseDType(std::string_view name);

// The DType for an integer code from a model, or nullopt for a code hyperplan does not know.
std::optional<DType> DTypeFromCode(int32_t code);

}  // namespace hyperplan
