// Text form of a fit report (see fit_text.h).
#include "fit_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "fit_point.h"
#include "hyperplan/units.h"

namespace hyperplan::cli {
namespace {

using fit::v1::FitPoint;
using fit::v1::FitReport;

std::string ResultText(const FitPoint& point) {
  if (point.result() == "ok") return "ok";
  if (point.result() == "over_overhead") return "over overhead";
  return "over budget";
}

// Whole percent, rounded half up (bottleneck.h SharePercent, on the report's numbers).
int64_t Percent(int64_t part_ns, int64_t whole_ns) {
  if (whole_ns <= 0) return 0;
  return static_cast<int64_t>((static_cast<__int128>(part_ns) * 200 + whole_ns) /
                              (2 * static_cast<__int128>(whole_ns)));
}

// "HBM traffic 71%": the largest bound and its share of the iteration.
std::string BottleneckText(const FitPoint& point) {
  if (point.time_per_iteration_ns() <= 0) return point.bottleneck();
  return fmt::format("{} {}%", point.bottleneck(),
                     Percent(point.bottleneck_busy_ns(), point.time_per_iteration_ns()));
}

// "  bound at past_sequence=4096: HBM traffic 71%, ...", or nothing without a time.
std::string BoundsLine(const std::string& dim, const FitPoint* point) {
  if (point == nullptr || point->time_per_iteration_ns() <= 0) return "";
  return fmt::format("  bound at {}={}: {}\n", dim, point->value(), FitBoundsText(*point));
}

// Columns padded to their widest cell; text columns left-aligned, numbers right-aligned.
std::string Table(const std::string& dim, const std::vector<const FitPoint*>& points) {
  std::vector<std::vector<std::string>> rows = {FitTableHeader(dim)};
  for (const FitPoint* point : points) rows.push_back(FitTableRow(*point));
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string text;
  for (const auto& row : rows) {
    std::string line = " ";
    for (size_t c = 0; c < row.size(); ++c) {
      const bool left = c == 1 || c + 1 == row.size();
      line += "  " + (left ? fmt::format("{:<{}}", row[c], widths[c])
                           : fmt::format("{:>{}}", row[c], widths[c]));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    text += line + "\n";
  }
  return text;
}

std::string Targets(const FitReport& report) {
  return fmt::format(
      "  budget: {}{}; overhead target: {}\n", FormatBytes(report.budget_bytes()),
      report.budget_is_device() ? " (the device's capacity)" : "",
      report.has_max_overhead_ppm()
          ? FitOverheadText(report.max_overhead_ppm()).substr(1) + " over no offloading"
          : std::string("none"));
}

std::string SearchLine(const FitReport& report) {
  const bool bisected = report.found() && report.has_first_failing();
  return fmt::format(
      "  search: {} {} probed (every doubling from {} to {}{}{}); {} passed with nothing to "
      "offload, so unplanned; {} {} made\n",
      report.probed(), report.probed() == 1 ? "value" : "values", report.min(), report.scan_top(),
      bisected ? ", then bisection" : "",
      report.neighbourhood_probes() > 0
          ? fmt::format(" and {} around the flip", report.neighbourhood_probes())
          : std::string(),
      report.unplanned(), report.plans(), report.plans() == 1 ? "plan" : "plans");
}

// Where the search stopped short of what was asked, and where the curve was not monotone.
std::string WindowAndShapeLines(const FitReport& report) {
  std::string text;
  if (report.capped_at_window()) {
    text += fmt::format(
        "  capped at the model's context window, {} tokens ({}): --beyond-window looks past "
        "it\n",
        report.window_tokens(), report.window_source());
  }
  if (report.has_failing_below_answer()) {
    text += fmt::format(
        "  not monotone: {}={} fails but {} passes; the answer is the largest value found to "
        "pass\n",
        report.dim(), report.failing_below_answer(), report.answer());
  }
  return text;
}

std::string GrowHeader(const FitReport& report) {
  const std::string subject =
      fmt::format("fit of {} for {} on '{}' ({})", report.dim(), report.model(), report.profile(),
                  FitFixedDimsText(report));
  if (!report.found()) {
    return fmt::format("{}: nothing fits, not even {}={}\n", subject, report.dim(), report.min());
  }
  if (!report.has_first_failing() && report.capped_at_window()) {
    return fmt::format("{}: largest {} = {}, the model's context window\n", subject, report.dim(),
                       report.answer());
  }
  if (!report.has_first_failing()) {
    return fmt::format(
        "{}: largest {} = {}, the top of the range (--grow {}={}..N looks "
        "further)\n",
        subject, report.dim(), report.answer(), report.dim(), report.min());
  }
  return fmt::format("{}: largest {} = {}\n", subject, report.dim(), report.answer());
}

std::string GrowText(const FitReport& report) {
  std::string text = GrowHeader(report) + Targets(report);
  std::vector<const FitPoint*> rows;
  if (report.found()) rows.push_back(&report.at_answer());
  if (report.has_first_failing()) rows.push_back(&report.first_failing());
  text += Table(report.dim(), rows);
  if (report.found() && !report.at_answer().residency().empty()) {
    text += fmt::format("  residency at {}={}: {}\n", report.dim(), report.answer(),
                        report.at_answer().residency());
  }
  if (report.has_first_failing()) {
    text += fmt::format("  why not {}: {}\n", report.first_failing().value(),
                        report.first_failing().message());
  }
  return text + BoundsLine(report.dim(), FitAnswerPoint(report)) + WindowAndShapeLines(report) +
         SearchLine(report);
}

std::string SweepText(const FitReport& report) {
  std::string text = fmt::format("sweep of {} for {} on '{}' ({})\n", report.dim(), report.model(),
                                 report.profile(), FitFixedDimsText(report));
  text += Targets(report);
  std::vector<const FitPoint*> rows;
  for (const FitPoint& point : report.points()) rows.push_back(&point);
  const FitPoint* last_ok = FitAnswerPoint(report);
  const FitPoint* first_failing = FitFirstFailure(report);
  text += Table(report.dim(), rows);
  if (last_ok != nullptr && !last_ok->residency().empty()) {
    text += fmt::format("  residency at {}={}: {}\n", report.dim(), last_ok->value(),
                        last_ok->residency());
  }
  text += BoundsLine(report.dim(), last_ok);
  if (first_failing != nullptr) {
    text += fmt::format("  first row that fails: {}\n", first_failing->message());
  }
  return text + fmt::format("  {} rows, {} {}\n", report.points_size(), report.plans(),
                            report.plans() == 1 ? "plan" : "plans");
}

}  // namespace

std::string FitOverheadText(int64_t ppm) {
  const int64_t tenths = (ppm + 500) / 1000;
  return fmt::format("+{}.{}%", tenths / 10, tenths % 10);
}

std::vector<std::string> FitTableHeader(const std::string& dim) {
  return {dim, "result", "arena", "time/iter", "tokens/s", "cold start", "overhead", "bottleneck"};
}

std::vector<std::string> FitTableRow(const FitPoint& point) {
  return {std::to_string(point.value()),
          ResultText(point),
          FormatBytes(point.arena_bytes()),
          FormatDuration(point.time_per_iteration_ns()),
          point.tokens_per_iteration() > 0 ? FormatTokensPerSecond(point.tokens_per_s()) : "n/a",
          point.planned() ? FormatDuration(point.cold_start_ns()) : "-",
          FitOverheadText(point.overhead_ppm()),
          BottleneckText(point)};
}

std::string FitFixedDimsText(const FitReport& report) {
  std::vector<std::string> dims;
  for (const auto& dim : report.fixed_dims()) {
    dims.push_back(fmt::format("{}={}", dim.name(), dim.value()));
  }
  for (const std::string& tie : report.ties()) dims.push_back(tie);
  return dims.empty() ? "no other dims" : fmt::format("{}", fmt::join(dims, ", "));
}

const FitPoint* FitAnswerPoint(const FitReport& report) {
  if (report.mode() != "sweep") return report.found() ? &report.at_answer() : nullptr;
  const FitPoint* last_ok = nullptr;
  for (const FitPoint& point : report.points()) {
    if (Passes(point)) last_ok = &point;
  }
  return last_ok;
}

const FitPoint* FitFirstFailure(const FitReport& report) {
  if (report.mode() != "sweep") {
    return report.has_first_failing() ? &report.first_failing() : nullptr;
  }
  for (const FitPoint& point : report.points()) {
    if (!Passes(point)) return &point;
  }
  return nullptr;
}

std::string FitBoundsText(const FitPoint& point) {
  std::vector<std::pair<std::string, int64_t>> shares = {{"FLOPs", point.flops_ns()},
                                                         {"HBM traffic", point.hbm_traffic_ns()},
                                                         {"launches", point.launch_ns()},
                                                         {"host memory", point.host_memory_ns()},
                                                         {"host FLOPs", point.host_flops_ns()}};
  for (const fit::v1::LinkBusy& link : point.links())
    shares.emplace_back(link.link(), link.busy_ns());
  std::stable_sort(shares.begin(), shares.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (const auto& [name, busy_ns] : shares) {
    const int64_t percent = Percent(busy_ns, point.time_per_iteration_ns());
    if (percent >= 1) parts.push_back(fmt::format("{} {}%", name, percent));
  }
  std::string text = fmt::format("{}", fmt::join(parts, ", "));
  const int64_t wait_percent = Percent(point.compute_wait_ns(), point.time_per_iteration_ns());
  if (wait_percent >= 1) {
    text += fmt::format("{}compute waits {}%", text.empty() ? "" : "; ", wait_percent);
  }
  return text;
}

std::string FormatTokensPerSecond(double tokens_per_s) {
  if (tokens_per_s >= 100) return fmt::format("{:.0f}", tokens_per_s);
  if (tokens_per_s >= 10) return fmt::format("{:.1f}", tokens_per_s);
  if (tokens_per_s >= 1) return fmt::format("{:.2f}", tokens_per_s);
  return fmt::format("{:.3g}", tokens_per_s);
}

std::string FormatFitText(const FitReport& report) {
  return report.mode() == "sweep" ? SweepText(report) : GrowText(report);
}

}  // namespace hyperplan::cli
