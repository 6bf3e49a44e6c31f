// Device memory before and after the plan: the no-offload curve over time and what is
// resident at each peak.
//
// Before: the model's order with nothing offloaded (LifetimeAnalysis of ModelOrder) on the graph
// the plan was made for: for a periodic plan the loop graph (loop.h), where an in-place pair
// such as a KV append is one buffer, as the planner's no-offload reference counts it (so the
// chart and the peak table show the summary's baseline peak, not the pair twice). Each
// compute step back to back with the plan's node times; during step k the device holds the
// step's live bytes, so the curve is the simulator's for a plan without cache ops (it ends at
// 0 when the run ends). After: the plan's simulated curve; its peak instant is the first point
// reaching the tier's peak, and what is resident then follows the simulator's rules (an
// interval holds its bytes from its opening step's start to its closing step's end, frees
// before allocations at one instant, zero-length intervals counted at their instant).
// Cost: O(nodes + values) before; O(residency + steps) after, plus sorting the shares.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::report {

// One resident block at a peak: a value, or a control-flow node's body scratch.
struct PeakShare {
  ValueId value = kNoValue;
  NodeId scratch_node = kNoNode;
  int64_t bytes = 0;
};

struct PeakComposition {
  int64_t time_ns = 0;
  int64_t bytes = 0;  // the curve's peak
  Step step = -1;     // the compute step running (or about to run) at the peak; -1: none
  NodeId node = kNoNode;
  std::vector<PeakShare> shares;  // largest first, ties by value id then scratch node
  int64_t shares_bytes = 0;       // sum of shares; equals `bytes` for a consistent plan
};

struct BaselineMemory {
  std::vector<TierUsagePoint> curve;  // device bytes over time, ascending
  int64_t makespan_ns = 0;
  PeakComposition peak;
};

// `graph` is the model's own; a periodic plan's aliases are applied here (LoopGraph). Its peak
// bytes are the evaluation's summary.baseline_peak_bytes.
BaselineMemory DescribeBaseline(const Graph& graph, const Plan& plan);

// The plan's device peak and what is resident then; bytes 0 and no shares when the plan's
// evaluated timeline has no device curve.
PeakComposition DescribePlanPeak(const HardwareProfile& profile, const Plan& plan,
                                 const PlanEvaluation& evaluation);

}  // namespace hyperplan::report
