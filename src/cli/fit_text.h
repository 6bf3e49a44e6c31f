// The text `hyperplan fit` prints: a header, a table with one row per value (result, arena,
// time per iteration, tokens/s, cold start, overhead against no offloading, bottleneck), where
// the layers are at the answer, why the next value fails, and how many plans the search made.
// Cost: linear in the rows. Limits: column widths follow the widest cell, so a table is as wide
// as its longest number.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schemas/fit.pb.h"

namespace hyperplan::cli {

std::string FormatFitText(const fit::v1::FitReport& report);

// The table's pieces, shared with the HTML report (fit_html.h) so both show the same cells.
std::vector<std::string> FitTableHeader(const std::string& dim);
std::vector<std::string> FitTableRow(const fit::v1::FitPoint& point);
// "batch=1, sequence=1" (the fixed dims and ties), or "no other dims".
std::string FitFixedDimsText(const fit::v1::FitReport& report);
// "+12.3%" from ppm (1% = 10'000 ppm), rounded half up to one decimal.
std::string FitOverheadText(int64_t ppm);
// The answer's point: grow, the answer's plan; sweep, the largest row that passes (rows
// ascend). nullptr when nothing passes.
const fit::v1::FitPoint* FitAnswerPoint(const fit::v1::FitReport& report);
// Why the next value fails: grow, the smallest failing value probed; sweep, the first row that
// fails. nullptr when none fails.
const fit::v1::FitPoint* FitFirstFailure(const fit::v1::FitReport& report);

// Every bound's share of the point's iteration (plan/bottleneck.h), largest first, the compute
// stream's waits last, shares under 1% left out: "HBM traffic 71%, launches 9%, FLOPs 6%,
// ddr->hbm 2%; compute waits 12%".
std::string FitBoundsText(const fit::v1::FitPoint& point);

// "1.23", "45.6", "789", "12345" tokens/s: three significant digits below 1000, whole above.
std::string FormatTokensPerSecond(double tokens_per_s);

}  // namespace hyperplan::cli
