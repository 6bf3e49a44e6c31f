// Bytes over time on each tier other than the device: home copies, stored copies, staging.
#include <fmt/format.h>

#include <algorithm>

#include "hyperplan/units.h"
#include "report/axis_ticks.h"
#include "report/markup.h"
#include "report/memory_chart.h"
#include "report/sections.h"

namespace hyperplan::report {
namespace {

constexpr int kTierChartHeightPx = 150;

}  // namespace

std::string TiersSection(const ReportInput& input) {
  const PlanEvaluation& evaluation = input.evaluation;
  const HardwareProfile& profile = input.profile;
  std::string html = "<section id=\"tiers\">\n<h2>Other tiers</h2>\n";
  std::vector<std::string> unused;
  for (size_t t = 0; t < profile.tiers.size(); ++t) {
    if (static_cast<TierId>(t) == profile.device_tier) continue;
    const Tier& tier = profile.tiers[t];
    const int64_t peak_bytes = t < evaluation.timeline.peak_bytes_per_tier.size()
                                   ? evaluation.timeline.peak_bytes_per_tier[t]
                                   : 0;
    if (peak_bytes == 0 || t >= evaluation.timeline.bytes_per_tier.size()) {
      unused.push_back(tier.name);
      continue;
    }
    MemoryChart chart;
    chart.height_px = kTierChartHeightPx;
    chart.label = "bytes on " + tier.name + " over simulated time";
    MemorySeries series;
    series.columns = BucketStepCurve(evaluation.timeline.bytes_per_tier[t], input.columns);
    series.end_ns = evaluation.timeline.makespan_ns;
    series.css_class = "tier";
    chart.series.push_back(std::move(series));
    if (tier.capacity_bytes > 0 && tier.capacity_bytes <= peak_bytes + peak_bytes / 2) {
      chart.rules.push_back({tier.capacity_bytes, "capacity",
                             "capacity " + TrimTrailingZeros(FormatBytes(tier.capacity_bytes)),
                             false});
    }
    html += fmt::format(
        "<h3>{}: peak {}{}</h3>\n", EscapeMarkup(tier.name), EscapeMarkup(FormatBytes(peak_bytes)),
        tier.capacity_bytes > 0
            ? fmt::format(" of {} ({})", EscapeMarkup(FormatBytes(tier.capacity_bytes)),
                          PercentOf(peak_bytes, tier.capacity_bytes))
            : std::string());
    html += "<figure>" + RenderMemoryChart(chart, input.columns) + "</figure>\n";
  }
  if (!unused.empty()) {
    std::string names;
    for (const std::string& name : unused) names += (names.empty() ? "" : ", ") + name;
    html += fmt::format("<p class=\"note-text\">Holding nothing during the run: {}.</p>\n",
                        EscapeMarkup(names));
  }
  html += "</section>";
  return html;
}

}  // namespace hyperplan::report
