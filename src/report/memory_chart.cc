// Memory chart SVG (see memory_chart.h).
#include "report/memory_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "report/axis_ticks.h"
#include "report/markup.h"
#include "report/svg_frame.h"

namespace hyperplan::report {
namespace {

constexpr int kPlotTopPx = 14;
constexpr int kByteTicks = 5;
constexpr int kMarkerLineHeightPx = 14;
constexpr int kApproxCharWidthDp = 62;  // 11px sans-serif, for placing text beside a marker

// The columns a series draws: those starting before its end.
int DrawnColumns(const MemorySeries& series, const TimeColumns& columns) {
  int drawn = 0;
  while (drawn < columns.count() && drawn < static_cast<int>(series.columns.size()) &&
         columns.Boundary(drawn) < std::max<int64_t>(series.end_ns, 1)) {
    ++drawn;
  }
  return drawn;
}

// The byte axis: from 0 (or near the lowest level drawn) to the highest level, rule or marker,
// with headroom over a marked peak for its text.
Axis ChartByteAxis(const MemoryChart& chart, const TimeColumns& columns) {
  int64_t max_bytes = 1;
  int64_t min_bytes = std::numeric_limits<int64_t>::max();
  for (const MemorySeries& series : chart.series) {
    const int drawn = DrawnColumns(series, columns);
    for (int c = 0; c < drawn; ++c) {
      // The floor follows the per-pixel maxima (the line): a run's last column holds its final
      // free, and brief dips would pull a zoom back to zero. Lower levels are drawn at the floor.
      max_bytes = std::max(max_bytes, series.columns[c].max_bytes);
      min_bytes = std::min(min_bytes, series.columns[c].max_bytes);
    }
  }
  for (const BytesRule& rule : chart.rules) {
    max_bytes = std::max(max_bytes, rule.bytes);
    min_bytes = std::min(min_bytes, rule.bytes);
  }
  for (const PeakMarker& marker : chart.markers) max_bytes = std::max(max_bytes, marker.bytes);
  if (!chart.floor_at_data || min_bytes >= max_bytes) {
    if (!chart.markers.empty()) max_bytes += max_bytes / 8;
    return ByteAxis(max_bytes, kByteTicks);
  }
  // A flat curve still gets a band around it: at least 1/32 of its level.
  min_bytes = std::min(min_bytes, max_bytes - max_bytes / 32);
  if (!chart.markers.empty()) max_bytes += (max_bytes - min_bytes) / 4;
  return ByteAxisFrom(min_bytes, max_bytes, kByteTicks);
}

// A step path through the per-column values; `closed` drops to the baseline at both ends.
template <typename Level>
std::string StepPath(const MemorySeries& series, int drawn, const TimeColumns& columns,
                     const LinearScale& x, const LinearScale& y, bool closed, Level level) {
  if (drawn == 0) return "";
  std::string d;
  const int64_t floor = y.domain_lo();
  const int64_t base_dp = y(floor);
  int64_t current_dp = y(std::max(floor, level(series.columns[0])));
  d += closed ? fmt::format("M{} {}V{}", Px(x(columns.Boundary(0))), Px(base_dp), Px(current_dp))
              : fmt::format("M{} {}", Px(x(columns.Boundary(0))), Px(current_dp));
  for (int c = 1; c < drawn; ++c) {
    const int64_t next_dp = y(std::max(floor, level(series.columns[c])));
    if (next_dp == current_dp) continue;
    d += fmt::format("H{}V{}", Px(x(columns.Boundary(c))), Px(next_dp));
    current_dp = next_dp;
  }
  d += fmt::format("H{}", Px(x(columns.Boundary(drawn))));
  if (closed) d += fmt::format("V{}Z", Px(base_dp));
  return d;
}

void AppendMarker(std::string& svg, const PeakMarker& marker, const PlotBox& box,
                  const LinearScale& x, const LinearScale& y) {
  const int64_t cx = x(marker.time_ns);
  const int64_t cy = y(marker.bytes);
  svg += fmt::format("<circle class=\"marker {}\" cx=\"{}\" cy=\"{}\" r=\"4.5\"/>",
                     marker.css_class, Px(cx), Px(cy));
  size_t widest_chars = 0;
  for (const std::string& line : marker.lines) widest_chars = std::max(widest_chars, line.size());
  const int64_t text_width_dp = static_cast<int64_t>(widest_chars) * kApproxCharWidthDp;
  // Text goes right of the marker unless it would run off the plot.
  const bool to_left = cx + 80 + text_width_dp > box.right_dp;
  const int64_t text_x = to_left ? cx - 80 : cx + 80;
  const int64_t line_dp = int64_t{kMarkerLineHeightPx} * kDecipixelsPerPx;
  const auto line_count = static_cast<int64_t>(marker.lines.size());
  int64_t first_y = marker.text_below ? cy + 150 : cy - 60 - (line_count - 1) * line_dp;
  // Keep the block inside the plot vertically.
  first_y = std::max(first_y, box.top_dp + 110);
  first_y = std::min(first_y, box.bottom_dp - 40 - (line_count - 1) * line_dp);
  for (int64_t i = 0; i < line_count; ++i) {
    svg +=
        fmt::format("<text class=\"note{}\" x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text>",
                    i == 0 ? " strong" : "", Px(text_x), Px(first_y + i * line_dp),
                    to_left ? "end" : "start", EscapeMarkup(marker.lines[static_cast<size_t>(i)]));
  }
}

}  // namespace

std::string RenderMemoryChart(const MemoryChart& chart, const TimeColumns& columns) {
  PlotBox box;
  box.top_dp = int64_t{kPlotTopPx} * kDecipixelsPerPx;
  box.bottom_dp = int64_t{chart.height_px - kTimeAxisHeightPx} * kDecipixelsPerPx;
  const Axis byte_axis = ChartByteAxis(chart, columns);
  const Axis time_axis = TimeAxis(columns.end_ns(), 10);
  const LinearScale x = TimeScale(box, columns);
  const LinearScale y(byte_axis.floor, byte_axis.top, box.bottom_dp, box.top_dp);

  std::string svg = SvgOpen(chart.height_px, chart.label);
  AppendYAxis(svg, box, y, byte_axis);
  AppendTimeAxis(svg, box, x, time_axis);

  for (const MemorySeries& series : chart.series) {
    const int drawn = DrawnColumns(series, columns);
    auto max_level = [](const ColumnRange& r) { return r.max_bytes; };
    auto min_level = [](const ColumnRange& r) { return r.min_bytes; };
    if (series.filled) {
      svg += fmt::format("<path class=\"area {}\" d=\"{}\"/>", series.css_class,
                         StepPath(series, drawn, columns, x, y, true, max_level));
      const bool swings =
          std::any_of(series.columns.begin(), series.columns.begin() + drawn,
                      [](const ColumnRange& r) { return r.min_bytes < r.max_bytes; });
      if (swings) {
        svg += fmt::format("<path class=\"area {}\" d=\"{}\"/>", series.css_class,
                           StepPath(series, drawn, columns, x, y, true, min_level));
      }
    }
    svg += fmt::format("<path class=\"line {}\" d=\"{}\"/>", series.css_class,
                       StepPath(series, drawn, columns, x, y, false, max_level));
  }
  for (const BytesRule& rule : chart.rules) {
    const int64_t rule_y = y(rule.bytes);
    svg += fmt::format("<path class=\"rule {}\" d=\"M{} {}H{}\"/>", rule.css_class, Px(box.left_dp),
                       Px(rule_y), Px(box.right_dp));
    svg += fmt::format("<text class=\"note {}\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                       rule.css_class, Px(box.right_dp - 40),
                       Px(rule.label_below ? rule_y + 120 : rule_y - 40), EscapeMarkup(rule.label));
  }
  for (const PeakMarker& marker : chart.markers) AppendMarker(svg, marker, box, x, y);
  svg += "</svg>";
  return svg;
}

}  // namespace hyperplan::report
