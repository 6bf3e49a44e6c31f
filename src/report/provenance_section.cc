// Where the plan came from: the model, the profile, the bound dims, the options, the tool.
// Nothing time- or host-dependent, so the page is the same bytes for the same inputs.
#include <fmt/format.h>

#include "hyperplan/units.h"
#include "report/markup.h"
#include "report/sections.h"

namespace hyperplan::report {
namespace {

std::string Row(const std::string& term, const std::string& description_html) {
  return fmt::format("<dt>{}</dt><dd>{}</dd>\n", EscapeMarkup(term), description_html);
}

std::string Code(const std::string& text) { return "<code>" + EscapeMarkup(text) + "</code>"; }

// "1%" from 10'000 ppm; "0.25%" from 2'500 ppm; exact, up to four decimals.
std::string PpmAsPercent(int64_t ppm) {
  std::string text = std::to_string(ppm / 10'000);
  int64_t fraction = ppm % 10'000;
  if (fraction != 0) {
    std::string digits = fmt::format("{:04d}", fraction);
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    text += "." + digits;
  }
  return text + "%";
}

}  // namespace

std::string ProvenanceSection(const ReportInput& input) {
  const Graph& graph = input.graph;
  const HardwareProfile& profile = input.profile;
  const PlanOptions& options = input.provenance.options;
  std::string dims;
  for (const auto& [name, size] : graph.bound_dims) {
    dims += (dims.empty() ? "" : ", ") + fmt::format("{}={}", name, size);
  }
  std::string tiers;
  for (const Tier& tier : profile.tiers) {
    tiers += (tiers.empty() ? "" : ", ") + tier.name + " " +
             (tier.capacity_bytes > 0 ? FormatBytes(tier.capacity_bytes) : "unbounded") +
             (tier.is_device ? " (device)" : "");
  }
  std::string planned;
  if (!options.offload) {
    planned = "offloading off (baseline)";
  } else if (options.budget_bytes) {
    planned = "device budget " + FormatBytes(*options.budget_bytes);
  } else {
    planned =
        "no budget: cut the peak within " + PpmAsPercent(options.max_overhead_ppm) + " slowdown";
  }
  planned += options.allow_reorder ? "; reordering allowed" : "; model order only";
  planned += options.node_time_ns.empty()
                 ? "; node times from the roofline cost model"
                 : fmt::format("; node times given for {} nodes", options.node_time_ns.size());

  std::string html = "<section id=\"provenance\">\n<h2>Provenance</h2>\n<dl>\n";
  html += Row("model", Code(input.provenance.model_path.empty() ? "(built in memory)"
                                                                : input.provenance.model_path) +
                           EscapeMarkup(fmt::format(" graph '{}', {} nodes, {} values", graph.name,
                                                    graph.nodes.size(), graph.values.size())));
  html += Row("bound dims", dims.empty() ? "(none)" : Code(dims));
  html += Row("hardware profile",
              "<b>" + EscapeMarkup(profile.name) + "</b> from " + Code(profile.source));
  html += Row("tiers", EscapeMarkup(tiers));
  html += Row("options", EscapeMarkup(planned));
  html +=
      Row("plan", EscapeMarkup(fmt::format(
                      "{}; {} steps; arena layout {}",
                      input.plan.reordered ? input.plan.order_name + " order" : "model order",
                      input.plan.steps.size(),
                      input.plan.layout.algorithm.empty() ? "?" : input.plan.layout.algorithm)));
  html += Row("tool",
              EscapeMarkup(input.provenance.tool_version.empty() ? "hyperplan"
                                                                 : input.provenance.tool_version));
  if (!input.provenance.command_line.empty()) {
    html += Row("command", Code(input.provenance.command_line));
  }
  html += "</dl>\n</section>";
  return html;
}

}  // namespace hyperplan::report
