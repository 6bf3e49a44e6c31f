// plan --routing-samples N / --routing-seed S: the plan over sampled routings of its MoE nodes
// (plan/routing_spread.h), as a summary line and RunSummary fields; a plan that fails to
// verify under a sampled routing is the planner's bug and ends the run before any output is
// written (exit 1, naming the routing and the rule).
// Cost: the samples' replays and verifications (routing_spread.h); nothing for a model with no
// com.microsoft MoE/QMoE node.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/routing_spread.h"
#include "schemas/plan.pb.h"

namespace hyperplan::cli {

struct RoutingFlags {
  int32_t samples = 32;         // --routing-samples (0: none)
  uint64_t seed = 1;            // --routing-seed
  bool no_route_fetch = false;  // --no-route-fetch (PlanOptions::route_fetch)
};

void AddRoutingFlags(CLI::App& command, RoutingFlags& flags);

// Samples the routings of `planned`, records them and the resident experts per MoE layer
// (RunSummary.moe_experts) in `summary` and returns the summary text
// lines: the plan's fetches after route, if any ("  experts: ..."), then the samples' ("" when
// the model has no MoE node or no samples were asked for). Throws
// Error(kInternal) when the plan fails to verify under one of them.
std::string SampleRoutings(const RoutingFlags& flags, const std::string& model_path,
                           const Graph& graph, const HardwareProfile& profile,
                           const EvaluatedPlan& planned, plan::v1::RunSummary& summary);

}  // namespace hyperplan::cli
