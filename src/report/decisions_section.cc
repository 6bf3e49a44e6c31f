// The biggest offload decisions with their reasons, the largest candidates left on the device
// with theirs, and how many candidates each reason turned away.
#include <fmt/format.h>

#include "hyperplan/units.h"
#include "report/decision_ranking.h"
#include "report/markup.h"
#include "report/names.h"
#include "report/sections.h"

namespace hyperplan::report {
namespace {

constexpr size_t kOffloadsShown = 20;
constexpr size_t kRejectionsShown = 10;
constexpr size_t kNameChars = 40;  // full name in the tooltip

std::string GapText(const Plan& plan, const Decision& d) {
  const std::string after = d.gap_after_step < 0 ? "start" : std::to_string(d.gap_after_step);
  const std::string before = static_cast<size_t>(d.gap_before_step) >= plan.order.size()
                                 ? "end"
                                 : std::to_string(d.gap_before_step);
  return after + " \u2192 " + before;
}

std::string ValueCell(const Graph& graph, ValueId value) {
  const std::string name = ValueName(graph, value);
  return fmt::format("<td class=\"value\" title=\"{}\">{}</td>", EscapeMarkup(name),
                     EscapeMarkup(Abbreviate(name, kNameChars)));
}

std::string OffloadsTable(const ReportInput& input, const std::vector<int32_t>& ranked) {
  std::string html =
      "<table class=\"decisions\" id=\"offloads\"><thead><tr><th>#</th><th>value</th>"
      "<th>class</th><th class=\"num\">bytes</th><th>to</th><th>idle steps</th>"
      "<th class=\"num\">gap</th><th class=\"num\">transfer</th><th class=\"num\">freed steps</th>"
      "<th class=\"num\">stall (predicted)</th><th class=\"num\">stall (simulated)</th>"
      "<th>why</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < ranked.size(); ++i) {
    const Decision& d = input.plan.decisions[ranked[i]];
    const int64_t simulated_stall_ns = input.stalls.stall_ns_per_decision[ranked[i]];
    const std::string freed = d.freed_first_step >= 0
                                  ? fmt::format("{}\u2013{}", d.freed_first_step, d.freed_last_step)
                                  : "\u2014";
    html += fmt::format(
        "<tr><td class=\"num\">{}</td>{}<td>{}</td><td class=\"num\">{}</td><td>{}</td>"
        "<td class=\"nowrap\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\" data-ns=\"{}\">{}</td>"
        "<td class=\"why\">{}</td></tr>\n",
        i + 1, ValueCell(input.graph, d.value), EscapeMarkup(ValueClassText(input.graph, d.value)),
        EscapeMarkup(FormatBytes(d.bytes)), EscapeMarkup(TierName(input.profile, d.tier)),
        EscapeMarkup(GapText(input.plan, d)), EscapeMarkup(FormatDuration(d.gap_ns)),
        EscapeMarkup(FormatDuration(d.transfer_ns)), EscapeMarkup(freed),
        EscapeMarkup(FormatDuration(d.predicted_stall_ns)), simulated_stall_ns,
        EscapeMarkup(FormatDuration(simulated_stall_ns)),
        EscapeMarkup(HumanizeQuantities(d.detail)));
  }
  html += "</tbody></table>\n";
  return html;
}

std::string RejectionsTable(const ReportInput& input, const std::vector<int32_t>& ranked) {
  std::string html =
      "<table class=\"decisions\" id=\"rejections\"><thead><tr><th>value</th><th>class</th>"
      "<th class=\"num\">bytes</th><th>idle steps</th><th class=\"num\">gap</th>"
      "<th>reason</th><th>why</th></tr></thead><tbody>\n";
  for (int32_t index : ranked) {
    const Decision& d = input.plan.decisions[index];
    html += fmt::format(
        "<tr>{}<td>{}</td><td class=\"num\">{}</td><td class=\"nowrap\">{}</td>"
        "<td class=\"num\">{}</td>"
        "<td><span class=\"reason\">{}</span></td><td class=\"why\">{}</td></tr>\n",
        ValueCell(input.graph, d.value), EscapeMarkup(ValueClassText(input.graph, d.value)),
        EscapeMarkup(FormatBytes(d.bytes)), EscapeMarkup(GapText(input.plan, d)),
        EscapeMarkup(FormatDuration(d.gap_ns)), EscapeMarkup(DecisionReasonName(d.reason)),
        EscapeMarkup(HumanizeQuantities(d.detail)));
  }
  html += "</tbody></table>\n";
  return html;
}

}  // namespace

std::string DecisionsSection(const ReportInput& input) {
  const Plan& plan = input.plan;
  const auto counts = CountByReason(plan);
  const int64_t offloaded = counts[static_cast<size_t>(DecisionReason::kOffloaded)];
  const int64_t rejected = static_cast<int64_t>(plan.decisions.size()) - offloaded;

  std::string html = "<section id=\"decisions\">\n<h2>Decisions</h2>\n";
  if (plan.decisions.empty() && !plan.produced_by.empty() && plan.produced_by != "hyperplan") {
    html += fmt::format(
        "<p id=\"decisions-contender\">This plan is {}'s, which beat the planner's own and "
        "explains no decisions. Its transfers are in the streams above, and the ones compute "
        "waits for are under \u201cWhere compute waits\u201d.</p>\n</section>",
        EscapeMarkup(plan.produced_by));
    return html;
  }
  html += fmt::format("<p>{} candidate gaps: <b>{}</b> offloaded, {} left on the device.</p>\n",
                      plan.decisions.size(), offloaded, rejected);
  if (offloaded > 0) {
    const std::vector<int32_t> ranked =
        BiggestOffloads(plan, input.stalls.stall_ns_per_decision, kOffloadsShown);
    html += fmt::format(
        "<h3>Biggest offloads{}</h3>\n<p class=\"note-text\">Ranked by the simulated stall "
        "each causes (compute waiting on its transfers), then by bytes \u00d7 steps freed on "
        "the device.</p>\n",
        ranked.size() < static_cast<size_t>(offloaded)
            ? fmt::format(" (top {} of {})", ranked.size(), offloaded)
            : std::string());
    html += OffloadsTable(input, ranked);
  }
  if (rejected > 0) {
    html += "<h3>Why the rest stays</h3>\n<ul class=\"reasons\">";
    for (int r = 0; r < kDecisionReasonCount; ++r) {
      const auto reason = static_cast<DecisionReason>(r);
      if (reason == DecisionReason::kOffloaded || counts[r] == 0) continue;
      html += fmt::format("<li><span class=\"reason\">{}</span> {}</li>",
                          EscapeMarkup(DecisionReasonName(reason)), counts[r]);
    }
    html += "</ul>\n";
    const std::vector<int32_t> ranked = BiggestRejections(plan, kRejectionsShown);
    html +=
        fmt::format("<p class=\"note-text\">The {} largest candidates left on the device:</p>\n",
                    ranked.size());
    html += RejectionsTable(input, ranked);
  }
  html += "</section>";
  return html;
}

}  // namespace hyperplan::report
