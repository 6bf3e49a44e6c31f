// Where compute waits: the stall charged to each link and to each layer, and the transfers
// that held compute back the longest (report/stall_attribution.h says how a stall is
// charged). Each number cell carries its exact integer in data-ns.
#include <fmt/format.h>

#include <algorithm>

#include "hyperplan/plan/bottleneck.h"
#include "hyperplan/plan/host_placement.h"
#include "hyperplan/units.h"
#include "report/markup.h"
#include "report/names.h"
#include "report/sections.h"
#include "report/streams.h"

namespace hyperplan::report {
namespace {

constexpr size_t kLayersShown = 12;
constexpr size_t kTransfersShown = 10;
constexpr size_t kNameChars = 48;

std::string NsCell(const std::string& id, int64_t ns) {
  return fmt::format("<td class=\"num\"{} data-ns=\"{}\">{}</td>",
                     id.empty() ? "" : fmt::format(" id=\"{}\"", EscapeMarkup(id)), ns,
                     EscapeMarkup(FormatDuration(ns)));
}

// link | stall charged | share of all stalls | busy | busy share of the makespan
std::string ByLinkTable(const ReportInput& input) {
  const Plan& plan = input.plan;
  const StallAttribution& stalls = input.stalls;
  const std::vector<int64_t> link_busy_ns =
      LinkBusyNs(input.profile, plan, input.evaluation.timeline);
  std::string html =
      "<table class=\"compact\" id=\"stalls-by-link\"><thead><tr><th>waiting on</th>"
      "<th class=\"num\">stall</th><th class=\"num\">share of stalls</th>"
      "<th class=\"num\">link busy</th><th class=\"num\">busy share of the iteration</th>"
      "</tr></thead><tbody>\n";
  for (size_t l = 0; l < stalls.stall_ns_per_link.size(); ++l) {
    const int64_t stall_ns = stalls.stall_ns_per_link[l];
    const int64_t busy_ns = l < link_busy_ns.size() ? link_busy_ns[l] : 0;
    if (stall_ns == 0 && busy_ns == 0) continue;
    html += fmt::format(
        "<tr><td>{}</td>{}<td class=\"num\">{}</td>{}<td class=\"num\">{}</td></tr>\n",
        EscapeMarkup(LinkName(input.profile, static_cast<int32_t>(l))),
        NsCell(fmt::format("stall-link-{}", l), stall_ns), PercentOf(stall_ns, stalls.total_ns),
        NsCell("", busy_ns), PercentOf(busy_ns, input.evaluation.timeline.makespan_ns));
  }
  if (stalls.unattributed_ns > 0) {
    html += fmt::format(
        "<tr><td class=\"muted\">no transfer</td>{}<td class=\"num\">{}</td><td></td><td></td>"
        "</tr>\n",
        NsCell("stall-link-none", stalls.unattributed_ns),
        PercentOf(stalls.unattributed_ns, stalls.total_ns));
  }
  html += "</tbody></table>\n";
  return html;
}

std::string LayerName(int layer) {
  return layer < 0 ? std::string("outside the layers") : fmt::format("layer {}", layer);
}

std::string ByLayerTable(const ReportInput& input) {
  const std::vector<LayerStall> layers =
      StallsByLayer(input.graph, input.plan, input.evaluation, input.stalls);
  std::string html =
      "<table class=\"compact\" id=\"stalls-by-layer\"><thead><tr><th>layer</th>"
      "<th class=\"num\">stall</th><th class=\"num\">share of stalls</th>"
      "<th class=\"num\">stalled steps</th></tr></thead><tbody>\n";
  const size_t shown = std::min(kLayersShown, layers.size());
  for (size_t i = 0; i < shown; ++i) {
    const LayerStall& entry = layers[i];
    html += fmt::format(
        "<tr><td>{}</td>{}<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        EscapeMarkup(LayerName(entry.layer)),
        NsCell(entry.layer < 0 ? "stall-layer-none" : fmt::format("stall-layer-{}", entry.layer),
               entry.stall_ns),
        PercentOf(entry.stall_ns, input.stalls.total_ns), entry.stalled_steps);
  }
  if (layers.size() > shown) {
    int64_t rest_ns = 0;
    int64_t rest_steps = 0;
    for (size_t i = shown; i < layers.size(); ++i) {
      rest_ns += layers[i].stall_ns;
      rest_steps += layers[i].stalled_steps;
    }
    html += fmt::format(
        "<tr class=\"muted\"><td>{} more layers</td>{}<td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td></tr>\n",
        layers.size() - shown, NsCell("", rest_ns), PercentOf(rest_ns, input.stalls.total_ns),
        rest_steps);
  }
  html += "</tbody></table>\n";
  return html;
}

std::string ByTransferTable(const ReportInput& input) {
  const Plan& plan = input.plan;
  const std::vector<int64_t>& charged = input.stalls.stall_ns_per_step;
  std::vector<int32_t> steps;
  for (size_t s = 0; s < charged.size(); ++s) {
    if (charged[s] > 0) steps.push_back(static_cast<int32_t>(s));
  }
  const size_t shown = std::min(kTransfersShown, steps.size());
  std::partial_sort(steps.begin(), steps.begin() + static_cast<ptrdiff_t>(shown), steps.end(),
                    [&](int32_t a, int32_t b) {
                      return charged[a] != charged[b] ? charged[a] > charged[b] : a < b;
                    });
  std::string html =
      "<table class=\"compact\" id=\"stalls-by-transfer\"><thead><tr><th>step</th><th>transfer"
      "</th><th>value</th><th class=\"num\">bytes</th><th>link</th>"
      "<th class=\"num\">queued on its channel</th><th class=\"num\">compute waited</th>"
      "</tr></thead><tbody>\n";
  for (size_t i = 0; i < shown; ++i) {
    const PlanStep& step = plan.steps[steps[i]];
    const std::string name = ValueName(input.graph, step.value);
    html += fmt::format(
        "<tr><td class=\"num\">{}</td><td>{}</td><td class=\"value\" title=\"{}\">{}</td>"
        "<td class=\"num\">{}</td><td>{}</td>{}{}</tr>\n",
        steps[i], StepKindName(step.kind), EscapeMarkup(name),
        EscapeMarkup(Abbreviate(name, kNameChars)), EscapeMarkup(FormatBytes(step.bytes)),
        EscapeMarkup(LinkName(input.profile, step.link)),
        NsCell("", input.stalls.queued_ns_per_step[steps[i]]), NsCell("", charged[steps[i]]));
  }
  html += "</tbody></table>\n";
  return html;
}

// For a plan that computes on the host: the stalls of each unit's steps (a step's stall is its
// wait after every earlier compute step, of either unit, has ended), in data-ns; "" otherwise.
std::string PerUnitParagraph(const ReportInput& input) {
  const std::array<UnitTimes, 2> units = TimesPerUnit(input.plan, input.evaluation.timeline);
  if (units[1].nodes == 0) return "";
  return fmt::format(
      "<p id=\"stalls-per-unit\">The device's compute stream waits <b data-ns=\"{}\">{}</b>; "
      "the host lane waits <b data-ns=\"{}\">{}</b>.</p>\n",
      units[0].stall_ns, EscapeMarkup(FormatDuration(units[0].stall_ns)), units[1].stall_ns,
      EscapeMarkup(FormatDuration(units[1].stall_ns)));
}

}  // namespace

std::string StallsSection(const ReportInput& input) {
  const PlanEvaluation& evaluation = input.evaluation;
  const StallAttribution& stalls = input.stalls;
  std::string html = "<section id=\"stalls\">\n<h2>Where compute waits</h2>\n";
  if (stalls.total_ns == 0) {
    html += "<p>Compute never waits for a transfer: every copy hides behind compute.</p>\n";
    html += "</section>";
    return html;
  }
  html += fmt::format(
      "<p>Compute waits <b>{}</b> in all, {} of the {} iteration. Each stall is charged to the "
      "transfer that ended last among those the stalled step waited for.</p>\n",
      EscapeMarkup(FormatDuration(stalls.total_ns)),
      PercentOf(stalls.total_ns, evaluation.timeline.makespan_ns),
      EscapeMarkup(FormatDuration(evaluation.timeline.makespan_ns)));
  html += PerUnitParagraph(input);
  html += "<div class=\"peaks\">\n<div>\n<h3>By link</h3>\n" + ByLinkTable(input) +
          "</div>\n<div>\n<h3>By layer</h3>\n" + ByLayerTable(input) + "</div>\n</div>\n";
  html +=
      "<h3>Transfers that held compute back the longest</h3>\n<p class=\"note-text\">A "
      "transfer that queued long on its channel waited behind earlier transfers: the stall "
      "is the link's backlog as much as its own.</p>\n" +
      ByTransferTable(input);
  html += "</section>";
  return html;
}

}  // namespace hyperplan::report
