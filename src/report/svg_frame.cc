// Shared chart frame (see svg_frame.h).
#include "report/svg_frame.h"

#include <fmt/format.h>

namespace hyperplan::report {

TimeColumns ChartColumns(int64_t end_ns) { return TimeColumns(0, end_ns, kPlotWidthPx); }

LinearScale TimeScale(const PlotBox& box, const TimeColumns& columns) {
  return LinearScale(columns.start_ns(), columns.end_ns(), box.left_dp, box.right_dp);
}

std::string SvgOpen(int height_px, std::string_view label) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{}\">",
      kChartWidthPx, height_px, EscapeMarkup(label));
}

void AppendYAxis(std::string& svg, const PlotBox& box, const LinearScale& y, const Axis& axis) {
  std::string grid;
  for (const AxisTick& tick : axis.ticks) {
    grid += fmt::format("M{} {}H{}", Px(box.left_dp), Px(y(tick.value)), Px(box.right_dp));
    svg += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                       Px(box.left_dp - 60), Px(y(tick.value) + 35), EscapeMarkup(tick.label));
  }
  svg += fmt::format("<path class=\"grid\" d=\"{}\"/>", grid);
}

void AppendTimeAxis(std::string& svg, const PlotBox& box, const LinearScale& x, const Axis& axis) {
  std::string grid;
  for (const AxisTick& tick : axis.ticks) {
    grid += fmt::format("M{} {}V{}", Px(x(tick.value)), Px(box.top_dp), Px(box.bottom_dp));
  }
  svg += fmt::format("<path class=\"grid\" d=\"{}\"/>", grid);
  svg += fmt::format("<path class=\"axis\" d=\"M{} {}H{}\"/>", Px(box.left_dp), Px(box.bottom_dp),
                     Px(box.right_dp));
  const int64_t label_y_dp = box.bottom_dp + 16 * kDecipixelsPerPx;
  for (size_t i = 0; i < axis.ticks.size(); ++i) {
    const AxisTick& tick = axis.ticks[i];
    // The first label starts at the axis and the last ends at it, so none is cut off.
    const char* anchor = i == 0 ? "start" : (x(tick.value) > box.right_dp - 300 ? "end" : "middle");
    svg += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text>",
                       Px(x(tick.value)), Px(label_y_dp), anchor, EscapeMarkup(tick.label));
  }
}

}  // namespace hyperplan::report
