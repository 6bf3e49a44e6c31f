// HTML report: one self-contained page that shows a plan (inline SVG and CSS; no script, no
// network, nothing outside the file).
//
// What it shows: the summary numbers before and after the plan; device bytes over simulated
// time before (model order, nothing offloaded) and after, with the budget and the capacity,
// each peak marked and broken down into the values resident then; one lane per stream (the
// compute stream with its stalls and Detaches, each link channel's transfers); bytes over time
// on every other tier; the biggest decisions with their reasons; and where the plan came from.
// Every chart shares one time axis, cut into one column per pixel, and a busy lane turns into
// density bands, so the page stays a few hundred KB and a few thousand elements for a
// 100k-node graph. Output is byte-identical for the same inputs (integer arithmetic only).
// Cost: O(steps + residency + values + decisions log decisions) plus one lifetime analysis of
// the model's order (the "before" curve).
// Limits: tooltips (SVG <title>) only where a lane is drawn bar by bar; the page is static.
#pragma once

#include <ostream>
#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/planner/options.h"
#include "hyperplan/planner/plan.h"

namespace hyperplan::report {

// Where a plan came from, as the report prints it.
struct ReportProvenance {
  std::string model_path;
  std::string tool_version;  // "hyperplan 0.1.0"
  PlanOptions options;       // what the planner was asked
  std::string command_line;  // shown verbatim when not empty
};

void WriteHtmlReport(std::ostream& out, const Graph& graph, const HardwareProfile& profile,
                     const Plan& plan, const ReportProvenance& provenance);

std::string HtmlReport(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                       const ReportProvenance& provenance);

}  // namespace hyperplan::report
