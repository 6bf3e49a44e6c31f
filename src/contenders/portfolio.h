// PlanBest: the planner's plan, or a contender's where it is better: a floor, not the fix.
//
// Where the model does not fit the device, simple policies (layer streaming above all) still
// beat the planner in some cells (../docs/benchmarks.md). Until the planner wins them itself,
// a user should not get the worse plan: in budget mode (a --budget, or a device the model
// does not fit) the contenders plan the same loop on the same graph, every plan passes the
// same verifier, and the best wins: fits first, then the shortest iteration, then fewer bytes
// moved, then the smaller arena (when none fits: the smallest arena first, the plan that came
// nearest); ties keep the planner's. Plan::produced_by names the winner
// (the summary, the plan file and the report say it); a contender's plan explains no
// decisions. Without a budget on a device the model fits, the planner's plan is returned
// as is (its overhead mode has no counterpart among the contenders).
// The portfolio is every contender of `hyperplan-bench compare` but reactive LRU, which never
// won a cell there: layer streaming k=0, 1, 2 and op distance 4, 32 (k=0 won one by 10 ms);
// and hyperplan's own layer schedule, interleaved layer streaming k=1, 2 (resident layers
// spread among the streamed ones, layer_streaming.h), which no peer policy does: it reaches
// the lower bound on Llama-3-70B decode on the GH200 and supernode profiles, where the
// leading-layers form binds on the link through its streamed tail (1.16-1.40x the bound).
// Where some homes sit behind a staging tier (NVMe behind DDR), two more of hyperplan's own
// forms run. Home-aware layer streaming k=1 keeps on the device the values homed behind the
// staging tier first (each would cross NVMe every iteration), then the leading ones, as many
// as fit (LayerStreamingOptions::slow_homes_resident): the plan moves only what the lower
// bound forces over NVMe, not a layer's spread share. It also runs with its staging hops 2, 4
// and 8 layers ahead of the device hop (LayerStreamingOptions::stage_lead_layers) and as far
// ahead as DDR's free room allows (stage_by_room), so NVMe reads overlap the PCIe stream of
// the layers before. Without such homes these entries would rebuild other entries' plans and
// are skipped; a staged entry is also skipped where its unstaged twin does not fit (it holds
// the same device bytes and more staging bytes). Interleaved k=1 ran staged too until
// 2026-11-26; with the channel rule below it won no cell and was dropped. Measured
// (hyperplan-bench compare, 2026-11-26): they win every NVMe cell; home-aware residency took
// Llama-3-70B batch 16 on h100-sxm from 9.73 to 8.30 s (7.63 s staged by room) and
// Llama-3-405B prefill from 83.5 to 82.6 s (h100-sxm), 25.6 to 24.4 s (gh200) and 47.2 to
// 45.5 s (a100-pcie4), and the DeepSeek-V3-sized decode from 63.5 to 61.5 s (gh200) and
// 122.2 to 120.4 s (a100-pcie4). Taking the channel that frees first instead of round robin
// (plan_builder.h) then took the 405B prefill to 79.1, 23.7 and 44.9 s.
// Every layer-streaming policy here streams a layer's KV cache with its weights (as the
// benchmark's layer-streaming contender does, like FlexGen and ZeRO-Inference's KV offload):
// a batch-16 32k cache (172 GB) fits no 80 GB device otherwise. Every policy's numbers and the
// lower bounds at the planned budget are kept in the result (PortfolioComparison, when asked
// for), so a report can set them beside the plan.
// Until 2026-11-26 the planner also planned again on a winning contender's simulated timeline;
// that replan took no cell back in `hyperplan-bench compare` and cost 8 s of the 20 s the
// DeepSeek-V3-sized decode planned in on h100-sxm, and was dropped.
// Cost: the planner, plus seven policies, twelve with staging homes (each a few plans with
// layout and replay, bounded by their budget searches; about 1-3.5 s each on a 123k-node
// graph), a verification of each that beats the contenders before it, and the planner's own
// verification; the lower bounds cost O(nodes + values * route length + steps).
// Concurrency: on a machine with a second core the contenders run on a thread of their own
// beside the planner's first run, at the budget it will plan to (the asked budget capped by
// the device, else the device: the planner's budget whenever its overhead-mode plan does not
// fit); dropped if the planner's plan fits without one, run again should the budgets differ.
// Once the planner is done its thread builds contenders too (contender_pool.h). What
// PlanBest returns, or throws, does not depend on any of it: a contender's error counts only
// where the contenders' plans do (not from a run cancelled as moot), and it is the earliest
// task's. The DeepSeek-V3-sized decode on h100-sxm
// (123k nodes): 31.8 -> 18.5 s of planning with the twin rule and the treap's path updates,
// 20 -> 11-12 s without the replan on a contender's timeline and with the pool
// (docs/benchmarks.md, "Planner time"), same plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/planner/options.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::contenders {

// The contenders that may replace the planner's plan, by the name produced_by takes.
std::vector<std::string> PortfolioPolicies();

// A contender's plan as PlanBest saw it (its plan is not kept).
struct ContenderOutcome {
  std::string name;  // as Plan::produced_by names it: "layer streaming k=1", ...
  bool fits = false;
  int64_t makespan_ns = 0;
  int64_t arena_bytes = 0;
  int64_t moved_bytes = 0;  // over every link
};

// What the plan is measured against, in budget mode (empty and 0 otherwise): every contender
// tried, in portfolio order (verified only when it won), and the makespan and peak no plan in
// the planned order can beat at the planned budget (lower_bounds.h; the smaller bound of the
// model's order and the planner's).
struct PortfolioComparison {
  std::vector<ContenderOutcome> contenders;
  int64_t makespan_lower_bound_ns = 0;
  int64_t peak_floor_bytes = 0;
};

// PlanOffload, then the contenders (see above). `result.infeasibility` stays the planner's
// when the winner is a contender (it explains why hyperplan's own plan did not fit).
// `comparison`, when given, receives the contenders' numbers and the lower bounds.
PlanResult PlanBest(const Graph& graph, const HardwareProfile& profile, const PlanOptions& options,
                    PortfolioComparison* comparison = nullptr);

}  // namespace hyperplan::contenders
