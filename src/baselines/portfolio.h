// PlanBest: the planner's plan, or a contender's where it is better: a floor, not the fix.
//
// Where the model does not fit the device, simple policies (layer streaming above all) still
// beat the planner in some cells (../docs/benchmarks.md). Until the planner wins them itself,
// a user should not get the worse plan: in budget mode (a --budget, or a device the model
// does not fit) the contenders plan the same loop on the same graph, every plan passes the
// same verifier, and the best wins: fits first, then the shortest iteration, then fewer bytes
// moved, then the smaller arena; ties keep the planner's. Plan::produced_by names the winner
// (the summary, the plan file and the report say it); a contender's plan explains no
// decisions. Without a budget on a device the model fits, the planner's plan is returned
// as is (its overhead mode has no counterpart among the contenders).
// The portfolio is every contender of `hyperplan-bench compare` but reactive LRU, which never
// won a cell there: layer streaming k=0, 1, 2 and op distance 4, 32 (k=0 won one by 10 ms);
// and hyperplan's own layer schedule, interleaved layer streaming k=1, 2 (resident layers
// spread among the streamed ones, layer_streaming.h), which no peer policy does: it reaches
// the lower bound on Llama-3-70B decode on the GH200 and supernode profiles, where the
// leading-layers form binds on the link through its streamed tail (1.16-1.40x the bound).
// When a contender wins, the planner plans again on its simulated timeline
// (PlanOptions::planning_step_start_ns) and takes the cell back where it does better there.
// Cost: the planner (twice when a contender wins), plus seven policies (each a few plans with
// layout and replay, bounded by their budget searches; about 2-4 s each on a 123k-node graph)
// and one verification each.
#pragma once

#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/planner/options.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::baselines {

// The contenders that may replace the planner's plan, by the name produced_by takes.
std::vector<std::string> PortfolioPolicies();

// PlanOffload, then the contenders (see above). `result.infeasibility` stays the planner's
// when the winner is a contender (it explains why hyperplan's own plan did not fit).
PlanResult PlanBest(const Graph& graph, const HardwareProfile& profile,
                    const PlanOptions& options);

}  // namespace hyperplan::baselines
