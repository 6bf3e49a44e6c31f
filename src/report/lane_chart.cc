// Lane chart SVG (see lane_chart.h).
#include "report/lane_chart.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/axis_ticks.h"
#include "report/markup.h"
#include "report/svg_frame.h"

namespace hyperplan::report {
namespace {

constexpr int kLaneGapPx = 8;
constexpr int kTopPx = 6;
constexpr int kShades = 4;
constexpr int64_t kMinBarWidthDp = kDecipixelsPerPx;  // one pixel

int ChartHeightPx(const std::vector<Lane>& lanes) {
  int height = kTopPx + kTimeAxisHeightPx;
  for (const Lane& lane : lanes) height += lane.height_px + kLaneGapPx;
  return height;
}

void AppendBars(std::string& svg, const Lane& lane, int64_t top_dp, const LinearScale& x,
                const TooltipFn& tooltip) {
  const int64_t height_dp = int64_t{lane.height_px} * kDecipixelsPerPx;
  for (size_t i = 0; i < lane.items.size(); ++i) {
    const TimeInterval& item = lane.items[i];
    const int64_t left = x(item.start_ns);
    const int64_t width = std::max(kMinBarWidthDp, x(item.end_ns) - left);
    const std::string& css = lane.item_classes.empty() ? lane.css_class : lane.item_classes[i];
    svg += fmt::format("<rect class=\"bar {}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\">", css,
                       Px(left), Px(top_dp), Px(width), Px(height_dp));
    if (tooltip && i < lane.ids.size()) {
      svg += "<title>" + EscapeMarkup(tooltip(lane.ids[i])) + "</title>";
    }
    svg += "</rect>";
  }
}

// Per column: 0 (idle) or the shade 1..kShades of its busy share; instants count as shade 1.
std::vector<int> ColumnShades(const Lane& lane, const TimeColumns& columns) {
  std::vector<int64_t> instants;
  for (const TimeInterval& item : lane.items) {
    if (item.end_ns <= item.start_ns) instants.push_back(item.start_ns);
  }
  const std::vector<int64_t> covered = CoveredNsPerColumn(lane.items, columns);
  const std::vector<int64_t> ticks = InstantsPerColumn(instants, columns);
  std::vector<int> shades(covered.size(), 0);
  for (size_t c = 0; c < covered.size(); ++c) {
    const int64_t width_ns =
        columns.Boundary(static_cast<int>(c) + 1) - columns.Boundary(static_cast<int>(c));
    const int64_t busy_ns = std::min(covered[c], width_ns);
    // ceil(kShades * busy / width): any busy time shows at least the lightest shade.
    shades[c] = static_cast<int>((busy_ns * kShades + width_ns - 1) / width_ns);
    if (shades[c] == 0 && ticks[c] > 0) shades[c] = 1;
  }
  return shades;
}

void AppendDensity(std::string& svg, const Lane& lane, int64_t top_dp, const TimeColumns& columns,
                   const LinearScale& x) {
  const std::vector<int> shades = ColumnShades(lane, columns);
  const int64_t height_dp = int64_t{lane.height_px} * kDecipixelsPerPx;
  std::vector<std::string> paths(kShades + 1);
  size_t c = 0;
  while (c < shades.size()) {
    size_t run_end = c + 1;
    while (run_end < shades.size() && shades[run_end] == shades[c]) ++run_end;
    if (shades[c] > 0) {
      const int64_t left = x(columns.Boundary(static_cast<int>(c)));
      const int64_t width =
          std::max(kMinBarWidthDp, x(columns.Boundary(static_cast<int>(run_end))) - left);
      paths[shades[c]] += fmt::format("M{} {}h{}v{}h-{}z", Px(left), Px(top_dp), Px(width),
                                      Px(height_dp), Px(width));
    }
    c = run_end;
  }
  for (int shade = 1; shade <= kShades; ++shade) {
    if (paths[shade].empty()) continue;
    svg +=
        fmt::format("<path class=\"bar {} s{}\" d=\"{}\"/>", lane.css_class, shade, paths[shade]);
  }
}

}  // namespace

std::string RenderLaneChart(const std::vector<Lane>& lanes, const TimeColumns& columns,
                            const TooltipFn& tooltip, const std::string& label) {
  const int height_px = ChartHeightPx(lanes);
  PlotBox box;
  box.top_dp = int64_t{kTopPx} * kDecipixelsPerPx;
  box.bottom_dp = int64_t{height_px - kTimeAxisHeightPx} * kDecipixelsPerPx;
  const LinearScale x = TimeScale(box, columns);
  std::string svg = SvgOpen(height_px, label);
  AppendTimeAxis(svg, box, x, TimeAxis(columns.end_ns(), 10));

  int64_t top_dp = box.top_dp;
  for (const Lane& lane : lanes) {
    const int64_t height_dp = int64_t{lane.height_px} * kDecipixelsPerPx;
    svg += fmt::format("<rect class=\"lane\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
                       Px(box.left_dp), Px(top_dp), Px(box.right_dp - box.left_dp), Px(height_dp));
    svg += fmt::format("<text class=\"lane-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                       Px(box.left_dp - 60), Px(top_dp + height_dp / 2 + 38),
                       EscapeMarkup(lane.label));
    if (lane.items.size() <= kMaxBarsPerLane) {
      AppendBars(svg, lane, top_dp, x, tooltip);
    } else {
      AppendDensity(svg, lane, top_dp, columns, x);
    }
    top_dp += height_dp + int64_t{kLaneGapPx} * kDecipixelsPerPx;
  }
  svg += "</svg>";
  return svg;
}

}  // namespace hyperplan::report
