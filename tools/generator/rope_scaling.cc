#include "rope_scaling.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace hyperplan::gen {

namespace {

std::vector<double> DefaultFrequencies(double theta, int64_t dim) {
  std::vector<double> inv_freq(static_cast<size_t>(dim / 2));
  for (size_t i = 0; i < inv_freq.size(); ++i) {
    inv_freq[i] = 1.0 / std::pow(theta, static_cast<double>(2 * i) / static_cast<double>(dim));
  }
  return inv_freq;
}

// Llama 3.1: wavelengths above original / low_freq_factor are divided by the factor, below
// original / high_freq_factor kept, and smoothly blended between.
void ApplyLlama3(const RopeScaling& s, std::vector<double>& inv_freq) {
  const double original = static_cast<double>(s.original_max_positions);
  const double low_freq_wavelen = original / s.low_freq_factor;
  const double high_freq_wavelen = original / s.high_freq_factor;
  for (double& f : inv_freq) {
    const double wavelen = 2.0 * std::numbers::pi / f;
    if (wavelen > low_freq_wavelen) {
      f /= s.factor;
    } else if (wavelen >= high_freq_wavelen) {
      const double smooth =
          (original / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
      f = (1.0 - smooth) * f / s.factor + smooth * f;
    }
  }
}

// The dim whose rotation count over the original context is `rotations` (YaRN).
double CorrectionDim(double rotations, int64_t dim, double theta, double original) {
  return static_cast<double>(dim) * std::log(original / (rotations * 2.0 * std::numbers::pi)) /
         (2.0 * std::log(theta));
}

void ApplyYarn(const RopeScaling& s, double theta, int64_t dim, std::vector<double>& inv_freq) {
  const double original = static_cast<double>(s.original_max_positions);
  double low = std::floor(CorrectionDim(s.beta_fast, dim, theta, original));
  double high = std::ceil(CorrectionDim(s.beta_slow, dim, theta, original));
  low = std::max(low, 0.0);
  high = std::min(high, static_cast<double>(dim - 1));
  if (low == high) high += 0.001;  // avoids a zero-width ramp, as transformers does
  for (size_t i = 0; i < inv_freq.size(); ++i) {
    const double ramp = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
    const double extrapolation_weight = 1.0 - ramp;
    const double interpolated = inv_freq[i] / s.factor;
    inv_freq[i] = interpolated * (1.0 - extrapolation_weight) + inv_freq[i] * extrapolation_weight;
  }
}

}  // namespace

double YarnMscale(double scale, double mscale) {
  return scale <= 1.0 ? 1.0 : 0.1 * mscale * std::log(scale) + 1.0;
}

std::vector<double> InverseFrequencies(const ModelConfig& config) {
  const int64_t dim = config.RopeDim();
  std::vector<double> inv_freq = DefaultFrequencies(config.rope_theta, dim);
  const RopeScaling& s = config.rope_scaling;
  switch (s.kind) {
    case RopeScaling::Kind::kNone:
    case RopeScaling::Kind::kDynamic:
      break;
    case RopeScaling::Kind::kLinear:
      for (double& f : inv_freq) f /= s.factor;
      break;
    case RopeScaling::Kind::kLlama3:
      ApplyLlama3(s, inv_freq);
      break;
    case RopeScaling::Kind::kYarn:
      ApplyYarn(s, config.rope_theta, dim, inv_freq);
      break;
  }
  return inv_freq;
}

double RopeAttentionFactor(const ModelConfig& config) {
  const RopeScaling& s = config.rope_scaling;
  if (s.kind != RopeScaling::Kind::kYarn) return 1.0;
  if (s.attention_factor > 0.0) return s.attention_factor;
  if (s.mscale > 0.0 && s.mscale_all_dim > 0.0) {
    return YarnMscale(s.factor, s.mscale) / YarnMscale(s.factor, s.mscale_all_dim);
  }
  return YarnMscale(s.factor, 1.0);
}

}  // namespace hyperplan::gen
