#include "quantize_fp8.h"

#include <algorithm>
#include <cmath>

namespace hyperplan::gen {

namespace {

constexpr int kExponentBias = 7;
constexpr uint8_t kMaxMagnitudeCode = 0x7E;  // exponent 15, mantissa 6: 448

uint8_t MagnitudeCode(float magnitude) {
  if (!(magnitude > 0.0f)) return 0;
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = f * 2^exponent, f in [0.5, 1)
  exponent -= 1;                     // magnitude = 1.m * 2^exponent
  if (exponent < 1 - kExponentBias) {
    // Subnormal: steps of 2^-9; 8 steps is the smallest normal, which the code also spells.
    const auto steps = static_cast<int>(std::nearbyint(std::ldexp(magnitude, 9)));
    return static_cast<uint8_t>(std::min(steps, 8));
  }
  auto mantissa = static_cast<int>(std::nearbyint((std::ldexp(magnitude, -exponent) - 1.0f) * 8));
  if (mantissa == 8) {
    mantissa = 0;
    ++exponent;
  }
  const int biased = exponent + kExponentBias;
  if (biased > 15 || (biased == 15 && mantissa == 7)) return kMaxMagnitudeCode;
  return static_cast<uint8_t>(biased << 3 | mantissa);
}

}  // namespace

uint8_t FloatToFloat8E4M3(float value) {
  const uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
  return static_cast<uint8_t>(sign | MagnitudeCode(std::fabs(value)));
}

float Float8E4M3ToFloat(uint8_t code) {
  const int biased = (code >> 3) & 0x0F;
  const int mantissa = code & 0x07;
  const float magnitude =
      biased == 0 ? std::ldexp(static_cast<float>(mantissa), -9)
                  : std::ldexp(1.0f + static_cast<float>(mantissa) / 8.0f, biased - kExponentBias);
  return (code & 0x80) ? -magnitude : magnitude;
}

QuantizedFp8 QuantizeFp8(const std::vector<float>& weight, int64_t batch, int64_t k, int64_t n,
                         int64_t block_rows, int64_t block_cols) {
  const int64_t k_blocks = (k + block_rows - 1) / block_rows;
  const int64_t n_blocks = (n + block_cols - 1) / block_cols;
  QuantizedFp8 q;
  q.codes.resize(static_cast<size_t>(batch * k * n));
  q.scales.resize(static_cast<size_t>(batch * k_blocks * n_blocks));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t kb = 0; kb < k_blocks; ++kb) {
      for (int64_t nb = 0; nb < n_blocks; ++nb) {
        const int64_t rows_end = std::min(k, (kb + 1) * block_rows);
        const int64_t cols_end = std::min(n, (nb + 1) * block_cols);
        auto at = [&](int64_t row, int64_t col) { return (b * k + row) * n + col; };
        float abs_max = 0.0f;
        for (int64_t row = kb * block_rows; row < rows_end; ++row)
          for (int64_t col = nb * block_cols; col < cols_end; ++col)
            abs_max = std::max(abs_max, std::fabs(weight[static_cast<size_t>(at(row, col))]));
        const float scale = abs_max > 0.0f ? abs_max / kFloat8E4M3Max : 1.0f;
        q.scales[static_cast<size_t>((b * k_blocks + kb) * n_blocks + nb)] = scale;
        for (int64_t row = kb * block_rows; row < rows_end; ++row)
          for (int64_t col = nb * block_cols; col < cols_end; ++col)
            q.codes[static_cast<size_t>(at(row, col))] = static_cast<char>(
                FloatToFloat8E4M3(weight[static_cast<size_t>(at(row, col))] / scale));
      }
    }
  }
  return q;
}

}  // namespace hyperplan::gen
