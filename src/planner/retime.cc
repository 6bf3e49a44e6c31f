// Replanning on the run's timeline (see retime.h).
#include "planner/retime.h"

#include <future>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "hyperplan/plan/bottleneck.h"
#include "hyperplan/plan/simulate.h"
#include "planner/expert_placement.h"

namespace hyperplan::planner {
namespace {

// The hoisted replanning chain runs on a thread of its own when the machine has a second core
// (the plans are the same either way: each chain is a function of its inputs).
std::launch SecondChainLaunch() {
  return std::thread::hardware_concurrency() > 1 ? std::launch::async : std::launch::deferred;
}

// The context the next round replans in: `context` on the timeline `ran_round` ran on, which
// becomes `axis_ns`; nullopt where the chain stops (the plan runs at compute speed, a link
// saturates, or the axis is the last one again: planning is a function of the axis, so the same
// axis gives the same plan).
std::optional<PlanContext> NextRoundContext(const PlanContext& context, const Outcome& ran_round,
                                            std::vector<int64_t>& axis_ns) {
  const Plan& ran = ran_round.plan;
  const SimulationResult& ran_timeline = ran_round.evaluation.timeline;
  if (ran_timeline.makespan_ns <= ran_timeline.compute_ns || ran.steps.empty()) return std::nullopt;
  if (LinkSaturated(*context.profile, ran_round)) return std::nullopt;
  std::vector<int64_t> ran_axis_ns = ComputeStepStarts(ran, ran_timeline);
  if (ran_axis_ns == axis_ns) return std::nullopt;
  axis_ns = ran_axis_ns;
  return RetimedContext(context, std::move(ran_axis_ns));
}

// Round 0's context and axis, when the caller found them already: both chains start from the
// same plan and seed, so their round 0 replans in the same context, found once.
struct FirstRound {
  const std::optional<PlanContext>* context = nullptr;  // null: found by the chain
  const std::vector<int64_t>* axis_ns = nullptr;
};

// Up to kRetimeRounds plans, then more while each gains (up to kMaxRetimeRounds), each on the
// timeline the previous one ran on (with Prefetches hoisted when `hoist`); the best of them
// and `best`. On the training step each new axis removes stalls the last one left: a100-pcie4
// 3.96 s after two rounds, 3.86, 3.80 and 3.75 s after three, four and five, then under 1%
// more (2026-11-27); a round costs about a second of planning there.
Outcome RetimeRounds(const PlanContext& context, Outcome best, bool budget_mode, bool hoist,
                     const PlanOnAxis& plan_in, Seed seed, FirstRound first = {}) {
  // The round the next one replans from: `best` or the last round's plan (a pointer, so that
  // a round that wins moves into `best` instead of being copied there).
  Outcome last_round;
  const Outcome* ran_round = &best;
  std::vector<int64_t> axis_ns =
      seed == Seed::kThisContext ? context.cost.step_start_ns : std::vector<int64_t>();
  bool gained = true;  // the last round cut the best makespan by 1% or more
  for (int round = 0; RetimeRoundRuns(round, gained); ++round) {
    std::optional<PlanContext> retimed;
    if (round == 0 && first.context != nullptr) {
      retimed = *first.context;
      axis_ns = *first.axis_ns;
    } else {
      retimed = NextRoundContext(context, *ran_round, axis_ns);
    }
    if (!retimed) break;
    retimed->hoist_prefetches = hoist;
    last_round = plan_in(*retimed);
    gained = false;
    ran_round = &last_round;
    if (OutcomeBeats(last_round, best, budget_mode)) {
      gained = RetimeGained(best.evaluation.timeline.makespan_ns,
                            last_round.evaluation.timeline.makespan_ns);
      best = std::move(last_round);
      ran_round = &best;
    }
  }
  return best;
}

}  // namespace

bool OutcomeBeats(const Outcome& a, const Outcome& b, bool budget_mode) {
  if (budget_mode) {
    if (a.feasible != b.feasible) return a.feasible;
    if (!a.feasible) {
      if (a.selection.live_peak_bytes != b.selection.live_peak_bytes) {
        return a.selection.live_peak_bytes < b.selection.live_peak_bytes;
      }
      return a.plan.layout.arena_bytes < b.plan.layout.arena_bytes;
    }
    if (a.evaluation.timeline.makespan_ns != b.evaluation.timeline.makespan_ns) {
      return a.evaluation.timeline.makespan_ns < b.evaluation.timeline.makespan_ns;
    }
    const int64_t a_moved = a.evaluation.timeline.total_bytes_moved();
    const int64_t b_moved = b.evaluation.timeline.total_bytes_moved();
    if (a_moved != b_moved) return a_moved < b_moved;
    return a.plan.layout.arena_bytes < b.plan.layout.arena_bytes;
  }
  if (a.plan.layout.arena_bytes != b.plan.layout.arena_bytes) {
    return a.plan.layout.arena_bytes < b.plan.layout.arena_bytes;
  }
  return a.evaluation.timeline.makespan_ns < b.evaluation.timeline.makespan_ns;
}

bool RetimeGained(int64_t before_ns, int64_t after_ns) {
  return after_ns <= before_ns - before_ns / kRetimeGainDivisor;
}

bool RetimeRoundRuns(int round, bool last_round_gained) {
  return round < kMaxRetimeRounds && (round < kRetimeRounds || last_round_gained);
}

// Skipping the replans where a link saturates matters: on the 99k-node stacked decode (NVMe
// streaming at 50% of the peak) the retimed rounds' plans overflowed and ran every budget
// round twice, 79 s of planning for nothing, where the first plan (staging hops ahead) keeps
// NVMe busy.
bool LinkSaturated(const HardwareProfile& profile, const EvaluatedPlan& planned) {
  const SimulationResult& timeline = planned.evaluation.timeline;
  const std::vector<int64_t> busy_ns = LinkBusyNs(profile, planned.plan, timeline);
  const int64_t busiest_ns =
      busy_ns.empty() ? 0 : *std::max_element(busy_ns.begin(), busy_ns.end());
  return busiest_ns > timeline.compute_ns &&
         static_cast<__int128>(busiest_ns) * kSaturatedPercentDivisor >=
             static_cast<__int128>(timeline.makespan_ns) * (kSaturatedPercentDivisor - 1);
}

// Why the hoisted chain: placed latest-first, a Prefetch leaves the link idle through steps
// that had room, which costs where stalls stretch the run (the training step's Adam moments,
// read only by the optimizer: h100-sxm 2.41 -> 2.29 s); filling that room can also fragment
// the arena past the budget or slow another round, so hoisting never replaces the plain
// rounds (hoisting in every round, the first included, made a100-pcie4 4.26 s but lost
// elsewhere: a test's 103 ns plan became 104 ns). Why the step limit: on the
// DeepSeek-V3-sized decode (123k steps) the hoisted chain won nothing and cost 5 s of planning
// and 0.8 GB of peak RSS (holding both chains' plans); the training step it won has 9.4k.
Outcome ReplanOnRunTimeline(const PlanContext& context, Outcome best, bool budget_mode,
                            const PlanOnAxis& plan_in, Seed seed) {
  if (budget_mode && !best.feasible) return best;
  if (!budget_mode || context.step_count() > kSecondChoiceLimit) {
    return RetimeRounds(context, std::move(best), budget_mode, false, plan_in, seed);
  }
  // Round 0's context is the same for both chains (RetimedContext sets no hoisting; the round
  // sets it), so it is found once here: one candidate search of the whole graph less per chain
  // pair (the retimed contexts' searches took 4% of the CPU on DeepSeek-V3 fp8 gather on
  // rtx-4090-xeon-2s, two rounds or more a chain).
  std::vector<int64_t> first_axis_ns =
      seed == Seed::kThisContext ? context.cost.step_start_ns : std::vector<int64_t>();
  const std::optional<PlanContext> first_context =
      RetimeRoundRuns(0, true) ? NextRoundContext(context, best, first_axis_ns) : std::nullopt;
  const FirstRound first{&first_context, &first_axis_ns};
  // The two chains share nothing mutable: on a second core they run side by side.
  std::future<Outcome> hoisted_rounds = std::async(SecondChainLaunch(), [&] {
    return RetimeRounds(context, best, budget_mode, true, plan_in, seed, first);
  });
  Outcome plain = RetimeRounds(context, best, budget_mode, false, plan_in, seed, first);
  Outcome hoisted = hoisted_rounds.get();
  return OutcomeBeats(hoisted, plain, budget_mode) ? std::move(hoisted) : std::move(plain);
}

Outcome ReplanUnlessRouted(const PlanContext& context, const PlanOptions& options, Outcome best,
                           bool budget_mode, const PlanOnAxis& plan_in) {
  if (RewrittenAfterRoute(*context.graph, options, best.plan)) return best;
  return ReplanOnRunTimeline(context, std::move(best), budget_mode, plan_in);
}

}  // namespace hyperplan::planner
