// PlanOffload: the planning core's entry point (issue 3).
//
// Pipeline for one order: cost (roofline node times, transfer times per route) -> lifetimes
// -> candidates (each value's idle gaps, ranked by bytes x gap time against transfer time, a
// loop's wrap-around gap by its whole length with identical layers spread over the iteration,
// then ties by value id) -> refine (peak-driven greedy on a RangeMaxTree of device bytes per step:
// at the current peak step, the best-ranked candidates covering it are placed on the link
// channels by time: a Store as early as its producer and the link allow, a Detach at the first
// step boundary after the Store completes, a Prefetch as late as still hides its transfer
// before the consumer given what already occupies the channel; the least predicted stall wins,
// and widening a gap already taken competes with new ones) -> assemble (steps, residency, tier
// copies) -> layout -> simulate -> verify.
// The model's order and a memory-aware topological order (when its baseline peak is lower)
// are both planned and the better plan is kept (budget mode: fits, then makespan, then bytes
// moved, then arena; no-budget mode: arena, then makespan); ties keep the model's order.
// A loop plan that ends waiting for a persistent value's write-back (an update by the last
// steps whose Store outlasts them) is planned again in its order with that value kept across
// the boundary and written back from the next iteration's start (candidates.h,
// LateWriteBacks), and the better plan is kept. A budget's plan that stalls (up to
// planner::kSecondChoiceLimit steps) is planned again in its order with wrap-around halves
// ranked by their own length, the ranking before the spread (candidates.h WrapRank), and the
// better plan is kept.
// Budget mode (planner/modes.h) targets live bytes <= budget, then, while the arena's
// fragmentation keeps it over, adds stall-free cuts and lowers the target; when the result
// stalls or gets stuck it also tries taking the largest values first and keeps the better.
// No-budget mode accepts predicted stalls up to the overhead allowance, then keeps the longest
// prefix of decisions whose simulated slowdown is within it. A plan that stalls is planned
// again on the timeline it ran on (two rounds, the best kept); in budget mode, on graphs of
// up to planner::kSecondChoiceLimit steps, a second chain of such rounds, on a second thread,
// also hoists each homed value's Prefetch as early as the device has room for it (refine.h),
// and the better chain wins. Every returned plan has passed
// VerifyPlan (a failure is Error(kInternal)).
// Cost: O((n + c) log n) per refine for n steps and c candidates, plus layout and replay; a
// 100k-node graph plans in about 1.5-3.5 s of CPU (Release; see tests/planner/perf_test.cc).
// Limits: greedy, not optimal (the tests measure it against a brute-force oracle); one offload
// tier per value; predicted stalls assume the stall-free timeline (the replay is the truth).
#pragma once

#include <cstdint>
#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "hyperplan/planner/options.h"
#include "hyperplan/planner/problem.h"

namespace hyperplan {

enum class PlanStatus : uint8_t {
  kPlanned,     // the plan fits (budget mode) or is the best cut within the overhead
  kInfeasible,  // no plan fits the budget; `plan` is the lowest peak reached
};

struct Infeasibility {
  int64_t budget_bytes = 0;
  int64_t lowest_peak_bytes = 0;   // the live-bytes peak of the plan returned (the lowest reached)
  int64_t lowest_arena_bytes = 0;  // the arena of that plan
  Step blocking_step = 0;
  NodeId blocking_node = kNoNode;  // the node at the step that cannot go lower
  int64_t node_floor_bytes = 0;    // that node's own inputs + outputs + body scratch
  int64_t pinned_bytes = 0;        // other bytes resident at that step that could not leave
  std::string message;
};

// The plan and its evaluation (EvaluatedPlan: `plan`, `evaluation`), with how planning went.
struct PlanResult : EvaluatedPlan {
  PlanStatus status = PlanStatus::kPlanned;
  Infeasibility infeasibility;  // meaningful when status == kInfeasible
  // The planner's own plan, kept apart when a contender's plan won (contenders::PlanBest sets
  // them; Plan::produced_by names the winner): what the planner alone reached.
  int64_t own_makespan_ns = 0;
  bool own_fits = false;
};

// Throws Error(kProfile) when the profile has no device tier, Error(kUsage) for bad options,
// Error(kInternal) when a plan fails verification (a bug).
PlanResult PlanOffload(const Graph& graph, const HardwareProfile& profile,
                       const PlanOptions& options = {});

// The same for a problem built already (problem.h: BuildProblem with the same options), as
// PlanBest shares it with the contenders.
PlanResult PlanOffload(const Problem& problem, const PlanOptions& options);

}  // namespace hyperplan
