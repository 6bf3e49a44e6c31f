#include "quantize_nbits.h"

#include <algorithm>
#include <cmath>

namespace hyperplan::gen {

namespace {

int ZeroPoint(int64_t bits) { return 1 << (bits - 1); }

// Writes `code` at position `index` of a block's bytes.
void StoreCode(char* blob, int64_t index, int64_t bits, int code) {
  auto& byte = reinterpret_cast<unsigned char&>(blob[bits == 8 ? index : index / 2]);
  if (bits == 8) {
    byte = static_cast<unsigned char>(code);
  } else {
    byte = (index % 2 == 0) ? static_cast<unsigned char>((byte & 0xF0) | code)
                            : static_cast<unsigned char>((byte & 0x0F) | (code << 4));
  }
}

int LoadCode(const char* blob, int64_t index, int64_t bits) {
  const auto byte = static_cast<unsigned char>(blob[bits == 8 ? index : index / 2]);
  if (bits == 8) return byte;
  return (index % 2 == 0) ? (byte & 0x0F) : (byte >> 4);
}

}  // namespace

int64_t BlockBytes(int64_t block_size, int64_t bits) { return block_size * bits / 8; }

QuantizedNBits QuantizeNBits(const std::vector<float>& weight, int64_t k, int64_t n,
                             int64_t block_size, int64_t bits, ElemType scale_type) {
  QuantizedNBits q;
  q.k = k;
  q.n = n;
  q.bits = bits;
  q.block_size = block_size;
  q.k_blocks = (k + block_size - 1) / block_size;
  const int64_t blob_bytes = BlockBytes(block_size, bits);
  const int zero = ZeroPoint(bits);
  const auto max_code = static_cast<float>(zero - 1);
  const char fill = static_cast<char>(bits == 8 ? zero : zero * 0x11);  // every code the zero
  q.packed.assign(static_cast<size_t>(n * q.k_blocks * blob_bytes), fill);
  q.scales.resize(static_cast<size_t>(n * q.k_blocks));
  for (int64_t col = 0; col < n; ++col) {
    for (int64_t block = 0; block < q.k_blocks; ++block) {
      const int64_t row_begin = block * block_size;
      const int64_t row_end = std::min(k, row_begin + block_size);
      float abs_max = 0.0f;
      for (int64_t row = row_begin; row < row_end; ++row)
        abs_max = std::max(abs_max, std::fabs(weight[static_cast<size_t>(row * n + col)]));
      // Codes are computed against the scale as stored, so dequantization is exact to it.
      const float scale = RoundThrough(scale_type, abs_max > 0.0f ? abs_max / max_code : 1.0f);
      q.scales[static_cast<size_t>(col * q.k_blocks + block)] = scale;
      char* blob = q.packed.data() + (col * q.k_blocks + block) * blob_bytes;
      for (int64_t row = row_begin; row < row_end; ++row) {
        const float w = weight[static_cast<size_t>(row * n + col)];
        const float code = std::clamp(std::nearbyint(w / scale), -max_code - 1.0f, max_code);
        StoreCode(blob, row - row_begin, bits, static_cast<int>(code) + zero);
      }
    }
  }
  return q;
}

std::vector<float> DequantizeNBits(const QuantizedNBits& q) {
  std::vector<float> weight(static_cast<size_t>(q.k * q.n));
  const int64_t blob_bytes = BlockBytes(q.block_size, q.bits);
  const int zero = ZeroPoint(q.bits);
  for (int64_t col = 0; col < q.n; ++col) {
    for (int64_t row = 0; row < q.k; ++row) {
      const int64_t block = row / q.block_size;
      const char* blob = q.packed.data() + (col * q.k_blocks + block) * blob_bytes;
      const int code = LoadCode(blob, row % q.block_size, q.bits);
      weight[static_cast<size_t>(row * q.n + col)] =
          static_cast<float>(code - zero) * q.scales[static_cast<size_t>(col * q.k_blocks + block)];
    }
  }
  return weight;
}

}  // namespace hyperplan::gen
