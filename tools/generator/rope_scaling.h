// Rotary position embedding frequencies with Hugging Face's rope_scaling variants, as
// transformers' modeling_rope_utils computes them: default theta^(-2i/d); "linear" divides by
// the factor; "llama3" (Llama 3.1) divides low frequencies by the factor and blends the band
// between; "yarn" (DeepSeek-V3, Qwen long context) blends interpolated and extrapolated
// frequencies by a linear ramp between two correction dims and scales cos/sin by an attention
// factor; "dynamic" (NTK) depends on the run's sequence length, so the tables keep the default
// frequencies.
// Cost: O(rope_dim). Limits: values only; the tables' shapes never depend on the scaling.
#pragma once

#include <vector>

#include "model_config.h"

namespace hyperplan::gen {

// The rope_dim / 2 inverse frequencies (radians per position) of the rotated pairs.
std::vector<double> InverseFrequencies(const ModelConfig& config);

// What cos and sin are multiplied by: YaRN's attention factor, else 1.
double RopeAttentionFactor(const ModelConfig& config);

// YaRN's get_mscale: 1 for scale <= 1, else 0.1 * mscale * ln(scale) + 1.
double YarnMscale(double scale, double mscale);

}  // namespace hyperplan::gen
