// Fidelity arithmetic (see fidelity_ratio.h).
#include "fidelity_ratio.h"

#include <fmt/format.h>

#include <stdexcept>

namespace hyperplan::bench {

double PredictedValue(const std::string& unit, int64_t step_ns, int64_t tokens_per_step) {
  if (step_ns <= 0) throw std::invalid_argument("a step of no time has no rate");
  const double step_s = static_cast<double>(step_ns) / 1e9;
  if (unit == "tokens/s") return static_cast<double>(tokens_per_step) / step_s;
  if (unit == "ms") return step_s * 1e3;
  if (unit == "s") return step_s;
  throw std::invalid_argument("unknown unit '" + unit + "'");
}

double FidelityRatio(double predicted, double published) { return predicted / published; }

bool WithinBand(double ratio) { return ratio >= kBandLow && ratio <= kBandHigh; }

namespace {

// "16,634": digits grouped by three, whatever the process's locale.
std::string Grouped(int64_t value) {
  const std::string digits = std::to_string(value);
  std::string grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

}  // namespace

std::string FormatValue(double value, const std::string& unit) {
  if (value >= 1000) return fmt::format("{} {}", Grouped(static_cast<int64_t>(value + 0.5)), unit);
  if (value >= 100) return fmt::format("{:.0f} {}", value, unit);
  if (value >= 10) return fmt::format("{:.1f} {}", value, unit);
  if (value >= 1) return fmt::format("{:.2f} {}", value, unit);
  return fmt::format("{:.3g} {}", value, unit);
}

}  // namespace hyperplan::bench
