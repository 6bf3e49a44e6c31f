// Test support: a plan's headline numbers computed straight from its steps, timeline and
// decisions, independently of SummarizePlan and of the report, to check what the report
// prints against.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::testing {

struct PlanFacts {
  int64_t baseline_peak_bytes = 0;
  int64_t baseline_makespan_ns = 0;
  int64_t peak_bytes = 0;
  int64_t makespan_ns = 0;
  int64_t stall_ns = 0;
  int64_t compute_ns = 0;
  std::vector<int64_t> moved_per_link;
  std::vector<int64_t> tier_peaks;
  int64_t prefetches = 0;
  int64_t stores = 0;
  int64_t detaches = 0;
  int64_t offloaded_values = 0;
};

inline PlanFacts ComputeFacts(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                              const PlanEvaluation& evaluation) {
  PlanFacts facts;
  // Before: every node in model order, nothing offloaded; the compute stream alone.
  std::vector<NodeId> model_order(graph.nodes.size());
  for (size_t n = 0; n < model_order.size(); ++n) model_order[n] = static_cast<NodeId>(n);
  facts.baseline_peak_bytes = AnalyzeLifetimes(graph, model_order).timeline.peak_bytes;
  for (int64_t t : plan.node_time_ns) facts.baseline_makespan_ns += t;
  // After: the simulated timeline.
  for (const TierUsagePoint& point : evaluation.timeline.bytes_per_tier.at(profile.device_tier)) {
    facts.peak_bytes = std::max(facts.peak_bytes, point.bytes);
  }
  facts.moved_per_link.assign(profile.links.size(), 0);
  int64_t last_compute_end_ns = 0;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    const StepTiming& timing = evaluation.timeline.steps.at(i);
    facts.makespan_ns = std::max(facts.makespan_ns, timing.end_ns);
    switch (step.kind) {
      case StepKind::kCompute:
        facts.stall_ns += timing.start_ns - last_compute_end_ns;
        facts.compute_ns += timing.end_ns - timing.start_ns;
        last_compute_end_ns = timing.end_ns;
        break;
      case StepKind::kPrefetch:
        ++facts.prefetches;
        facts.moved_per_link.at(step.link) += step.bytes;
        break;
      case StepKind::kStore:
        ++facts.stores;
        facts.moved_per_link.at(step.link) += step.bytes;
        break;
      case StepKind::kDetach:
        ++facts.detaches;
        break;
    }
  }
  for (const auto& curve : evaluation.timeline.bytes_per_tier) {
    int64_t peak = 0;
    for (const TierUsagePoint& point : curve) peak = std::max(peak, point.bytes);
    facts.tier_peaks.push_back(peak);
  }
  std::set<ValueId> offloaded;
  for (const Decision& d : plan.decisions) {
    if (d.reason == DecisionReason::kOffloaded) offloaded.insert(d.value);
  }
  facts.offloaded_values = static_cast<int64_t>(offloaded.size());
  return facts;
}

// "+12.5%" / "-33.3%": one decimal, half away from zero, the sign of the change (computed in
// floating point here; the report computes it in integers).
inline std::string ExpectedPercentChange(int64_t delta, int64_t base) {
  const double tenths = std::round(static_cast<double>(delta) * 1000.0 / static_cast<double>(base));
  const auto magnitude = static_cast<int64_t>(std::fabs(tenths));
  return std::string(delta < 0 ? "-" : "+") + std::to_string(magnitude / 10) + "." +
         std::to_string(magnitude % 10) + "%";
}

}  // namespace hyperplan::testing
