// Table number formatting (see format.h).
#include "format.h"

#include <fmt/format.h>

namespace hyperplan::bench {

std::string Gigabytes(int64_t bytes) {
  const double value = static_cast<double>(bytes);
  if (bytes == 0) return "0 B";
  if (value >= 1e11) return fmt::format("{:.0f} GB", value / 1e9);
  if (value >= 1e9) return fmt::format("{:.1f} GB", value / 1e9);
  if (value >= 1e6) return fmt::format("{:.0f} MB", value / 1e6);
  return fmt::format("{:.0f} kB", value / 1e3);
}

std::string Duration(int64_t ns) {
  const double value = static_cast<double>(ns);
  if (value >= 1e10) return fmt::format("{:.1f} s", value / 1e9);
  if (value >= 1e9) return fmt::format("{:.2f} s", value / 1e9);
  if (value >= 1e7) return fmt::format("{:.1f} ms", value / 1e6);
  if (value >= 1e6) return fmt::format("{:.2f} ms", value / 1e6);
  return fmt::format("{:.0f} us", value / 1e3);
}

std::string Ratio(double value) { return fmt::format("{:.2f}x", value); }

std::string SignedPercent(double value) { return fmt::format("{:+.1f}%", value); }

}  // namespace hyperplan::bench
