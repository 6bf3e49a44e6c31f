#include "quantize4.h"

#include <algorithm>
#include <cmath>

namespace hyperplan::gen {

Quantized4 Quantize4(const std::vector<float>& weight, int64_t k, int64_t n, int64_t block_size,
                     ElemType scale_type) {
  Quantized4 q;
  q.k = k;
  q.n = n;
  q.block_size = block_size;
  q.k_blocks = (k + block_size - 1) / block_size;
  const int64_t blob_bytes = block_size / 2;
  q.packed.assign(static_cast<size_t>(n * q.k_blocks * blob_bytes), static_cast<char>(0x88));
  q.scales.resize(static_cast<size_t>(n * q.k_blocks));
  for (int64_t col = 0; col < n; ++col) {
    for (int64_t block = 0; block < q.k_blocks; ++block) {
      const int64_t row_begin = block * block_size;
      const int64_t row_end = std::min(k, row_begin + block_size);
      float abs_max = 0.0f;
      for (int64_t row = row_begin; row < row_end; ++row)
        abs_max = std::max(abs_max, std::fabs(weight[static_cast<size_t>(row * n + col)]));
      // Codes are computed against the scale as stored, so dequantization is exact to it.
      const float scale = RoundThrough(scale_type, abs_max > 0.0f ? abs_max / 7.0f : 1.0f);
      q.scales[static_cast<size_t>(col * q.k_blocks + block)] = scale;
      char* blob = q.packed.data() + (col * q.k_blocks + block) * blob_bytes;
      for (int64_t row = row_begin; row < row_end; ++row) {
        const float w = weight[static_cast<size_t>(row * n + col)];
        const int code = static_cast<int>(std::clamp(std::nearbyint(w / scale), -8.0f, 7.0f)) + 8;
        const int64_t index = row - row_begin;
        unsigned char& byte = reinterpret_cast<unsigned char&>(blob[index / 2]);
        byte = (index % 2 == 0) ? static_cast<unsigned char>((byte & 0xF0) | code)
                                : static_cast<unsigned char>((byte & 0x0F) | (code << 4));
      }
    }
  }
  return q;
}

std::vector<float> Dequantize4(const Quantized4& q) {
  std::vector<float> weight(static_cast<size_t>(q.k * q.n));
  const int64_t blob_bytes = q.block_size / 2;
  for (int64_t col = 0; col < q.n; ++col) {
    for (int64_t row = 0; row < q.k; ++row) {
      const int64_t block = row / q.block_size;
      const int64_t index = row % q.block_size;
      const auto byte = static_cast<unsigned char>(
          q.packed[static_cast<size_t>((col * q.k_blocks + block) * blob_bytes + index / 2)]);
      const int code = (index % 2 == 0) ? (byte & 0x0F) : (byte >> 4);
      weight[static_cast<size_t>(row * q.n + col)] =
          static_cast<float>(code - 8) * q.scales[static_cast<size_t>(col * q.k_blocks + block)];
    }
  }
  return weight;
}

}  // namespace hyperplan::gen
