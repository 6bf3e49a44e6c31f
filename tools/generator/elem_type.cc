#include "elem_type.h"

#include <onnx/onnx_pb.h>

#include <bit>
#include <cmath>
#include <limits>

namespace hyperplan::gen {

int32_t OnnxType(ElemType type) {
  switch (type) {
    case ElemType::kFloat32:
      return onnx::TensorProto_DataType_FLOAT;
    case ElemType::kBFloat16:
      return onnx::TensorProto_DataType_BFLOAT16;
    case ElemType::kFloat16:
      return onnx::TensorProto_DataType_FLOAT16;
  }
  return onnx::TensorProto_DataType_UNDEFINED;
}

int64_t ElemSizeBytes(ElemType type) { return type == ElemType::kFloat32 ? 4 : 2; }

std::string_view ElemTypeName(ElemType type) {
  switch (type) {
    case ElemType::kFloat32:
      return "float32";
    case ElemType::kBFloat16:
      return "bf16";
    case ElemType::kFloat16:
      return "fp16";
  }
  return "?";
}

std::optional<ElemType> ParseElemType(std::string_view name) {
  if (name == "float32" || name == "fp32" || name == "float") return ElemType::kFloat32;
  if (name == "bf16" || name == "bfloat16") return ElemType::kBFloat16;
  if (name == "fp16" || name == "float16") return ElemType::kFloat16;
  return std::nullopt;
}

float LowestFinite(ElemType type) {
  switch (type) {
    case ElemType::kFloat32:
      return std::numeric_limits<float>::lowest();
    case ElemType::kBFloat16:
      return std::bit_cast<float>(uint32_t{0xFF7F0000});
    case ElemType::kFloat16:
      return -65504.0f;
  }
  return 0.0f;
}

uint16_t FloatToBFloat16Bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  // Adding 0x7FFF plus the lowest kept bit rounds to nearest, ties to even.
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t FloatToHalfBits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return sign | 0x7E00u;
  // 65520 and above round to infinity under round-to-nearest-even.
  if (abs >= 0x477FF000u) return sign | 0x7C00u;
  if (abs < 0x38800000u) {
    // Below the smallest normal half: the result is a multiple of 2^-24, which scaling by a
    // power of two keeps exact before the single rounding in nearbyint.
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  // Rebias the exponent (127 -> 15) and round 23 mantissa bits to 10, ties to even; a carry
  // out of the mantissa correctly bumps the exponent.
  abs += 0xC8000FFFu + ((abs >> 13) & 1u);
  return sign | static_cast<uint16_t>(abs >> 13);
}

namespace {

float HalfBitsToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu;
  const uint32_t mantissa = half & 0x3FFu;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

void AppendLittleEndian(uint64_t value, int bytes_count, std::string* bytes) {
  for (int i = 0; i < bytes_count; ++i)
    bytes->push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

}  // namespace

float RoundThrough(ElemType type, float value) {
  switch (type) {
    case ElemType::kFloat32:
      return value;
    case ElemType::kBFloat16:
      return std::bit_cast<float>(static_cast<uint32_t>(FloatToBFloat16Bits(value)) << 16);
    case ElemType::kFloat16:
      return HalfBitsToFloat(FloatToHalfBits(value));
  }
  return value;
}

void AppendValue(ElemType type, float value, std::string* bytes) {
  switch (type) {
    case ElemType::kFloat32:
      AppendLittleEndian(std::bit_cast<uint32_t>(value), 4, bytes);
      return;
    case ElemType::kBFloat16:
      AppendLittleEndian(FloatToBFloat16Bits(value), 2, bytes);
      return;
    case ElemType::kFloat16:
      AppendLittleEndian(FloatToHalfBits(value), 2, bytes);
      return;
  }
}

}  // namespace hyperplan::gen
