// The page `hyperplan fit --report FILE.html` writes: one self-contained HTML page (inline SVG
// and CSS, no script, nothing outside the file) in the plan report's style, built from the
// same fit::v1::FitReport that --json prints, so the two cannot disagree.
//
// What it shows: a header (model, profile, the moved dim, the fixed dims and ties, budget,
// overhead target and the answer: the largest value that passes, or "none"); four line charts
// against the moved dim's value (tokens/s; time per iteration; arena with the budget as a
// rule; overhead against no offloading, with the target as a rule when one is set), one point
// per distinct value in ascending order, points that do not fit hollow red and points over the
// target hollow amber, the answer ringed; then the table of rows (the text output's cells,
// fit_text.h) and the residency and why-not lines. The x axis is logarithmic (base 2) when the
// values span more than 16x, as a --grow search's doubling does, else linear.
// Every point has an id, "<chart>-point-<value>" (chart: tokens, time, arena, overhead), and
// every table row "row-<value>"; the answer's rings are "<chart>-answer".
// Output is byte-identical for the same report: coordinates are integers (the log scale is
// a fixed-point log2), tokens/s is rounded to thousandths before it is scaled.
// Cost: O(rows log rows). Limits: at most a few hundred rows read well (a sweep has <= 256;
// a search probes about 2 log2(range)); tick labels may crowd when bisection probes close
// values, which are then told apart by their tooltips and the table.
#pragma once

#include <string>

#include "schemas/fit.pb.h"

namespace hyperplan::cli {

// `tool_version` goes in the page's generator meta tag ("hyperplan 0.1.0").
std::string FitHtmlReport(const fit::v1::FitReport& report, const std::string& tool_version);

}  // namespace hyperplan::cli
