// Symmetric 4- or 8-bit block quantization in the layout of ONNX Runtime's com.microsoft
// MatMulNBits: for output column n and each block of `block_size` consecutive K rows,
// scale = max|w| / (2^(bits-1) - 1) and q = clamp(round(w / scale), -2^(bits-1), 2^(bits-1) - 1)
// + 2^(bits-1) (the operator's default zero point, so no zero_points input is needed).
// 4 bits: two codes per byte, the lower K index in the low nibble; 8 bits: one code per byte.
// B is [N, k_blocks, block_size * bits / 8] uint8 and scales [N, k_blocks].
// Cost: O(K * N) time and memory. Limits: bits 4 and 8 only; a tail block shorter than
// block_size (K not a multiple) is padded with the zero point, which dequantizes to zero.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "elem_type.h"

namespace hyperplan::gen {

struct QuantizedNBits {
  int64_t k = 0;
  int64_t n = 0;
  int64_t bits = 0;
  int64_t block_size = 0;
  int64_t k_blocks = 0;
  std::string packed;         // N * k_blocks * block_size * bits / 8 bytes
  std::vector<float> scales;  // N * k_blocks, already rounded through the scale type
};

// Bytes of one block of B: block_size * bits / 8.
int64_t BlockBytes(int64_t block_size, int64_t bits);

// `weight` is row-major [K, N] (what a standard MatMul multiplies by on the right).
QuantizedNBits QuantizeNBits(const std::vector<float>& weight, int64_t k, int64_t n,
                             int64_t block_size, int64_t bits, ElemType scale_type);

// The [K, N] row-major weight the quantized form stands for: (q - zero point) * scale.
std::vector<float> DequantizeNBits(const QuantizedNBits& quantized);

}  // namespace hyperplan::gen
