// Symmetric 4-bit block quantization in the layout of ONNX Runtime's com.microsoft MatMulNBits:
// for output column n and each block of `block_size` consecutive K rows, scale = max|w| / 7 and
// q = clamp(round(w / scale), -8, 7) + 8, two codes per byte, the lower K index in the low nibble.
// B is [N, k_blocks, block_size / 2] uint8 and scales [N, k_blocks]; the zero point is the
// operator's default 8, so no zero_points input is needed.
// Cost: O(K * N) time and memory. Limits: 4 bits only; a tail block shorter than block_size
// (K not a multiple) is padded with code 8, which dequantizes to zero.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "elem_type.h"

namespace hyperplan::gen {

struct Quantized4 {
  int64_t k = 0;
  int64_t n = 0;
  int64_t block_size = 0;
  int64_t k_blocks = 0;
  std::string packed;         // N * k_blocks * block_size / 2 bytes
  std::vector<float> scales;  // N * k_blocks, already rounded through the scale type
};

// `weight` is row-major [K, N] (what a standard MatMul multiplies by on the right).
Quantized4 Quantize4(const std::vector<float>& weight, int64_t k, int64_t n, int64_t block_size,
                     ElemType scale_type);

// The [K, N] row-major weight the quantized form stands for: (q - 8) * scale.
std::vector<float> Dequantize4(const Quantized4& quantized);

}  // namespace hyperplan::gen
