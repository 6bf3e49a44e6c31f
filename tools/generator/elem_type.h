// Element types of generated weights and activations: the ONNX type code, the width in bytes,
// the most negative finite value (what attention masks add), and float32 -> 16-bit conversion.
// Cost: O(1) per value. Limits: float32, bfloat16 and float16 only; conversions round to
// nearest even, overflow to infinity and keep NaN a NaN; bytes are written little-endian.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hyperplan::gen {

enum class ElemType { kFloat32, kBFloat16, kFloat16 };

// onnx::TensorProto_DataType value of `type`.
int32_t OnnxType(ElemType type);
int64_t ElemSizeBytes(ElemType type);
std::string_view ElemTypeName(ElemType type);
std::optional<ElemType> ParseElemType(std::string_view name);

// The most negative finite value of `type`, as a float32 that converts to it exactly.
float LowestFinite(ElemType type);

uint16_t FloatToBFloat16Bits(float value);
uint16_t FloatToHalfBits(float value);

// `value` after a round trip through `type`: what a reader of the stored tensor sees.
float RoundThrough(ElemType type, float value);

// Appends `value` converted to `type` to `bytes`.
void AppendValue(ElemType type, float value, std::string* bytes);

}  // namespace hyperplan::gen
