// Replanning on the run's timeline: where links bind, the compute-only axis tells the refiner
// a transfer has more time than it has (a Prefetch "hidden" behind steps that in fact wait
// for other transfers stalls). ReplanOnRunTimeline plans again on the axis the last plan ran
// on (each step as long as its stall made it), so transfers are issued as early as the real
// timeline needs, and keeps a round only when it beats the best so far (on the next axis the
// stalls it removed are gone, so rounds may alternate).
// Rounds: always up to kRetimeRounds, then while each cuts the best makespan by at least
// 1/kRetimeGainDivisor, up to kMaxRetimeRounds. A chain stops early where replanning cannot
// help: a plan that runs at compute speed, one bound by a saturated link (busy at least
// (d - 1)/d of its iteration, d = kSaturatedPercentDivisor: replanning moves transfers in
// time, not bytes), or an axis equal to the last one (planning is a function of the axis).
// In budget mode the rounds run twice, the second chain with each one-hop Prefetch
// hoisted as early as the device has room (PlanContext::hoist_prefetches), and the better
// plan wins; the hoisted chain runs only up to kSecondChoiceLimit steps (modes.h), on a second
// core when there is one (the plans are the same either way).
// No chain runs from a plan the route pass rewrites (ReplanUnlessRouted, below).
// Cost: a plan per round (a refine and an assembly, or a budget mode's rounds), up to
// kMaxRetimeRounds per chain. Limits: a fixed point of the axis ends the chain even where
// another axis (a blend of the last two) might do better; blending lost on the training step.
#pragma once

#include <cstdint>
#include <functional>

#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "hyperplan/planner/options.h"
#include "planner/context.h"
#include "planner/modes.h"

namespace hyperplan::planner {

inline constexpr int kRetimeRounds = 2;
inline constexpr int kMaxRetimeRounds = 6;
inline constexpr int64_t kRetimeGainDivisor = 100;
inline constexpr int64_t kSaturatedPercentDivisor = 100;

// Whether `a` beats `b` (strictly). Budget mode: fits, then makespan, bytes moved and arena;
// neither fitting, the lower live peak, then the smaller arena. Overhead mode: the smaller
// arena, then makespan. Ties keep `b` (the earlier: the model's order).
bool OutcomeBeats(const Outcome& a, const Outcome& b, bool budget_mode);

// Whether a round that took the best makespan from `before_ns` to `after_ns` gained enough
// for another (at least 1/kRetimeGainDivisor of `before_ns`).
bool RetimeGained(int64_t before_ns, int64_t after_ns);

// Whether round `round` (from 0) runs, given whether the round before it gained enough.
bool RetimeRoundRuns(int round, bool last_round_gained);

// Whether some link is busy at least (d - 1)/d of `plan`'s iteration.
bool LinkSaturated(const HardwareProfile& profile, const EvaluatedPlan& planned);

// A plan in `retimed` (the context on a new axis) by the mode that made the first one.
using PlanOnAxis = std::function<Outcome(const PlanContext& retimed)>;

// Where the plan a chain starts from was made. In `context` its own axis needs no replanning
// (the same plan again); made with other candidates (another CandidateRules), every axis does.
enum class Seed : uint8_t { kThisContext, kOtherContext };

// The best of `best` and the replanned rounds (see above). In budget mode an infeasible
// `best` is returned as it is: it needs bytes off the device, which the budget rounds already
// tried on every axis they have.
Outcome ReplanOnRunTimeline(const PlanContext& context, Outcome best, bool budget_mode,
                            const PlanOnAxis& plan_in, Seed seed = Seed::kThisContext);

// ReplanOnRunTimeline from `best` (in its own context), unless the route pass rewrites it under
// `options` (expert_placement.h RewrittenAfterRoute): then `best` as it is. The chain's premise
// is that the run's timeline is the one a plan will meet (its stalls tell the refiner when
// transfers must start); where the plan streams a MoE node's stacked experts whole,
// PlaceExpertsAfterRoute moves each such Prefetch after its router with the routed experts'
// bytes alone, so the returned plan runs on another timeline (DeepSeek-V3 int4 on h100-sxm:
// whole expert Prefetches from NVMe run 12-17 s an iteration, the routed plans 0.5-0.6 s). The
// chain then tunes transfers to stalls the returned plan does not have, and keeps its rounds by
// that timeline: with them PlanOffload planned the preset there at 571 ms in 8.9 s of CPU,
// without them 523 ms in 1.0 s; the hf config 579 ms in 26 s, without 542 ms in 1.9 s (Mixtral
// on rtx-4090 with 128 GB of DDR: 290.4 -> 289.3 ms; the bench's other rows unchanged).
Outcome ReplanUnlessRouted(const PlanContext& context, const PlanOptions& options, Outcome best,
                           bool budget_mode, const PlanOnAxis& plan_in);

}  // namespace hyperplan::planner
