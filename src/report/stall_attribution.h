// Stall attribution: which transfer each compute stall waited on, and so which decision, link
// and layer the stall is owed to.
//
// A compute step stalls when it starts after the previous step on the compute stream ended
// (SimulationResult::stall_ns_per_node). It starts when the last of its waits_for ends, so the
// wait that ended last (ties: the lowest step index) is charged the whole stall: its binding
// wait. A binding wait that is a transfer charges its link and its decision (the offloaded
// decision of the same value whose gap holds the transfer's boundary: gap_after_step <
// boundary <= gap_before_step, or either end of a gap that wraps around a periodic plan's
// iteration; else that value's only offloaded decision); anything else
// (a wait on no transfer) stays unattributed. A stall's layer is the layer whose visit holds
// the stalled step (hyperplan/layers.h: the steps reading that layer's weights), else the
// layer named by the value the step waited for, else none.
// Cost: O(steps + waits + decisions) plus one FindWeightLayers for the layer view.
// Limits: direct waits only: a transfer that is late because the one before it on its channel
// ran long is charged, not its predecessor (queued_ns_per_step says how long it queued); a
// contender's plan has no decisions, so its stalls go to links and layers only.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::report {

struct StallAttribution {
  std::vector<int32_t> binding_wait;           // by plan step: a stalled compute step's; else -1
  std::vector<int64_t> stall_ns_per_step;      // by plan step: the stall charged to each transfer
  std::vector<int32_t> decision_of_step;       // by plan step: a transfer's decision, else -1
  std::vector<int64_t> stall_ns_per_decision;  // by Plan::decisions index
  std::vector<int64_t> stall_ns_per_link;      // by link index
  // By plan step: for a transfer, the time from its last wait's end (or the run start) to its
  // own start: spent queued behind earlier transfers on its channel. A stall charged to a
  // transfer that queued this long is owed to the link's backlog as much as to the transfer.
  std::vector<int64_t> queued_ns_per_step;
  int64_t unattributed_ns = 0;  // stalls whose binding wait is no transfer
  int64_t total_ns = 0;         // every compute stall
};

StallAttribution AttributeStalls(const HardwareProfile& profile, const Plan& plan,
                                 const PlanEvaluation& evaluation);

struct LayerStall {
  int layer = -1;  // the N of "layers.N."; -1: outside every layer
  int64_t stall_ns = 0;
  int64_t stalled_steps = 0;
};

// Stall per layer, the largest first (ties: the lower layer number); layers without a stall
// are left out.
std::vector<LayerStall> StallsByLayer(const Graph& graph, const Plan& plan,
                                      const PlanEvaluation& evaluation,
                                      const StallAttribution& attribution);

}  // namespace hyperplan::report
