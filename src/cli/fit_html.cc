// The fit report page (see fit_html.h): picks the rows, builds one line chart per measure,
// then writes the header, the charts, the table and the lines under it.
#include "fit_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "fit_point.h"
#include "fit_text.h"
#include "hyperplan/units.h"
#include "report/axis_ticks.h"
#include "report/markup.h"
#include "report/sections.h"
#include "report/svg_frame.h"

namespace hyperplan::cli {
namespace {

using fit::v1::FitPoint;
using fit::v1::FitReport;
using report::Axis;
using report::AxisTick;
using report::EscapeMarkup;
using report::LinearScale;
using report::PlotBox;
using report::Px;
__extension__ using UInt128 = unsigned __int128;

constexpr int kChartHeightPx = 220;
constexpr int kPlotTopPx = 14;
constexpr int kYTicks = 5;
constexpr int kMaxXTicks = 10;
constexpr int64_t kLogScaleSpan = 16;  // values spanning more than this ratio get a log axis
constexpr int kLog2FractionBits = 16;
constexpr int64_t kMinOverheadTopPpm = 10'000;  // 1%: a flat zero curve still has an axis

// What the page adds to the plan report's style sheet (no '<' or '&': the page is XML too).
constexpr const char* kFitStyle = R"css(
.point { stroke-width: 1.5; }
.point.ok { fill: var(--plan); stroke: #fff; }
.point.fails { fill: #fff; stroke: var(--budget); stroke-width: 2; }
.point.over { fill: #fff; stroke: var(--store); stroke-width: 2; }
.ring { fill: none; stroke: #166534; stroke-width: 2; }
.note.answer { fill: #166534; }
.rule.target { stroke: var(--store); stroke-dasharray: 7 4; }
.note.target { fill: var(--store); }
.key.ok { background: var(--plan); border-radius: 50%; width: 10px; }
.key.fails { border: 2px solid var(--budget); border-radius: 50%; width: 10px; }
.key.over { border: 2px solid var(--store); border-radius: 50%; width: 10px; }
.key.ring { border: 2px solid #166534; border-radius: 50%; width: 12px; height: 12px; }
.key.target { height: 0; border-top: 2px dashed var(--store); border-radius: 0; }
tr.answer-row td { font-weight: 600; background: #f0fdf4; }
.charts { display: grid; grid-template-columns: 1fr; gap: 8px; }
)css";

// The rows the page shows: one per distinct value, ascending. A search's answer and first
// failing value come from their planned points.
std::vector<const FitPoint*> PageRows(const FitReport& report) {
  std::map<int64_t, const FitPoint*> by_value;
  for (const FitPoint& point : report.points()) by_value.emplace(point.value(), &point);
  if (report.mode() != "sweep") {
    if (report.found()) by_value[report.at_answer().value()] = &report.at_answer();
    if (report.has_first_failing()) {
      by_value[report.first_failing().value()] = &report.first_failing();
    }
  }
  std::vector<const FitPoint*> rows;
  for (const auto& [value, point] : by_value) rows.push_back(point);
  return rows;
}

// "512", "4k", "128k", "16M": the --grow / --sweep spelling (k = 1024).
std::string DimValueText(int64_t value) {
  if (value >= (int64_t{1} << 20) && value % (int64_t{1} << 20) == 0) {
    return fmt::format("{}M", value >> 20);
  }
  if (value >= 1024 && value % 1024 == 0) return fmt::format("{}k", value >> 10);
  return std::to_string(value);
}

// log2(value) in 1/65536ths for value >= 1 (smaller values count as 1), in integers: the
// mantissa squared bit by bit, so the page is the same on every machine.
int64_t FixedLog2(int64_t value) {
  const auto magnitude = static_cast<uint64_t>(std::max<int64_t>(1, value));
  const int exponent = 63 - __builtin_clzll(magnitude);
  // The mantissa in [1, 2) with 30 fraction bits.
  uint64_t mantissa = static_cast<uint64_t>((static_cast<UInt128>(magnitude) << 30) >> exponent);
  int64_t fixed_log2 = int64_t{exponent} << kLog2FractionBits;
  for (int bit = kLog2FractionBits - 1; bit >= 0; --bit) {
    mantissa = (mantissa * mantissa) >> 30;
    if (mantissa >= (uint64_t{1} << 31)) {
      mantissa >>= 1;
      fixed_log2 |= int64_t{1} << bit;
    }
  }
  return fixed_log2;
}

// x of a dim value: linear, or log2 when the values span more than kLogScaleSpan.
class ValueScale {
 public:
  ValueScale(int64_t lo, int64_t hi, const PlotBox& box)
      : log_(hi > kLogScaleSpan * std::max<int64_t>(1, lo)),
        scale_(Position(lo) - (lo == hi ? 1 : 0), Position(hi) + (lo == hi ? 1 : 0), box.left_dp,
               box.right_dp) {}
  int64_t operator()(int64_t value) const { return scale_(Position(value)); }
  bool log() const { return log_; }

 private:
  int64_t Position(int64_t value) const { return log_ ? FixedLog2(value) : value; }
  bool log_;
  LinearScale scale_;
};

// Tick values on the dim axis: every row when a linear axis has few; else round values (powers
// of two on a log axis, 1, 2 or 5 x 10^k apart on a linear one) at most kMaxXTicks of them.
std::vector<int64_t> DimTicks(const std::vector<const FitPoint*>& rows, const ValueScale& x) {
  const int64_t lo = rows.front()->value();
  const int64_t hi = rows.back()->value();
  std::vector<int64_t> ticks;
  if (x.log()) {
    int first = 0;  // the first power of two at or above lo
    while ((int64_t{1} << first) < lo) ++first;
    const int last = 63 - __builtin_clzll(static_cast<uint64_t>(hi));
    int step = 1;
    while ((last - first) / step + 1 > kMaxXTicks) ++step;
    for (int exponent = first; exponent <= last; exponent += step) {
      ticks.push_back(int64_t{1} << exponent);
    }
    return ticks;
  }
  if (static_cast<int>(rows.size()) <= kMaxXTicks) {
    for (const FitPoint* row : rows) ticks.push_back(row->value());
    return ticks;
  }
  int64_t step = 1;
  for (int mantissa_index = 0; (hi - lo) / step + 1 > kMaxXTicks; ++mantissa_index) {
    step = (mantissa_index % 3 == 1 ? step / 2 * 5 : step * 2);  // 1, 2, 5, 10, 20, 50, ...
  }
  for (int64_t value = (lo + step - 1) / step * step; value <= hi; value += step) {
    ticks.push_back(value);
  }
  return ticks;
}

// A y axis from 0 with round steps (TimeAxis's 1, 2 or 5 x 10^k) whose top is a whole step at
// or above `max`, labelled by `label`.
template <typename Label>
Axis RoundAxis(int64_t max, Label label) {
  const Axis time_axis = report::TimeAxis(std::max<int64_t>(1, max), kYTicks);
  const int64_t step =
      time_axis.ticks.size() >= 2 ? time_axis.ticks[1].value : std::max<int64_t>(1, max);
  Axis axis;
  axis.top = (std::max<int64_t>(1, max) + step - 1) / step * step;
  for (int64_t value = 0; value <= axis.top; value += step) {
    axis.ticks.push_back({value, label(value)});
  }
  return axis;
}

// "2.5%" from ppm, trailing zeros dropped.
std::string PercentFromPpm(int64_t ppm) {
  return report::TrimTrailingZeros(fmt::format("{}.{:04}%", ppm / 10'000, ppm % 10'000));
}

int64_t MilliTokensPerSecond(const FitPoint& point) {
  return std::llround(point.tokens_per_s() * 1000.0);
}

struct ChartPoint {
  const FitPoint* row = nullptr;
  int64_t level = 0;  // in the chart's unit
  std::string level_text;
};

struct ChartRule {
  int64_t level = 0;
  std::string css_class;  // "budget" or "target"
  std::string label;
};

struct LineChart {
  std::string id;     // "tokens", "time", "arena", "overhead": prefixes the points' ids
  std::string title;  // "tokens/s"
  Axis y_axis;
  std::vector<ChartPoint> points;
  std::optional<ChartRule> rule;
};

std::string PointClass(const FitPoint& row) {
  if (!row.fits()) return "fails";
  return Passes(row) ? "ok" : "over";
}

std::string ResultWords(const FitPoint& row) {
  if (!row.fits()) return "does not fit";
  return Passes(row) ? "passes" : "over the target";
}

void AppendXAxis(std::string& svg, const PlotBox& box, const ValueScale& x,
                 const std::vector<int64_t>& ticks) {
  std::string grid;
  for (int64_t value : ticks) {
    grid += fmt::format("M{} {}V{}", Px(x(value)), Px(box.top_dp), Px(box.bottom_dp));
  }
  svg += fmt::format("<path class=\"grid\" d=\"{}\"/>", grid);
  svg += fmt::format("<path class=\"axis\" d=\"M{} {}H{}\"/>", Px(box.left_dp), Px(box.bottom_dp),
                     Px(box.right_dp));
  const int64_t label_y_dp = box.bottom_dp + 16 * report::kDecipixelsPerPx;
  for (int64_t value : ticks) {
    svg += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                       Px(x(value)), Px(label_y_dp), EscapeMarkup(DimValueText(value)));
  }
}

void AppendRule(std::string& svg, const PlotBox& box, const LinearScale& y, const ChartRule& rule) {
  const int64_t rule_y = y(rule.level);
  svg += fmt::format("<path class=\"rule {}\" d=\"M{} {}H{}\"/>", rule.css_class, Px(box.left_dp),
                     Px(rule_y), Px(box.right_dp));
  // Labelled at the left end: a search's points crowd the right one, near the answer.
  svg +=
      fmt::format("<text class=\"note {}\" x=\"{}\" y=\"{}\" text-anchor=\"start\">{}</text>",
                  rule.css_class, Px(box.left_dp + 60), Px(rule_y - 40), EscapeMarkup(rule.label));
}

// The line through the points, the points (with their values as tooltips) and the answer's
// ring.
void AppendSeries(std::string& svg, const LineChart& chart, const std::string& dim,
                  const ValueScale& x, const LinearScale& y, int64_t box_bottom_dp,
                  const FitPoint* answer) {
  std::string line;
  for (const ChartPoint& point : chart.points) {
    line += fmt::format("{}{} {}", line.empty() ? "M" : "L", Px(x(point.row->value())),
                        Px(y(point.level)));
  }
  svg += fmt::format("<path class=\"line plan\" d=\"{}\"/>", line);
  for (const ChartPoint& point : chart.points) {
    const int64_t value = point.row->value();
    svg += fmt::format(
        "<circle id=\"{}-point-{}\" class=\"point {}\" cx=\"{}\" cy=\"{}\" r=\"4\"><title>{}"
        "</title></circle>",
        chart.id, value, PointClass(*point.row), Px(x(value)), Px(y(point.level)),
        EscapeMarkup(
            fmt::format("{}={}: {} ({})", dim, value, point.level_text, ResultWords(*point.row))));
  }
  for (size_t index = 0; index < chart.points.size(); ++index) {
    const ChartPoint& point = chart.points[index];
    if (answer == nullptr || point.row->value() != answer->value()) continue;
    const int64_t cx = x(point.row->value());
    const int64_t cy = y(point.level);
    svg += fmt::format("<circle id=\"{}-answer\" class=\"ring\" cx=\"{}\" cy=\"{}\" r=\"8\"/>",
                       chart.id, Px(cx), Px(cy));
    const bool to_left = cx > (report::kPlotLeftPx + report::kPlotRightPx) / 2 * 10;
    // The label goes on the side of the point the line leaves free: under it when the
    // neighbour on the label's side is higher, over it otherwise.
    const ChartPoint* neighbour =
        to_left ? (index > 0 ? &chart.points[index - 1] : nullptr)
                : (index + 1 < chart.points.size() ? &chart.points[index + 1] : nullptr);
    const bool below = neighbour != nullptr && y(neighbour->level) < cy;
    const int64_t label_y_dp =
        below ? std::min<int64_t>(cy + 200, box_bottom_dp - 40) : std::max<int64_t>(cy - 100, 110);
    svg += fmt::format(
        "<text class=\"note strong answer\" x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text>",
        Px(to_left ? cx - 120 : cx + 120), Px(label_y_dp), to_left ? "end" : "start",
        EscapeMarkup(fmt::format("answer: {}={}", dim, answer->value())));
  }
}

std::string RenderLineChart(const LineChart& chart, const FitReport& report,
                            const std::vector<const FitPoint*>& rows, const FitPoint* answer) {
  PlotBox box;
  box.top_dp = int64_t{kPlotTopPx} * report::kDecipixelsPerPx;
  box.bottom_dp = int64_t{kChartHeightPx - report::kTimeAxisHeightPx} * report::kDecipixelsPerPx;
  const ValueScale x(rows.front()->value(), rows.back()->value(), box);
  const LinearScale y(chart.y_axis.floor, chart.y_axis.top, box.bottom_dp, box.top_dp);
  std::string svg =
      report::SvgOpen(kChartHeightPx, fmt::format("{} against {}", chart.title, report.dim()));
  report::AppendYAxis(svg, box, y, chart.y_axis);
  AppendXAxis(svg, box, x, DimTicks(rows, x));
  if (chart.rule) AppendRule(svg, box, y, *chart.rule);
  AppendSeries(svg, chart, report.dim(), x, y, box.bottom_dp, answer);
  svg += "</svg>";
  return svg;
}

// --- The four charts. ---

LineChart TokensChart(const std::vector<const FitPoint*>& rows) {
  LineChart chart{"tokens", "tokens/s", {}, {}, std::nullopt};
  int64_t max_milli = 0;
  for (const FitPoint* row : rows) {
    if (row->tokens_per_iteration() <= 0) continue;
    chart.points.push_back({row, MilliTokensPerSecond(*row),
                            FormatTokensPerSecond(row->tokens_per_s()) + " tokens/s"});
    max_milli = std::max(max_milli, MilliTokensPerSecond(*row));
  }
  chart.y_axis = RoundAxis(max_milli, [](int64_t milli) {
    return milli == 0 ? std::string("0")
                      : FormatTokensPerSecond(static_cast<double>(milli) / 1000.0);
  });
  return chart;
}

LineChart TimeChart(const std::vector<const FitPoint*>& rows) {
  LineChart chart{"time", "time per iteration", {}, {}, std::nullopt};
  int64_t max_ns = 0;
  for (const FitPoint* row : rows) {
    chart.points.push_back(
        {row, row->time_per_iteration_ns(), FormatDuration(row->time_per_iteration_ns())});
    max_ns = std::max(max_ns, row->time_per_iteration_ns());
  }
  chart.y_axis = RoundAxis(max_ns, [](int64_t ns) {
    return ns == 0 ? std::string("0") : report::TrimTrailingZeros(FormatDuration(ns));
  });
  return chart;
}

LineChart ArenaChart(const FitReport& report, const std::vector<const FitPoint*>& rows) {
  LineChart chart{"arena", "arena", {}, {}, std::nullopt};
  int64_t max_bytes = report.budget_bytes();
  for (const FitPoint* row : rows) {
    chart.points.push_back({row, row->arena_bytes(), FormatBytes(row->arena_bytes())});
    max_bytes = std::max(max_bytes, row->arena_bytes());
  }
  chart.y_axis = report::ByteAxis(max_bytes, kYTicks);
  chart.rule = ChartRule{report.budget_bytes(), "budget",
                         fmt::format("budget {}", FormatBytes(report.budget_bytes()))};
  return chart;
}

LineChart OverheadChart(const FitReport& report, const std::vector<const FitPoint*>& rows) {
  LineChart chart{"overhead", "overhead against no offloading", {}, {}, std::nullopt};
  int64_t max_ppm = std::max(kMinOverheadTopPpm, report.max_overhead_ppm());
  for (const FitPoint* row : rows) {
    chart.points.push_back({row, row->overhead_ppm(), FitOverheadText(row->overhead_ppm())});
    max_ppm = std::max(max_ppm, row->overhead_ppm());
  }
  chart.y_axis = RoundAxis(max_ppm, [](int64_t ppm) { return PercentFromPpm(ppm); });
  if (report.has_max_overhead_ppm()) {
    chart.rule = ChartRule{report.max_overhead_ppm(), "target",
                           fmt::format("target {}", PercentFromPpm(report.max_overhead_ppm()))};
  }
  return chart;
}

// --- The page's sections. ---

std::string AnswerText(const FitReport& report, const FitPoint* answer) {
  if (answer == nullptr) return "none";
  return fmt::format("largest {} = {}", report.dim(), answer->value());
}

std::string TargetText(const FitReport& report) {
  if (!report.has_max_overhead_ppm()) return "none (fitting is enough)";
  return fmt::format("within {} of no offloading", PercentFromPpm(report.max_overhead_ppm()));
}

std::string Verdict(const FitReport& report) {
  if (report.found()) {
    return "<span id=\"verdict\" class=\"badge good\">a value passes</span>";
  }
  const bool over_target = report.exit_code() == 7;
  return fmt::format("<span id=\"verdict\" class=\"badge {}\">{}</span>",
                     over_target ? "warn" : "bad",
                     over_target ? "nothing meets the target" : "nothing fits");
}

std::string HeaderSection(const FitReport& report, const FitPoint* answer) {
  std::string html = "<header>\n";
  html += fmt::format("<h1>hyperplan fit: <span class=\"name\">{}</span></h1>\n",
                      EscapeMarkup(report.dim()));
  html += fmt::format("<p class=\"subtitle\">{} of {} for {} on '{}'</p>\n",
                      report.mode() == "sweep" ? "sweep" : "search", EscapeMarkup(report.dim()),
                      EscapeMarkup(report.model()), EscapeMarkup(report.profile()));
  if (!report.found() && !report.message().empty()) {
    html += fmt::format("<p class=\"alert {}\" id=\"reason\">{}</p>\n",
                        report.exit_code() == 7 ? "warn" : "bad", EscapeMarkup(report.message()));
  }
  html += "</header>\n<section id=\"settings\">\n<h2>";
  html += Verdict(report);
  html += fmt::format(" <span id=\"answer\">{}</span></h2>\n<dl>\n",
                      EscapeMarkup(AnswerText(report, answer)));
  auto row = [&html](const std::string& term, const std::string& id, const std::string& text) {
    html += fmt::format("<dt>{}</dt><dd id=\"{}\">{}</dd>\n", term, id, EscapeMarkup(text));
  };
  row("model", "model", report.model());
  row("profile", "profile", report.profile());
  row("moved dim", "dim",
      fmt::format("{} ({} {}..{}{})", report.dim(), report.mode() == "sweep" ? "--sweep" : "--grow",
                  DimValueText(report.min()), DimValueText(report.max()),
                  report.step() > 0 ? fmt::format(":{}", report.step()) : ""));
  row("fixed dims", "fixed-dims", FitFixedDimsText(report));
  row("budget", "budget",
      fmt::format("{}{}", FormatBytes(report.budget_bytes()),
                  report.budget_is_device() ? " (the device's capacity)" : ""));
  row("overhead target", "target", TargetText(report));
  row("answer", "answer-detail", AnswerText(report, answer));
  row("plans", "plans",
      fmt::format("{} {} for {} {}", report.plans(), report.plans() == 1 ? "plan" : "plans",
                  report.probed(), report.probed() == 1 ? "value" : "values"));
  html += "</dl>\n</section>\n";
  return html;
}

std::string Legend(const FitReport& report) {
  std::string legend =
      "<div class=\"legend\"><span><span class=\"key ok\"></span>passes</span>"
      "<span><span class=\"key fails\"></span>does not fit</span>";
  if (report.has_max_overhead_ppm()) {
    legend += "<span><span class=\"key over\"></span>over the target</span>";
  }
  legend += "<span><span class=\"key ring\"></span>the answer</span>";
  legend += "<span><span class=\"key budget\"></span>budget</span>";
  if (report.has_max_overhead_ppm()) {
    legend += "<span><span class=\"key target\"></span>overhead target</span>";
  }
  return legend + "</div>\n";
}

std::string ChartsSection(const FitReport& report, const std::vector<const FitPoint*>& rows,
                          const FitPoint* answer) {
  const ValueScale probe(rows.front()->value(), rows.back()->value(), PlotBox{});
  std::string html = fmt::format(
      "<section id=\"charts\">\n<h2>Against {}</h2>\n<p class=\"note-text\">x axis: {} ({}), one "
      "point per value</p>\n",
      EscapeMarkup(report.dim()), EscapeMarkup(report.dim()),
      probe.log() ? "log scale, base 2" : "linear scale");
  html += Legend(report);
  const std::vector<LineChart> charts = {TokensChart(rows), TimeChart(rows),
                                         ArenaChart(report, rows), OverheadChart(report, rows)};
  for (const LineChart& chart : charts) {
    html += fmt::format("<figure id=\"chart-{}\">\n<h3>{}</h3>\n", chart.id, chart.title);
    if (chart.points.empty()) {
      html += "<p class=\"note-text\">the model has no tokens input (see --tokens-input)</p>\n";
    } else {
      html += RenderLineChart(chart, report, rows, answer) + "\n";
    }
    html += "</figure>\n";
  }
  return html + "</section>\n";
}

std::string RowsSection(const FitReport& report, const std::vector<const FitPoint*>& rows,
                        const FitPoint* answer) {
  // Numbers right-aligned, as in the text table: every column but result and bottleneck.
  auto cell_class = [](size_t column, size_t columns) {
    return column == 1 || column + 1 == columns ? "" : " class=\"num\"";
  };
  std::string html = "<section id=\"rows\">\n<h2>Rows</h2>\n<table>\n<thead><tr>";
  const std::vector<std::string> header = FitTableHeader(report.dim());
  for (size_t c = 0; c < header.size(); ++c) {
    html += fmt::format("<th{}>{}</th>", cell_class(c, header.size()), EscapeMarkup(header[c]));
  }
  html += "</tr></thead>\n<tbody>\n";
  for (const FitPoint* row : rows) {
    const bool is_answer = answer != nullptr && row->value() == answer->value();
    html +=
        fmt::format("<tr id=\"row-{}\"{}>", row->value(), is_answer ? " class=\"answer-row\"" : "");
    const std::vector<std::string> cells = FitTableRow(*row);
    for (size_t c = 0; c < cells.size(); ++c) {
      html += fmt::format("<td{}>{}</td>", cell_class(c, cells.size()), EscapeMarkup(cells[c]));
    }
    html += "</tr>\n";
  }
  html += "</tbody>\n</table>\n";
  if (answer != nullptr && !answer->residency().empty()) {
    html +=
        fmt::format("<p id=\"residency\">residency at {}={}: {}</p>\n", EscapeMarkup(report.dim()),
                    answer->value(), EscapeMarkup(answer->residency()));
  }
  if (answer != nullptr && answer->time_per_iteration_ns() > 0) {
    html += fmt::format("<p id=\"bounds\">bound at {}={}: {}</p>\n", EscapeMarkup(report.dim()),
                        answer->value(), EscapeMarkup(FitBoundsText(*answer)));
  }
  if (const FitPoint* failure = FitFirstFailure(report)) {
    html += fmt::format("<p id=\"why-not\">why not {}: {}</p>\n", failure->value(),
                        EscapeMarkup(failure->message()));
  }
  return html + "</section>\n";
}

}  // namespace

std::string FitHtmlReport(const FitReport& report, const std::string& tool_version) {
  const std::vector<const FitPoint*> rows = PageRows(report);
  const FitPoint* answer = FitAnswerPoint(report);
  std::string html =
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n";
  html += fmt::format("<meta name=\"generator\" content=\"{}\"/>\n", EscapeMarkup(tool_version));
  html += fmt::format(
      "<title>{}</title>\n",
      EscapeMarkup(fmt::format("hyperplan fit: {} of {}", report.dim(), report.model())));
  html += fmt::format("<style>{}{}</style>\n</head>\n<body>\n<main>\n", report::ReportStyleSheet(),
                      kFitStyle);
  html += HeaderSection(report, answer);
  if (!rows.empty()) html += ChartsSection(report, rows, answer);
  html += RowsSection(report, rows, answer);
  return html + "</main>\n</body>\n</html>\n";
}

}  // namespace hyperplan::cli
