// Memory chart axes (src/report/memory_chart.h): from zero by default, from near the data for
// a zoom, with levels under a zoom's floor drawn at it.
#include "report/memory_chart.h"

#include <catch2/catch.hpp>
#include <regex>

using namespace hyperplan::report;

namespace {

// The tick labels of the byte axis, top to bottom as the SVG writes them (bottom first).
std::vector<std::string> ByteTicks(const std::string& svg) {
  std::vector<std::string> labels;
  const std::regex tick(
      "<text class=\"tick\" x=\"[0-9.]+\" y=\"[0-9.]+\" text-anchor=\"end\">"
      "([^<]*)</text>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), tick), end; it != end; ++it) {
    const std::string label = (*it)[1];
    if (label == "0" || label.back() == 'B') labels.push_back(label);  // not the time axis's
  }
  return labels;
}

// The largest y of every vertical move ("V<y>") in the series' area paths.
double LowestAreaY(const std::string& svg) {
  double lowest = 0;
  const std::regex area("<path class=\"area plan\" d=\"([^\"]*)\"/>");
  const std::regex vertical("V([0-9.]+)");
  for (std::sregex_iterator it(svg.begin(), svg.end(), area), end; it != end; ++it) {
    const std::string d = (*it)[1];
    for (std::sregex_iterator v(d.begin(), d.end(), vertical); v != end; ++v) {
      lowest = std::max(lowest, std::stod((*v)[1]));
    }
  }
  return lowest;
}

// The y of the byte tick labelled `label` (labels sit 3.5 px below their line).
double TickY(const std::string& svg, const std::string& label) {
  const size_t end = svg.find(">" + label + "</text>");
  REQUIRE(end != std::string::npos);
  const size_t y = svg.rfind(" y=\"", end);
  return std::stod(svg.substr(y + 4)) - 3.5;
}

MemoryChart HighCurve(bool zoom) {
  // Four columns over 0-4000 ns: 960, 1000, 980 bytes, then the run's final free to 0 in the
  // last column (its max stays 990).
  MemoryChart chart;
  chart.floor_at_data = zoom;
  MemorySeries series;
  series.columns = {{960, 960}, {1000, 1000}, {980, 980}, {0, 990}};
  series.end_ns = 4000;
  series.css_class = "plan";
  chart.series.push_back(series);
  return chart;
}

}  // namespace

TEST_CASE("a zoomed memory chart's axis starts near the data, a plain one at zero") {
  const TimeColumns columns(0, 4000, 4);
  const std::vector<std::string> plain = ByteTicks(RenderMemoryChart(HighCurve(false), columns));
  REQUIRE(!plain.empty());
  CHECK(plain.front() == "0");
  // Zoom: the per-pixel maxima span 960-1000 (the final free's 0 is a minimum, not counted):
  // 40 bytes over 5 intervals is a step of 8, floor 960, top 1000.
  const std::string zoom_svg = RenderMemoryChart(HighCurve(true), columns);
  const std::vector<std::string> zoom = ByteTicks(zoom_svg);
  REQUIRE(!zoom.empty());
  CHECK(zoom.front() == "960 B");
  CHECK(zoom.back() == "1000 B");
  // The last column's 0-byte minimum is drawn at the floor, never below the plot.
  CHECK(LowestAreaY(zoom_svg) == Approx(TickY(zoom_svg, "960 B")));
}
