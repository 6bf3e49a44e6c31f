// A plan over sampled routings (issue 31): the iteration time's mean and p99 when each MoE node
// reads the experts one drawn routing touches, and whether the plan verifies under each.
//
// The plan is what the planner made for the expected routing (routing.h); a runtime meets one
// routing per iteration. Each sample (routing_samples.h: seeded, the same on every machine)
// re-times the plan's MoE compute steps on their units: the step's planned time plus the
// difference between its roofline at the sampled and at the expected distinct experts (so a
// measured node time, --node-times, keeps its measured base), then replays the plan and
// verifies it (VerifyPlan on the replay's own evaluation). A routed Prefetch (fetch after
// route, plan.h PlanStep::routed_by) moves the sample's touched experts that no partial
// residency holds. Only durations change: the steps, waits and residency are the plan's (a
// routed block reserves the worst routing), so a routing can only break a plan through timing
// (a tier's simulated peak, an arena block still live), which the per-sample verification
// catches. The p99 is the nearest-rank 99th percentile of the samples' iteration times.
// Cost: per sample one Simulate, one EvaluatePlan and one VerifyPlan, plus the draws
// (routing_samples.h). Limits: com.microsoft MoE/QMoE nodes and the gather form's expert
// Gathers (a layer's Gathers of one router draw the same experts); a stacked tensor moved
// whole does not depend on the routing.
#pragma once

#include <cstdint>
#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

struct RoutingSpreadOptions {
  int32_t samples = 32;
  uint64_t seed = 1;
};

struct RoutingSpread {
  int32_t samples = 0;  // 0: no MoE node with a known shape, or no samples asked for
  uint64_t seed = 0;
  int32_t moe_nodes = 0;
  double mean_distinct_experts = 0;  // per MoE node and routing
  int64_t mean_ns = 0;               // iteration (or run) time, over the samples
  int64_t p99_ns = 0;
  int64_t max_ns = 0;
  int32_t failed_sample = -1;  // the first routing under which the plan fails to verify
  std::string failure;         // VerifyPlan's message for it
};

RoutingSpread EvaluateRoutingSpread(const Graph& graph, const HardwareProfile& profile,
                                    const Plan& plan, const NoOffloadReference& reference,
                                    const RoutingSpreadOptions& options);

// "32 sampled routings (seed 1): mean 38.4 ms, p99 41.0 ms, 8.0 distinct experts per MoE
// node; the plan verifies under each", or the failing routing; "" when no samples were taken.
std::string DescribeRoutingSpread(const RoutingSpread& spread);

}  // namespace hyperplan
