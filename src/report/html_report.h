// HTML report: one self-contained page that shows a plan (inline SVG and CSS; no script, no
// network, nothing outside the file).
//
// What it shows: the run's verdict first (red when no plan fits, with the planner's reason;
// amber when the plan misses the overhead target it is gated on; green only when every gate
// passed); the plan's makespan against its lower bound and every contender; device bytes over
// simulated time before (model order, nothing offloaded) and after, with the budget and the
// capacity, each peak marked and broken down into the values resident then, and the after
// curve again on its own axis when the before one dwarfs it; one lane per stream (the compute
// stream with its stalls and Detaches, each link channel's transfers); where compute waits, by
// link, by layer and by transfer; bytes over time on every other tier; the biggest decisions,
// ranked by the stall they cause, with their reasons; the summary numbers before and after;
// and where the plan came from. Durations and sizes in prose are printed for people.
// Every chart shares one time axis, cut into one column per pixel, and a busy lane turns into
// density bands, so the page stays a few hundred KB and a few thousand elements for a
// 100k-node graph. Output is byte-identical for the same inputs (integer arithmetic only).
// Cost: O(steps + waits + residency + values + decisions log decisions) plus one lifetime
// analysis of the model's order (the "before" curve) and one FindWeightLayers (stalls by
// layer).
// Limits: tooltips (SVG <title>) only where a lane is drawn bar by bar; the page is static.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "hyperplan/planner/options.h"

namespace hyperplan::report {

// Where a plan came from, as the report prints it.
struct ReportProvenance {
  std::string model_path;
  std::string tool_version;  // "hyperplan 0.1.0"
  PlanOptions options;       // what the planner was asked
  std::string command_line;  // shown verbatim when not empty
};

// What the run concluded about the plan, beyond the plan itself: the CLI's gate
// (cli/plan_gate.h) and what the plan is measured against. Default: no gate was evaluated
// (the verdict then follows PlanEvaluation::fits alone) and nothing to compare with.
enum class GateVerdict : uint8_t {
  kNotEvaluated,
  kPassed,        // exit 0
  kInfeasible,    // exit 6: no plan fits the budget (or the device)
  kOverOverhead,  // exit 7: the plan fits but runs slower than --max-overhead allows
};

// Another policy's plan for the same loop and budget (contenders/portfolio.h's contenders).
struct ReportContender {
  std::string name;
  bool fits = false;
  int64_t makespan_ns = 0;
  int64_t arena_bytes = 0;
  int64_t moved_bytes = 0;
};

struct ReportOutcome {
  GateVerdict gate = GateVerdict::kNotEvaluated;
  std::string reason;  // why the gate failed, in words (the planner's or the gate's message)
  std::optional<int64_t> max_overhead_ppm;  // the overhead target gated on, if any
  // What the plan is measured against (budget mode; 0 and empty when unknown): the makespan
  // and live peak no plan in its order can beat at its budget, the contenders' plans, and the
  // planner's own makespan (differs from the plan's when a contender's plan won).
  int64_t makespan_lower_bound_ns = 0;
  int64_t peak_floor_bytes = 0;
  std::vector<ReportContender> contenders;
  std::optional<int64_t> own_makespan_ns;
  bool own_fits = false;
};

void WriteHtmlReport(std::ostream& out, const Graph& graph, const HardwareProfile& profile,
                     const Plan& plan, const PlanEvaluation& evaluation,
                     const ReportProvenance& provenance, const ReportOutcome& outcome = {});

std::string HtmlReport(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                       const PlanEvaluation& evaluation, const ReportProvenance& provenance,
                       const ReportOutcome& outcome = {});

}  // namespace hyperplan::report
