// The page's head: what was planned, the verdict, and four headline numbers.
#include <fmt/format.h>

#include "hyperplan/units.h"
#include "report/markup.h"
#include "report/sections.h"

namespace hyperplan::report {
namespace {

std::string Verdict(const Plan& plan) {
  if (!plan.offload_enabled) {
    return "<span class=\"badge neutral\">offloading off: the baseline plan</span>";
  }
  if (plan.budget_bytes) {
    return plan.fits ? fmt::format("<span class=\"badge good\">fits the {} budget</span>",
                                   EscapeMarkup(FormatBytes(*plan.budget_bytes)))
                     : fmt::format("<span class=\"badge bad\">does not fit the {} budget</span>",
                                   EscapeMarkup(FormatBytes(*plan.budget_bytes)));
  }
  return plan.fits
             ? "<span class=\"badge good\">no budget: peak cut within the overhead limit</span>"
             : "<span class=\"badge bad\">does not fit the device</span>";
}

std::string Card(const std::string& title, const std::string& value, const std::string& detail) {
  return fmt::format(
      "<div class=\"card\"><div class=\"card-title\">{}</div><div class=\"card-value\">{}</div>"
      "<div class=\"card-detail\">{}</div></div>",
      EscapeMarkup(title), EscapeMarkup(value), EscapeMarkup(detail));
}

}  // namespace

std::string HeaderSection(const ReportInput& input) {
  const PlanSummary& s = input.plan.summary;
  int64_t moved_bytes = 0;
  for (int64_t bytes : s.bytes_moved_per_link) moved_bytes += bytes;
  auto ops = [&](StepKind kind) { return s.steps_per_kind[static_cast<size_t>(kind)]; };

  std::string html = "<header>\n";
  html +=
      fmt::format("<h1>Offload plan for <span class=\"name\">{}</span></h1>\n",
                  EscapeMarkup(input.graph.name.empty() ? "(unnamed graph)" : input.graph.name));
  html +=
      fmt::format("<p class=\"subtitle\">on <b>{}</b> &#183; {} nodes &#183; {} &#183; {}</p>\n",
                  EscapeMarkup(input.profile.name), input.plan.order.size(),
                  input.plan.reordered ? "memory-aware order" : "model order", Verdict(input.plan));
  html += "<div class=\"cards\">\n";
  html +=
      Card("device peak", FormatBytes(s.peak_bytes),
           fmt::format("before {} ({})", FormatBytes(s.baseline_peak_bytes),
                       PercentChange(s.peak_bytes - s.baseline_peak_bytes, s.baseline_peak_bytes)));
  html += Card(
      "device arena", FormatBytes(s.arena_bytes),
      fmt::format("before {} ({})", FormatBytes(s.baseline_arena_bytes),
                  PercentChange(s.arena_bytes - s.baseline_arena_bytes, s.baseline_arena_bytes)));
  html += Card(
      "makespan", FormatDuration(s.makespan_ns),
      fmt::format("before {} ({}), stall {}", FormatDuration(s.baseline_makespan_ns),
                  PercentChange(s.makespan_ns - s.baseline_makespan_ns, s.baseline_makespan_ns),
                  FormatDuration(s.stall_ns)));
  html += Card("moved", FormatBytes(moved_bytes),
               fmt::format("{} prefetch, {} store, {} detach", ops(StepKind::kPrefetch),
                           ops(StepKind::kStore), ops(StepKind::kDetach)));
  html += "</div>\n</header>";
  return html;
}

}  // namespace hyperplan::report
