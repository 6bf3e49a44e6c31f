// The plan beside what it is measured against: the makespan no plan in its order can beat at
// its budget, the planner's own plan when a contender's won, and every contender's plan for
// the same loop and budget, the best one marked. Absent when the run knew none of them (no
// budget, or a report made outside the CLI). The bound is left out for a plan over its budget
// (it holds only for plans within it).
#include <fmt/format.h>

#include <tuple>

#include "hyperplan/units.h"
#include "report/markup.h"
#include "report/sections.h"

namespace hyperplan::report {
namespace {

// "2.35x" from a ratio in hundredths, "n/a" without a bound.
std::string TimesBound(int64_t makespan_ns, int64_t bound_ns) {
  if (bound_ns <= 0) return "n/a";
  const __int128 hundredths = (static_cast<__int128>(makespan_ns) * 100 + bound_ns / 2) / bound_ns;
  const auto value = static_cast<int64_t>(hundredths);
  return fmt::format("{}.{:02}\u00d7", value / 100, value % 100);
}

// fits, then makespan, then bytes moved, then arena (contenders/portfolio.h's order).
bool Better(const ReportContender& a, const ReportContender& b) {
  return std::make_tuple(!a.fits, a.makespan_ns, a.moved_bytes, a.arena_bytes) <
         std::make_tuple(!b.fits, b.makespan_ns, b.moved_bytes, b.arena_bytes);
}

std::string Row(const std::string& id, const std::string& name, const std::string& note,
                const std::optional<bool>& fits, int64_t makespan_ns, int64_t bound_ns,
                const std::optional<int64_t>& arena_bytes,
                const std::optional<int64_t>& moved_bytes) {
  auto bytes = [](const std::optional<int64_t>& value) {
    return value ? fmt::format("<td class=\"num\" data-bytes=\"{}\">{}</td>", *value,
                               EscapeMarkup(FormatBytes(*value)))
                 : std::string("<td class=\"num muted\">&#8212;</td>");
  };
  return fmt::format(
      "<tr id=\"{}\"><th scope=\"row\">{}{}</th><td>{}</td><td class=\"num\" data-ns=\"{}\">{}"
      "</td><td class=\"num\">{}</td>{}{}</tr>\n",
      EscapeMarkup(id), EscapeMarkup(name),
      note.empty() ? "" : fmt::format(" <span class=\"muted\">({})</span>", EscapeMarkup(note)),
      fits ? (*fits ? "yes" : "<b>no</b>") : "&#8212;", makespan_ns,
      EscapeMarkup(FormatDuration(makespan_ns)), TimesBound(makespan_ns, bound_ns),
      bytes(arena_bytes), bytes(moved_bytes));
}

int64_t MovedBytes(const PlanEvaluation& evaluation) {
  int64_t total = 0;
  for (int64_t bytes : evaluation.summary.bytes_moved_per_link) total += bytes;
  return total;
}

// The best contender (Better's order), or null when none ran.
const ReportContender* BestContender(const ReportOutcome& outcome) {
  const ReportContender* best = nullptr;
  for (const ReportContender& contender : outcome.contenders) {
    if (best == nullptr || Better(contender, *best)) best = &contender;
  }
  return best;
}

// The sentence above the table: this plan's time, against the bound and the best contender.
std::string ComparisonLine(const ReportInput& input, int64_t bound_ns,
                           const ReportContender* best) {
  const ReportOutcome& outcome = input.outcome;
  const Plan& plan = input.plan;
  std::string line =
      fmt::format("This plan runs an iteration in <b>{}</b>",
                  EscapeMarkup(FormatDuration(input.evaluation.timeline.makespan_ns)));
  if (bound_ns > 0) {
    line += fmt::format(", {} the lower bound of {}",
                        TimesBound(input.evaluation.timeline.makespan_ns, bound_ns),
                        EscapeMarkup(FormatDuration(bound_ns)));
  }
  if (best != nullptr && best->name == plan.produced_by) {
    line += fmt::format("; it is the best contender's, {}", EscapeMarkup(best->name));
    if (outcome.own_makespan_ns) {
      line += fmt::format(", where hyperplan alone runs {}{}",
                          EscapeMarkup(FormatDuration(*outcome.own_makespan_ns)),
                          outcome.own_fits ? "" : " and does not fit");
    }
  } else if (best != nullptr) {
    line += fmt::format("; the best contender, {}, runs {}{}", EscapeMarkup(best->name),
                        EscapeMarkup(FormatDuration(best->makespan_ns)),
                        best->fits ? "" : " and does not fit");
  }
  if (!input.evaluation.fits && outcome.makespan_lower_bound_ns > 0) {
    line += ". The lower bound holds only for plans within the budget, so it is not shown";
  }
  return "<p id=\"comparison-line\">" + line + ".</p>\n";
}

// One row each: the bound, this plan, the planner's own when not chosen, every contender.
std::string ComparisonTable(const ReportInput& input, int64_t bound_ns,
                            const ReportContender* best) {
  const ReportOutcome& outcome = input.outcome;
  const Plan& plan = input.plan;
  std::string html =
      "<table class=\"summary\" id=\"comparison-table\"><thead><tr><th>plan</th><th>fits</th>"
      "<th class=\"num\">makespan</th><th class=\"num\">\u00d7 bound</th>"
      "<th class=\"num\">arena</th><th class=\"num\">moved</th></tr></thead><tbody>\n";
  if (bound_ns > 0) {
    html += Row("comparison-bound", "lower bound", "no plan in this order beats it at this budget",
                std::nullopt, bound_ns, bound_ns,
                outcome.peak_floor_bytes > 0 ? std::optional<int64_t>(outcome.peak_floor_bytes)
                                             : std::nullopt,
                std::nullopt);
  }
  html += Row("comparison-plan", "this plan", plan.produced_by, input.evaluation.fits,
              input.evaluation.timeline.makespan_ns, bound_ns, plan.layout.arena_bytes,
              MovedBytes(input.evaluation));
  if (outcome.own_makespan_ns && plan.produced_by != "hyperplan") {
    html += Row("comparison-own", "hyperplan alone", "the planner's own plan, not chosen",
                outcome.own_fits, *outcome.own_makespan_ns, bound_ns, std::nullopt, std::nullopt);
  }
  for (size_t i = 0; i < outcome.contenders.size(); ++i) {
    const ReportContender& c = outcome.contenders[i];
    html +=
        Row(fmt::format("comparison-contender-{}", i), c.name, &c == best ? "best contender" : "",
            c.fits, c.makespan_ns, bound_ns, c.arena_bytes, c.moved_bytes);
  }
  html += "</tbody></table>\n";
  return html;
}

}  // namespace

std::string ComparisonSection(const ReportInput& input) {
  const ReportOutcome& outcome = input.outcome;
  if (outcome.makespan_lower_bound_ns <= 0 && outcome.contenders.empty()) return "";
  // The bound holds for plans whose live bytes stay within the budget: not for one over it.
  const int64_t bound_ns = input.evaluation.fits ? outcome.makespan_lower_bound_ns : 0;
  const ReportContender* best = BestContender(outcome);
  std::string html = "<section id=\"comparison\">\n<h2>Against the bound and the contenders</h2>\n";
  html += ComparisonLine(input, bound_ns, best);
  html += ComparisonTable(input, bound_ns, best);
  html +=
      "<p class=\"note-text\">The bound: compute alone, or the bytes that cannot stay on the "
      "device at this budget over the link that must carry them, whichever is longer "
      "(contenders/lower_bounds.h). Contenders plan the same loop at the same budget; the best "
      "verified plan of all is the one written.</p>\n";
  html += "</section>";
  return html;
}

}  // namespace hyperplan::report
