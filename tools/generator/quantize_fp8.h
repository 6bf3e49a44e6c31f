// Float8 (e4m3fn) block quantization as DeepSeek-V3's checkpoint stores its projections: for
// each block of `block_rows` x `block_cols` of a [K, N] matrix (of each matrix of a batch), one
// float32 scale = max|w| / 448 (weight_scale_inv: the value a reader multiplies by), and one
// e4m3fn code per weight, code = e4m3fn(w / scale) rounded to nearest even, saturating at 448.
// Cost: O(batch * K * N) time and memory. Limits: e4m3fn only (no e5m2); NaN and infinity are
// never produced (weights are finite); tail blocks (K or N not a multiple) take the rows and
// columns that exist.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hyperplan::gen {

inline constexpr float kFloat8E4M3Max = 448.0f;

// The e4m3fn byte nearest `value` (round to nearest even; beyond +-448 saturates to +-448).
uint8_t FloatToFloat8E4M3(float value);
float Float8E4M3ToFloat(uint8_t code);

struct QuantizedFp8 {
  std::string codes;          // batch * K * N bytes, row-major like the weight
  std::vector<float> scales;  // batch * ceil(K / block_rows) * ceil(N / block_cols)
};

// `weight` is row-major [batch, K, N].
QuantizedFp8 QuantizeFp8(const std::vector<float>& weight, int64_t batch, int64_t k, int64_t n,
                         int64_t block_rows, int64_t block_cols);

}  // namespace hyperplan::gen
