// The text `hyperplan fit` prints: a header, a table with one row per value (result, arena,
// time per iteration, tokens/s, cold start, overhead against no offloading, bottleneck), where
// the layers are at the answer, why the next value fails, and how many plans the search made.
// Cost: linear in the rows. Limits: column widths follow the widest cell, so a table is as wide
// as its longest number.
#pragma once

#include <string>

#include "schemas/fit.pb.h"

namespace hyperplan::cli {

std::string FormatFitText(const fit::v1::FitReport& report);

// "1.23", "45.6", "789", "12345" tokens/s: three significant digits below 1000, whole above.
std::string FormatTokensPerSecond(double tokens_per_s);

}  // namespace hyperplan::cli
