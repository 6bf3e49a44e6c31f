// The fidelity table's arithmetic: a plan's time per step turned into the published unit, the
// ratio predicted / published, and the band a row must fall in (0.8x-1.25x: 25% either way
// on a log scale). Cost: a few floating-point operations. Limits: display precision only.
#pragma once

#include <cstdint>
#include <string>

namespace hyperplan::bench {

inline constexpr double kBandLow = 0.8;
inline constexpr double kBandHigh = 1.25;

// A step of `step_ns` in `unit`: tokens/s = tokens_per_step / seconds; ms; s.
// Throws std::invalid_argument for another unit or a step of no time.
double PredictedValue(const std::string& unit, int64_t step_ns, int64_t tokens_per_step);

// predicted / published: above 1 a throughput is predicted faster, a latency slower.
double FidelityRatio(double predicted, double published);

// kBandLow <= ratio <= kBandHigh.
bool WithinBand(double ratio);

// Three significant digits and the unit: "95.6 tokens/s", "7.00 ms", "1,928 tokens/s".
std::string FormatValue(double value, const std::string& unit);

}  // namespace hyperplan::bench
