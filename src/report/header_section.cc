// The page's head: what was planned, the verdict (with the reason when a gate failed), and
// four headline numbers.
#include <fmt/format.h>

#include "hyperplan/units.h"
#include "report/markup.h"
#include "report/sections.h"

namespace hyperplan::report {
namespace {

// The badge's colour and words, and the reason shown under it when a gate failed: red when
// no plan fits, amber when the plan fits but misses the overhead target it is gated on, green
// only when nothing failed.
struct Verdict {
  std::string css_class;  // "good", "warn", "bad", "neutral"
  std::string badge;
  std::string reason;  // empty when nothing failed
};

std::string BudgetWords(const Plan& plan) {
  return plan.budget_bytes ? fmt::format("the {} budget", FormatBytes(*plan.budget_bytes))
                           : std::string("the device");
}

Verdict Judge(const ReportInput& input) {
  const Plan& plan = input.plan;
  const ReportOutcome& outcome = input.outcome;
  if (outcome.gate == GateVerdict::kInfeasible || !input.evaluation.fits) {
    std::string reason = outcome.reason;
    if (reason.empty()) {
      reason = plan.budget_bytes ? fmt::format("the arena needs {}, above the {} budget",
                                               FormatBytes(plan.layout.arena_bytes),
                                               FormatBytes(*plan.budget_bytes))
                                 : fmt::format("the arena needs {}, more than the device holds",
                                               FormatBytes(plan.layout.arena_bytes));
    }
    return {"bad", "does not fit " + BudgetWords(plan), std::move(reason)};
  }
  if (outcome.gate == GateVerdict::kOverOverhead) {
    const std::string target =
        outcome.max_overhead_ppm
            ? fmt::format(" of {}", PercentOf(*outcome.max_overhead_ppm, 1'000'000))
            : std::string();
    return {"warn",
            plan.budget_bytes
                ? fmt::format("fits {}, misses the overhead target{}", BudgetWords(plan), target)
                : fmt::format("misses the overhead target{}", target),
            outcome.reason.empty() ? "the plan runs slower than the overhead target allows"
                                   : outcome.reason};
  }
  if (!plan.offload_enabled) return {"neutral", "offloading off: the baseline plan", ""};
  if (plan.budget_bytes) return {"good", "fits " + BudgetWords(plan), ""};
  return {"good", "no budget: peak cut within the overhead limit", ""};
}

std::string Card(const std::string& title, const std::string& value, const std::string& detail) {
  return fmt::format(
      "<div class=\"card\"><div class=\"card-title\">{}</div><div class=\"card-value\">{}</div>"
      "<div class=\"card-detail\">{}</div></div>",
      EscapeMarkup(title), EscapeMarkup(value), EscapeMarkup(detail));
}

}  // namespace

std::string HeaderSection(const ReportInput& input) {
  const PlanSummary& s = input.evaluation.summary;
  int64_t moved_bytes = 0;
  for (int64_t bytes : s.bytes_moved_per_link) moved_bytes += bytes;
  auto ops = [&](StepKind kind) { return s.steps_per_kind[static_cast<size_t>(kind)]; };

  const Verdict verdict = Judge(input);
  std::string html = "<header>\n";
  html +=
      fmt::format("<h1>Offload plan for <span class=\"name\">{}</span></h1>\n",
                  EscapeMarkup(input.graph.name.empty() ? "(unnamed graph)" : input.graph.name));
  html +=
      fmt::format("<p class=\"subtitle\">on <b>{}</b> &#183; {} nodes &#183; {} &#183; {}</p>\n",
                  EscapeMarkup(input.profile.name), input.plan.order.size(),
                  input.plan.reordered ? input.plan.order_name + " order" : "model order",
                  fmt::format("<span class=\"badge {}\" id=\"verdict\">{}</span>",
                              verdict.css_class, EscapeMarkup(verdict.badge)));
  if (!verdict.reason.empty()) {
    html += fmt::format(
        "<p class=\"alert {}\" id=\"verdict-reason\"><b>{}:</b> {}</p>\n", verdict.css_class,
        verdict.css_class == "bad" ? "Why no plan fits" : "Why the target is missed",
        EscapeMarkup(HumanizeQuantities(verdict.reason)));
  }
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
