// Device memory over time, before and after, with the budget and capacity, each peak marked
// and broken down into the blocks resident then; the after curve again on its own scale when
// the before curve dwarfs it.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "hyperplan/units.h"
#include "report/axis_ticks.h"
#include "report/markup.h"
#include "report/memory_chart.h"
#include "report/names.h"
#include "report/sections.h"

namespace hyperplan::report {
namespace {

constexpr size_t kSharesShown = 10;
constexpr size_t kNameChars = 56;
constexpr int kDeviceChartHeightPx = 320;
constexpr int kZoomChartHeightPx = 220;
// The after curve gets a chart of its own when its peak is below this share of the chart's
// top (in percent): under it, the before scale squashes it towards the time axis.
constexpr int64_t kZoomBelowPercent = 60;

// Draw a capacity line only when it is near the data; a far-away capacity would flatten the
// chart and is printed in words instead.
bool CapacityWorthDrawing(int64_t capacity_bytes, int64_t data_max_bytes) {
  return capacity_bytes > 0 && capacity_bytes <= data_max_bytes + data_max_bytes / 2;
}

std::string NodeWords(const Graph& graph, NodeId node) {
  if (node == kNoNode) return "";
  return fmt::format("'{}' ({})", Abbreviate(NodeName(graph, node), 40), NodeOpType(graph, node));
}

// "weight 5.86 MiB (2999), activation 40.0 KiB (41)": bytes and blocks per class, largest
// first, for peaks made of many small blocks.
std::string ByClass(const Graph& graph, const PeakComposition& peak) {
  std::map<std::string, std::pair<int64_t, int64_t>> totals;  // class -> bytes, blocks
  for (const PeakShare& share : peak.shares) {
    auto& total = totals[share.value == kNoValue ? "scratch" : ValueClassText(graph, share.value)];
    total.first += share.bytes;
    ++total.second;
  }
  std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> ordered(totals.begin(),
                                                                           totals.end());
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::string text;
  for (const auto& [name, total] : ordered) {
    text += fmt::format("{}{} {} ({})", text.empty() ? "" : ", ", name, FormatBytes(total.first),
                        total.second);
  }
  return text.empty() ? "nothing resident" : text;
}

std::string SharesTable(const ReportInput& input, const PeakComposition& peak,
                        const std::string& id, const std::string& heading) {
  std::string html = fmt::format("<div class=\"peak\" id=\"{}\">\n<h3>{}</h3>\n", id, heading);
  html +=
      "<table class=\"compact\"><thead><tr><th>resident block</th><th>class</th>"
      "<th class=\"num\">bytes</th><th class=\"num\">share</th></tr></thead><tbody>\n";
  const size_t shown = std::min(kSharesShown, peak.shares.size());
  for (size_t i = 0; i < shown; ++i) {
    const PeakShare& share = peak.shares[i];
    const std::string name = BlockName(input.graph, share.value, share.scratch_node);
    html += fmt::format(
        "<tr><td class=\"value\" title=\"{}\">{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td></tr>\n",
        EscapeMarkup(name), EscapeMarkup(Abbreviate(name, kNameChars)),
        share.value == kNoValue ? "scratch"
                                : EscapeMarkup(ValueClassText(input.graph, share.value)),
        EscapeMarkup(FormatBytes(share.bytes)), PercentOf(share.bytes, peak.bytes));
  }
  if (peak.shares.size() > shown) {
    int64_t rest_bytes = 0;
    for (size_t i = shown; i < peak.shares.size(); ++i) rest_bytes += peak.shares[i].bytes;
    html += fmt::format(
        "<tr class=\"muted\"><td>{} more</td><td></td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td></tr>\n",
        peak.shares.size() - shown, EscapeMarkup(FormatBytes(rest_bytes)),
        PercentOf(rest_bytes, peak.bytes));
  }
  html += fmt::format(
      "<tr class=\"total\"><td>{} blocks</td><td></td><td class=\"num\">{}</td><td></td></tr>\n",
      peak.shares.size(), EscapeMarkup(FormatBytes(peak.shares_bytes)));
  html += "</tbody></table>\n";
  html += "<p class=\"note-text\">by class: " + EscapeMarkup(ByClass(input.graph, peak)) + "</p>\n";
  html += "</div>\n";
  return html;
}

std::string Legend(const ReportInput& input, bool capacity_rule) {
  std::string html = "<div class=\"legend\">";
  html += "<span><i class=\"key plan\"></i>after: the plan, simulated</span>";
  html += "<span><i class=\"key baseline\"></i>before: model order, nothing offloaded</span>";
  if (input.plan.budget_bytes) html += "<span><i class=\"key budget\"></i>budget</span>";
  if (capacity_rule) html += "<span><i class=\"key capacity\"></i>device capacity</span>";
  html += "<span class=\"muted\">each pixel shows the highest level in its time slice</span>";
  html += "</div>\n";
  return html;
}

// The plan's device curve alone, on an axis that ends at its own peak (or at the budget, when
// the budget is near it), so its shape shows when the before curve is far taller. Empty when
// the main chart already shows it at a readable scale.
std::string AfterZoom(const ReportInput& input, const MemoryChart& main_chart,
                      int64_t main_max_bytes) {
  const PeakComposition& peak = input.plan_peak;
  if (main_chart.series.size() < 2 || peak.bytes <= 0 ||
      peak.bytes * 100 >= main_max_bytes * kZoomBelowPercent) {
    return "";
  }
  MemoryChart zoom;
  zoom.height_px = kZoomChartHeightPx;
  zoom.label = "device bytes over simulated time after the plan, on its own scale";
  zoom.floor_at_data = true;
  zoom.series.push_back(main_chart.series.back());  // the plan's
  const Plan& plan = input.plan;
  if (plan.budget_bytes && CapacityWorthDrawing(*plan.budget_bytes, peak.bytes)) {
    zoom.rules.push_back({*plan.budget_bytes, "budget",
                          "budget " + TrimTrailingZeros(FormatBytes(*plan.budget_bytes)), false});
  }
  zoom.markers.push_back(
      {peak.time_ns,
       peak.bytes,
       "plan",
       {fmt::format("after: peak {} at {}", FormatBytes(peak.bytes), FormatDuration(peak.time_ns))},
       false});
  std::string html = fmt::format(
      "<h3>After the plan, on its own scale</h3>\n<p class=\"note-text\">The plan's peak is "
      "{} of the chart above's scale; here the axis spans only the plan's own range{}, and "
      "need not start at zero.</p>\n",
      PercentOf(peak.bytes, main_max_bytes), zoom.rules.empty() ? "" : " and the budget");
  html +=
      "<figure id=\"memory-after-zoom\">" + RenderMemoryChart(zoom, input.columns) + "</figure>\n";
  return html;
}

// The device tier's name and capacity (a profile without one: "device", no capacity).
struct DeviceTier {
  TierId tier = -1;
  bool present = false;
  std::string name = "device";
  int64_t capacity_bytes = 0;
};

DeviceTier FindDevice(const HardwareProfile& profile) {
  DeviceTier device;
  device.tier = profile.device_tier;
  device.present = device.tier >= 0 && static_cast<size_t>(device.tier) < profile.tiers.size();
  if (device.present) {
    device.name = profile.tiers[device.tier].name;
    device.capacity_bytes = profile.tiers[device.tier].capacity_bytes;
  }
  return device;
}

// The main chart: before and after curves, the budget rule and the capacity's when near.
struct DeviceChart {
  MemoryChart chart;
  int64_t data_max_bytes = 0;   // the chart's top: both peaks and the budget
  bool capacity_drawn = false;  // the capacity is near the data (drawn, or is the budget)
  bool capacity_rule = false;   // a capacity rule of its own is drawn
};

DeviceChart CurvesAndRules(const ReportInput& input, const DeviceTier& device) {
  const Plan& plan = input.plan;
  DeviceChart out;
  MemoryChart& chart = out.chart;
  chart.height_px = kDeviceChartHeightPx;
  chart.label = "device bytes over simulated time, before and after the plan";
  MemorySeries before;
  before.columns = BucketStepCurve(input.baseline.curve, input.columns);
  before.end_ns = input.baseline.makespan_ns;
  before.css_class = "baseline";
  chart.series.push_back(std::move(before));
  if (device.present &&
      static_cast<size_t>(device.tier) < input.evaluation.timeline.bytes_per_tier.size()) {
    MemorySeries after;
    after.columns =
        BucketStepCurve(input.evaluation.timeline.bytes_per_tier[device.tier], input.columns);
    after.end_ns = input.evaluation.timeline.makespan_ns;
    after.css_class = "plan";
    chart.series.push_back(std::move(after));
  }
  out.data_max_bytes = std::max(input.baseline.peak.bytes, input.plan_peak.bytes);
  if (plan.budget_bytes) out.data_max_bytes = std::max(out.data_max_bytes, *plan.budget_bytes);
  out.capacity_drawn = CapacityWorthDrawing(device.capacity_bytes, out.data_max_bytes);
  const std::string capacity_words =
      device.name + " capacity " + TrimTrailingZeros(FormatBytes(device.capacity_bytes));
  // Without --budget the capacity is the budget: one line, one label.
  const bool budget_is_capacity = plan.budget_bytes && *plan.budget_bytes == device.capacity_bytes;
  if (plan.budget_bytes) {
    chart.rules.push_back({*plan.budget_bytes, "budget",
                           budget_is_capacity
                               ? "budget = " + capacity_words
                               : "budget " + TrimTrailingZeros(FormatBytes(*plan.budget_bytes)),
                           false});
  }
  out.capacity_rule = out.capacity_drawn && !budget_is_capacity;
  if (out.capacity_rule) {
    chart.rules.push_back({device.capacity_bytes, "capacity", capacity_words, true});
  }
  return out;
}

// Each peak marked (one marker when the plan left the peak where it was).
void MarkPeaks(const ReportInput& input, MemoryChart& chart) {
  const PeakComposition& before_peak = input.baseline.peak;
  const PeakComposition& after_peak = input.plan_peak;
  const bool same_peak =
      before_peak.bytes == after_peak.bytes && before_peak.time_ns == after_peak.time_ns;
  const std::string before_title =
      fmt::format("before: peak {} at step {}", FormatBytes(before_peak.bytes), before_peak.step);
  const std::string after_title = fmt::format("after: peak {} at {}", FormatBytes(after_peak.bytes),
                                              FormatDuration(after_peak.time_ns));
  if (!same_peak) {
    chart.markers.push_back({before_peak.time_ns,
                             before_peak.bytes,
                             "baseline",
                             {before_title, NodeWords(input.graph, before_peak.node)},
                             false});
  }
  chart.markers.push_back(
      {after_peak.time_ns,
       after_peak.bytes,
       "plan",
       {same_peak ? "peak unchanged: " + FormatBytes(after_peak.bytes) : after_title,
        NodeWords(input.graph, after_peak.node)},
       !same_peak});
}

// The blocks resident at each peak, before and after, side by side.
std::string PeakTables(const ReportInput& input) {
  const PeakComposition& before_peak = input.baseline.peak;
  const PeakComposition& after_peak = input.plan_peak;
  std::string html = "<div class=\"peaks\">\n";
  html += SharesTable(input, before_peak, "peak-before-blocks",
                      EscapeMarkup(fmt::format("What makes the peak before: {} at step {}",
                                               FormatBytes(before_peak.bytes), before_peak.step)) +
                          (before_peak.node == kNoNode
                               ? ""
                               : ", " + EscapeMarkup(NodeWords(input.graph, before_peak.node))));
  html += SharesTable(
      input, after_peak, "peak-after-blocks",
      EscapeMarkup(fmt::format("What makes the peak after: {} at {}", FormatBytes(after_peak.bytes),
                               FormatDuration(after_peak.time_ns))) +
          (after_peak.node == kNoNode
               ? ""
               : ", " + EscapeMarkup("during " + NodeWords(input.graph, after_peak.node))));
  html += "</div>\n";
  return html;
}

}  // namespace

std::string MemorySection(const ReportInput& input) {
  const DeviceTier device = FindDevice(input.profile);
  DeviceChart main = CurvesAndRules(input, device);
  MarkPeaks(input, main.chart);
  std::string html = "<section id=\"memory\">\n";
  html +=
      fmt::format("<h2>Device memory ({}) over simulated time</h2>\n", EscapeMarkup(device.name));
  html += Legend(input, main.capacity_rule);
  html += "<figure>" + RenderMemoryChart(main.chart, input.columns) + "</figure>\n";
  html += AfterZoom(input, main.chart, main.data_max_bytes);
  if (!main.capacity_drawn && device.capacity_bytes > 0) {
    html += fmt::format(
        "<p class=\"note-text\">{} capacity {} is far above the curves ({} of it "
        "used at the peak after the plan).</p>\n",
        EscapeMarkup(device.name), EscapeMarkup(FormatBytes(device.capacity_bytes)),
        PercentOf(input.plan_peak.bytes, device.capacity_bytes));
  }
  html += PeakTables(input);
  html += "</section>";
  return html;
}

}  // namespace hyperplan::report
