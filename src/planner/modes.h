// The two planning modes for one order, shared by PlanOffload and the oracle tests.
//
// ToBudget: round 0 meets the budget in live bytes at every step; when the arena's
// fragmentation pushes it over, round 1 adds every stall-free cut it can, and later rounds give
// each step where the arena's top overshoots the budget a target lower by the overshoot,
// accepting stalls (kBudgetRounds in all); if live bytes fit but the arena still does not, up
// to kUniformRetries rounds lower one target for every step by the last overshoot, and once one
// fits up to kRaiseProbes rounds bisect between it and the lowest target that missed. The best
// round is kept (fits, then makespan; else the smaller arena). Unless that fits with no
// slowdown (or fits and the graph is large), the same rounds run again choosing the largest
// value at each step instead of the least stall, and the better plan is kept (fits, then
// makespan; else the lower peak).
// WithinOverhead: refine with the stall allowance, then keep the longest prefix of decisions
// whose replay stays within it (binary search; the empty prefix always does). Given the
// device's capacity, the search stops at a prefix over the allowance that already holds more
// live bytes than the device: every shorter prefix holds at least as many (a cut only takes
// bytes off the device), so no plan within the allowance fits; that plan is returned and the
// caller plans to the capacity instead.
// Cost: a refine and an assembly (layout and replay) per round or probe; round 1 resumes round
// 0's refine where it met its targets (refine.h RefineCheckpoint) instead of cutting to them again,
// and each uniform retry the refine of the nearest higher uniform target, round 0's included
// (refine.h ResumeRefineLowered, uniform_checkpoints.h): a copy of the refiner's state each.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "planner/context.h"
#include "planner/refine.h"

namespace hyperplan::planner {

inline constexpr int kBudgetRounds = 6;
// Rounds with one lowered target for every step, after those (BudgetRounds).
inline constexpr int kUniformRetries = 4;
// Then at most this many rounds raise it back (RaiseTargetWhileFits), while the bracket between
// the highest target that fit and the lowest that missed is wider than the budget over
// kRaiseResolution. The Llama-3-8B training step on rtx-4090-xeon-2s (main 9dfff53: 4.60 s,
// 7.7 s of planning CPU): 3 probes 4.58 s (9.0 s CPU), 5 probes to 1/256 4.52 s (10.1 s); the
// arena does not grow steadily with the target there (19.8 GiB live: 21.8 GiB arena; 20.0 GiB
// live: 23.1), so the probes that fit are scattered.
inline constexpr int kRaiseProbes = 5;
inline constexpr int64_t kRaiseResolution = 256;
// Above this many steps a plan that fits with stalls is kept without trying the second choice
// (it would double the planning time of the largest graphs for a small gain).
inline constexpr Step kSecondChoiceLimit = 20'000;

struct Baseline {
  int64_t peak_bytes = 0;   // model order, nothing offloaded: live bytes
  int64_t arena_bytes = 0;  // ... and its arena
};

// Which budget round produced an outcome (BudgetRounds), for tests and debugging.
enum class BudgetRound : uint8_t {
  kLiveTarget,     // round 0: every step's target is the budget
  kFreeCuts,       // round 1: round 0's targets plus every stall-free cut
  kStepTargets,    // later rounds: each overshooting step's target lowered by its overshoot
  kUniformTarget,  // retries: one lowered target for every step
};

// A round's plan and its evaluation (EvaluatedPlan), with how the round went.
struct Outcome : EvaluatedPlan {
  Selection selection;
  bool feasible = true;
  BudgetRound round = BudgetRound::kLiveTarget;
  int64_t uniform_target_bytes = 0;  // kUniformTarget: the target every step had
  int budget_rounds = 0;  // of the kBudgetRounds, how many its BudgetRounds planned (tests)
  // Of its BudgetRounds' uniform retries, how many resumed an earlier refine (tests).
  int uniform_retries_resumed = 0;
};

// Whether bundling inner gaps to the wrap-around gap (PlanOffload's fallback for an outcome
// that does not fit, context.h WithInnerGapsBundled) is worth a plan per order: it is meant
// for wrapped blocks that fragment the arena past `limit_bytes` (0: none) while the live bytes
// fit. Bundled, a value's gaps free no step it could not free alone, so a plan whose live bytes
// are over the limit is left as it is (the 990k-node stacked decode: 3.3 TB live against an 80
// GB device; the bundled plans took 15 of its 38 s of planning and 1 GB of peak RSS for
// nothing). Nor is a plan whose arena is within the limit: its layout fits, what it missed is
// the off-device tier buffers (evaluation.h), and bundling only keeps values off the device
// longer (hf-config DeepSeek-V3 int4 decode on h100-sxm: a third of each host placement's
// planning, for plans byte-identical on the MoE rows).
bool LayoutMayBeWhatFails(const Outcome& outcome, int64_t limit_bytes);

// `allowed` (per candidate, may be null) restricts the candidates, as the oracle does.
Outcome PlanToBudget(const PlanContext& context, int64_t budget_bytes, const Baseline& baseline,
                     const std::vector<uint8_t>* allowed = nullptr);

Outcome PlanWithinOverhead(const PlanContext& context, int64_t allowance_ns,
                           const Baseline& baseline,
                           std::optional<int64_t> device_capacity_bytes = std::nullopt);

// The plan with nothing offloaded, for this context's order.
Outcome PlanNothing(const PlanContext& context, std::optional<int64_t> budget_bytes,
                    const Baseline& baseline);

}  // namespace hyperplan::planner
