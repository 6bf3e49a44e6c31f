// The HTML report's sections, each a function from the report's inputs to a block of HTML
// (one file each). ReportInput carries what several sections read, computed once.
#pragma once

#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "report/device_memory.h"
#include "report/html_report.h"
#include "report/stall_attribution.h"
#include "report/time_columns.h"

namespace hyperplan::report {

struct ReportInput {
  const Graph& graph;
  const HardwareProfile& profile;
  const Plan& plan;
  const PlanEvaluation& evaluation;  // the plan's replay, fit and summary
  const ReportProvenance& provenance;
  const ReportOutcome& outcome;
  BaselineMemory baseline;    // the model's order with nothing offloaded
  PeakComposition plan_peak;  // the plan's device peak
  TimeColumns columns;        // shared by every chart: [0, the later of both makespans]
  StallAttribution stalls;    // what each compute stall waited on
};

std::string HeaderSection(const ReportInput& input);      // title, verdict, headline cards
std::string ComparisonSection(const ReportInput& input);  // bound and contenders ("" if none)
std::string SummarySection(const ReportInput& input);     // every number, before and after
std::string MemorySection(const ReportInput& input);      // device chart and peak breakdowns
std::string StreamsSection(const ReportInput& input);     // compute and copy stream lanes
std::string StallsSection(const ReportInput& input);      // stalls by link and by layer
std::string TiersSection(const ReportInput& input);       // bytes on the other tiers
std::string DecisionsSection(const ReportInput& input);   // biggest decisions and reasons
std::string ProvenanceSection(const ReportInput& input);  // model, profile, dims, options

// The page's style sheet (no '<' or '&' in it, so the page also parses as XML).
const char* ReportStyleSheet();

}  // namespace hyperplan::report
