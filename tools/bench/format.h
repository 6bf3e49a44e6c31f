// Number formatting for the benchmark tables: decimal gigabytes (as the profiles and vendor
// datasheets count), durations with a unit chosen by size, ratios and percentages.
// Cost: a few string operations. Limits: for display only, never parsed back.
#pragma once

#include <cstdint>
#include <string>

namespace hyperplan::bench {

std::string Gigabytes(int64_t bytes);     // "16.1 GB", "512 MB", "0 B"
std::string Duration(int64_t ns);         // "12.3 ms", "4.56 s", "812 us"
std::string Ratio(double value);          // "1.23x"
std::string SignedPercent(double value);  // "+0.4%", "-26.0%"

}  // namespace hyperplan::bench
