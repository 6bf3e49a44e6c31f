// The report page (see html_report.h): computes what several sections share, then writes the
// sections in reading order.
#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "report/markup.h"
#include "report/sections.h"
#include "report/svg_frame.h"

namespace hyperplan::report {

void WriteHtmlReport(std::ostream& out, const Graph& graph, const HardwareProfile& profile,
                     const Plan& plan, const PlanEvaluation& evaluation,
                     const ReportProvenance& provenance, const ReportOutcome& outcome) {
  BaselineMemory baseline = DescribeBaseline(graph, plan);
  const int64_t end_ns = std::max(evaluation.timeline.makespan_ns, baseline.makespan_ns);
  const ReportInput input{graph,
                          profile,
                          plan,
                          evaluation,
                          provenance,
                          outcome,
                          std::move(baseline),
                          DescribePlanPeak(profile, plan, evaluation),
                          ChartColumns(end_ns),
                          AttributeStalls(profile, plan, evaluation)};

  out << "<!DOCTYPE html>\n"
      << "<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      << "<meta charset=\"utf-8\"/>\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
      << "<meta name=\"generator\" content=\"" << EscapeMarkup(provenance.tool_version) << "\"/>\n"
      << "<title>" << EscapeMarkup(fmt::format("hyperplan plan: {}", graph.name)) << "</title>\n"
      << "<style>" << ReportStyleSheet() << "</style>\n</head>\n<body>\n<main>\n";
  out << HeaderSection(input) << "\n";
  const std::string comparison = ComparisonSection(input);
  if (!comparison.empty()) out << comparison << "\n";
  out << MemorySection(input) << "\n";
  out << StreamsSection(input) << "\n";
  out << StallsSection(input) << "\n";
  out << TiersSection(input) << "\n";
  out << DecisionsSection(input) << "\n";
  out << SummarySection(input) << "\n";
  out << ProvenanceSection(input) << "\n";
  out << "</main>\n</body>\n</html>\n";
}

std::string HtmlReport(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                       const PlanEvaluation& evaluation, const ReportProvenance& provenance,
                       const ReportOutcome& outcome) {
  std::ostringstream out;
  WriteHtmlReport(out, graph, profile, plan, evaluation, provenance, outcome);
  return out.str();
}

}  // namespace hyperplan::report
