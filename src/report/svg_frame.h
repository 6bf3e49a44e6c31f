// The frame every chart of the report shares: one width, one plot column and one time axis,
// so that the memory charts and the stream lanes line up and read against each other.
//
// Charts are inline SVG sized by their viewBox (the page scales them to its width). The plot
// is kPlotWidthPx wide, and time is cut into one column per pixel of it (TimeColumns), which
// bounds every chart's element count by the width, not by the plan's size.
// Cost: O(ticks) per axis.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "report/axis_ticks.h"
#include "report/markup.h"
#include "report/time_columns.h"

namespace hyperplan::report {

inline constexpr int kChartWidthPx = 1200;
inline constexpr int kPlotLeftPx = 112;  // room for byte labels and lane names
inline constexpr int kPlotRightPx = 1184;
inline constexpr int kPlotWidthPx = kPlotRightPx - kPlotLeftPx;
inline constexpr int kTimeAxisHeightPx = 24;  // tick labels under the plot
inline constexpr int kDecipixelsPerPx = 10;

struct PlotBox {
  int64_t left_dp = int64_t{kPlotLeftPx} * kDecipixelsPerPx;
  int64_t right_dp = int64_t{kPlotRightPx} * kDecipixelsPerPx;
  int64_t top_dp = 0;
  int64_t bottom_dp = 0;
};

// The simulated time range of every chart: [0, end_ns], one column per plot pixel.
TimeColumns ChartColumns(int64_t end_ns);

// x of a time on the plot.
LinearScale TimeScale(const PlotBox& box, const TimeColumns& columns);

// `<svg ...>` opening a chart of the given height; `label` names it for screen readers.
std::string SvgOpen(int height_px, std::string_view label);

// Horizontal grid lines at the value ticks across the plot, and their labels left of it.
void AppendYAxis(std::string& svg, const PlotBox& box, const LinearScale& y, const Axis& axis);

// Vertical grid lines at the time ticks from box.top to box.bottom, and their labels below.
void AppendTimeAxis(std::string& svg, const PlotBox& box, const LinearScale& x, const Axis& axis);

}  // namespace hyperplan::report
