// Budget and overhead modes (see modes.h).
#include "planner/modes.h"

#include <algorithm>
#include <set>
#include <utility>

#include "hyperplan/layout/plan_layout.h"
#include "planner/assemble.h"
#include "planner/target_lowering.h"
#include "planner/uniform_checkpoints.h"

namespace hyperplan::planner {
namespace {

AssembleOptions Assembly(size_t placement_count, std::optional<int64_t> budget_bytes,
                         const Baseline& baseline) {
  AssembleOptions options;
  options.placement_count = placement_count;
  options.budget_bytes = budget_bytes;
  options.baseline_peak_bytes = baseline.peak_bytes;
  options.baseline_arena_bytes = baseline.arena_bytes;
  return options;
}

}  // namespace

namespace {

// The plan and evaluation part of a round, to assign a freshly assembled one.
EvaluatedPlan& Planned(Outcome& outcome) { return outcome; }

// Per step: resident bytes, and the arena's top (the highest block end) in `plan`'s layout.
void LiveAndTop(const Plan& plan, Step step_count, std::vector<int64_t>& live,
                std::vector<int64_t>& top) {
  live = LiveBytesPerStep(plan.residency, step_count);
  top.assign(static_cast<size_t>(step_count), 0);
  std::vector<std::vector<size_t>> starting(static_cast<size_t>(step_count));
  for (size_t r = 0; r < plan.residency.size(); ++r) {
    const ResidentInterval& interval = plan.residency[r];
    if (interval.bytes <= 0 || interval.first_step > interval.last_step) continue;
    starting[interval.first_step].push_back(r);
  }
  // Sweep: the live block ends, as (last step, end offset), highest end on top.
  std::multiset<int64_t> ends;
  std::vector<std::vector<int64_t>> ending(static_cast<size_t>(step_count));
  for (Step k = 0; k < step_count; ++k) {
    for (size_t r : starting[k]) {
      const int64_t end = plan.layout.offset_bytes[r] + plan.residency[r].bytes;
      ends.insert(end);
      ending[plan.residency[r].last_step].push_back(end);
    }
    top[k] = ends.empty() ? 0 : *ends.rbegin();
    for (int64_t end : ending[k]) ends.erase(ends.find(end));
  }
}

// Each step where `plan`'s arena top overshoots the budget gets a target lower by the overshoot.
// Returns whether any target changed. When none did, the next round would be this one again:
// a round after the first is a function of the context, the request (choice, allowed, these
// targets, free cuts on) alone, and a round resumed from round 0's checkpoint makes the
// selection a fresh refine makes (refine.h ResumeRefine); so would every round after it, and
// a repeat never replaces the best round (BetterRound is strict). Stopping there returns the
// same best round. On hf-config DeepSeek-V3 int4 decode on h100-sxm every round after round 1
// repeated it (the arena fit the budget; the tier buffers did not): 4 of each 10 rounds.
bool LowerOvershootingTargets(const Plan& plan, int64_t budget_bytes,
                              std::vector<int64_t>& targets) {
  const auto step_count = static_cast<Step>(targets.size());
  std::vector<int64_t> live;
  std::vector<int64_t> top;
  LiveAndTop(plan, step_count, live, top);
  bool lowered = false;
  for (Step k = 0; k < step_count; ++k) {
    const int64_t target = live[k] - (top[k] - budget_bytes);
    if (top[k] > budget_bytes && target < targets[k]) {
      targets[k] = target;
      lowered = true;
    }
  }
  return lowered;
}

// What the budget loop reads of a round.
TargetTry Measured(const Outcome& outcome) {
  return {outcome.selection.live_peak_bytes, outcome.plan.layout.arena_bytes, outcome.feasible};
}

// Whether `a` is the better of two rounds: fits, then faster; neither fits: the smaller arena.
bool BetterRound(const Outcome& a, const Outcome& b) {
  if (a.feasible != b.feasible) return a.feasible;
  if (a.feasible) return a.evaluation.timeline.makespan_ns < b.evaluation.timeline.makespan_ns;
  if (a.selection.reached_target != b.selection.reached_target) return a.selection.reached_target;
  return a.plan.layout.arena_bytes < b.plan.layout.arena_bytes;
}

// Whether round 1 (`free_cuts`) fits only by slowing round 0's plan (`live_target`), which
// reached its live target and missed the budget by its arena's overshoot alone.
bool FreeCutsSlowed(const Outcome& live_target, const Outcome& free_cuts) {
  return free_cuts.feasible && !live_target.feasible && live_target.selection.reached_target &&
         free_cuts.evaluation.timeline.makespan_ns > live_target.evaluation.timeline.makespan_ns;
}

// A round's refine. `checkpoint` (may be null): recorded where the round's refine meets its
// targets, or, holding a record and with free cuts asked, resumed from.
Selection RefineRound(const PlanContext& context, const std::vector<uint8_t>* allowed,
                      Choice choice, const std::vector<int64_t>& targets, bool free_cuts,
                      RefineCheckpoint* checkpoint) {
  RefineRequest request;
  request.choice = choice;
  request.step_targets = &targets;
  request.free_cuts_after_target = free_cuts;
  request.allowed = allowed;
  return free_cuts && checkpoint != nullptr && checkpoint->state != nullptr
             ? ResumeRefine(request, std::move(*checkpoint))
             : Refine(context, request, checkpoint);
}

// A round's plan from its refine's selection.
Outcome AssembledRound(const PlanContext& context, Selection selection, int64_t budget_bytes,
                       const Baseline& baseline) {
  Outcome outcome;
  outcome.selection = std::move(selection);
  Planned(outcome) =
      AssemblePlan(context, outcome.selection,
                   Assembly(outcome.selection.placements.size(), budget_bytes, baseline));
  outcome.feasible = outcome.selection.reached_target && outcome.evaluation.fits;
  return outcome;
}

// Whether round 1's refine (`free_cuts`) took no free cut after round 0's (`round0`, the best
// round so far when round 1 runs): a free cut only adds a placement, so its placements are then
// round 0's, made from the same state by the same passes after the loop (refine.h
// RefineCheckpoint), and so are its plan's steps, residency, layout and replay, all assembled
// from the placements alone; only its decisions' reasons may differ (the cuts it turned down).
// Such a round beats nothing
// (BetterRound, FreeCutsSlowed: the same fit, makespan and arena) and lowers the targets as
// round 0's plan does, so it needs no plan of its own. Every round 1 of the DeepSeek-V3-sized
// decode on rtx-4090 took none (an assembly of ~89 k placements each).
bool NoFreeCutTaken(const Selection& free_cuts, const Outcome& round0) {
  return free_cuts.placements.size() == round0.selection.placements.size();
}

// A uniform retry's refine and plan: resumed from `from` (may be null: from the start), its
// state where it meets its target recorded in `record`.
Outcome PlanUniformRound(const PlanContext& context, int64_t budget_bytes, const Baseline& baseline,
                         const std::vector<uint8_t>* allowed, Choice choice,
                         const std::vector<int64_t>& targets, const RefineCheckpoint* from,
                         RefineCheckpoint* record) {
  RefineRequest request;
  request.choice = choice;
  request.step_targets = &targets;
  request.allowed = allowed;
  return AssembledRound(context,
                        from != nullptr ? ResumeRefineLowered(request, *from, record)
                                        : Refine(context, request, record),
                        budget_bytes, baseline);
}

// One target for every step: lowered by the last overshoot each time until a round fits
// (LowerTargetUntilFit, the contenders' FitToBudget loop too), then raised back between the
// highest that fit and the lowest that missed (RaiseTargetWhileFits; round 0, every target
// the budget, is the first miss). `best` keeps the best round of all. `first`: round 0.
// Each refine goes on from the nearest state an earlier one met its target in (round 0's,
// `at_budget`, may be empty), not from the start (uniform_checkpoints.h): the same selections.
void UniformRetries(const PlanContext& context, int64_t budget_bytes, const Baseline& baseline,
                    const std::vector<uint8_t>* allowed, Choice choice, const Outcome& first,
                    Outcome& best, RefineCheckpoint at_budget) {
  std::vector<int64_t> targets;
  TargetBracket bracket;
  bracket.Record(budget_bytes, false);
  UniformCheckpoints checkpoints;
  int resumed = 0;
  if (context.resume_uniform_retries && at_budget.state != nullptr &&
      at_budget.uniform_target_bytes == budget_bytes) {
    checkpoints.Add(budget_bytes, std::move(at_budget));
  }
  auto retry = [&](int64_t uniform_target) {
    targets.assign(static_cast<size_t>(context.step_count()), uniform_target);
    RefineCheckpoint record;
    record.without_cache = true;  // it resumes for a few rounds, if at all
    const RefineCheckpoint* from = checkpoints.From(uniform_target);
    if (from != nullptr) ++resumed;
    Outcome outcome = PlanUniformRound(context, budget_bytes, baseline, allowed, choice, targets,
                                       from, context.resume_uniform_retries ? &record : nullptr);
    outcome.round = BudgetRound::kUniformTarget;
    outcome.uniform_target_bytes = uniform_target;
    const TargetTry tried = Measured(outcome);
    bracket.Record(uniform_target, tried.fits);
    if (record.state != nullptr) checkpoints.Add(uniform_target, std::move(record));
    checkpoints.KeepWithin(bracket);
    if (BetterRound(outcome, best)) best = std::move(outcome);
    return tried;
  };
  LowerTargetUntilFit(budget_bytes, Measured(first), kUniformRetries, 1, retry);
  RaiseTargetWhileFits(bracket, kRaiseProbes, budget_bytes / kRaiseResolution,
                       [&](int64_t uniform_target) { return retry(uniform_target).fits; });
  best.uniform_retries_resumed = resumed;
}

Outcome BudgetRounds(const PlanContext& context, int64_t budget_bytes, const Baseline& baseline,
                     const std::vector<uint8_t>* allowed, Choice choice) {
  const Step step_count = context.step_count();
  std::vector<int64_t> targets(static_cast<size_t>(step_count), budget_bytes);
  Outcome best;
  Outcome outcome;
  Outcome live_target;  // round 0, kept when its free cuts slowed round 1 (see below)
  bool free_cuts_slowed = false;
  // Round 0's refine where it met its targets: round 1 has the same targets and only adds free
  // cuts after them, so it goes on from there (refine.h RefineCheckpoint).
  RefineCheckpoint at_target;
  RefineCheckpoint at_budget;  // round 0's state again, for the uniform retries
  int rounds_planned = 0;
  for (int round = 0; round < kBudgetRounds; ++round) {
    ++rounds_planned;
    // Round 1 goes on from round 0's state, and so do the uniform retries, from a copy.
    if (round == 1) at_budget = at_target.CopiedWithoutCache();
    Selection selection = RefineRound(context, allowed, choice, targets, round > 0,
                                      round <= 1 ? &at_target : nullptr);
    if (round == 1 && NoFreeCutTaken(selection, best)) {
      if (!LowerOvershootingTargets(best.plan, budget_bytes, targets)) break;
      continue;
    }
    outcome = AssembledRound(context, std::move(selection), budget_bytes, baseline);
    outcome.round = round == 0   ? BudgetRound::kLiveTarget
                    : round == 1 ? BudgetRound::kFreeCuts
                                 : BudgetRound::kStepTargets;
    bool last = outcome.feasible || !outcome.selection.reached_target;
    // Round 1 only adds stall-free cuts; after it, where the arena's top overshoots the budget,
    // that step must shed the overshoot (read before the round is moved into `best`).
    if (!last && round > 0) last = !LowerOvershootingTargets(outcome.plan, budget_bytes, targets);
    if (round == 1 && FreeCutsSlowed(best, outcome)) {
      free_cuts_slowed = true;
      live_target = std::move(best);  // round 0's: the uniform retries start from it
      best = std::move(outcome);
    } else if (round == 0 || BetterRound(outcome, best)) {
      best = std::move(outcome);
    }
    if (last) break;
  }
  // Live bytes fit but the layout does not: the per-step repair can chase the arena's top to
  // absurd targets. Lower one target for every step instead (UniformRetries).
  // Free cuts are stall-free only as placed: on a plan bound by a link their transfers take
  // the time later Prefetches needed, and the replay slows. Round 0 missed by its arena's
  // overshoot alone; lowering every target by that overshoot may fit at a lower cost.
  if (best.selection.reached_target && (!best.feasible || free_cuts_slowed)) {
    UniformRetries(context, budget_bytes, baseline, allowed, choice,
                   free_cuts_slowed ? live_target : best, best, std::move(at_budget));
  }
  best.budget_rounds = rounds_planned;
  return best;
}

}  // namespace

bool LayoutMayBeWhatFails(const Outcome& outcome, int64_t limit_bytes) {
  if (limit_bytes <= 0) return true;
  return outcome.plan.layout.live_peak_bytes <= limit_bytes &&
         outcome.plan.layout.arena_bytes > limit_bytes;
}

Outcome PlanToBudget(const PlanContext& context, int64_t budget_bytes, const Baseline& baseline,
                     const std::vector<uint8_t>* allowed) {
  Outcome least_stall = BudgetRounds(context, budget_bytes, baseline, allowed, Choice::kLeastStall);
  if (least_stall.feasible &&
      (least_stall.evaluation.timeline.makespan_ns == least_stall.evaluation.timeline.compute_ns ||
       context.step_count() > kSecondChoiceLimit)) {
    return least_stall;  // fits with no slowdown (or too large to plan twice)
  }
  // Stuck or slowed down: taking the largest values first may leave room (links, tiers, the
  // arena) that the least-stall choice used up.
  Outcome most_bytes = BudgetRounds(context, budget_bytes, baseline, allowed, Choice::kMostBytes);
  if (least_stall.feasible != most_bytes.feasible) {
    return most_bytes.feasible ? std::move(most_bytes) : std::move(least_stall);
  }
  const bool take_most_bytes =
      least_stall.feasible
          ? most_bytes.evaluation.timeline.makespan_ns < least_stall.evaluation.timeline.makespan_ns
          : most_bytes.selection.live_peak_bytes < least_stall.selection.live_peak_bytes;
  return take_most_bytes ? std::move(most_bytes) : std::move(least_stall);
}

Outcome PlanWithinOverhead(const PlanContext& context, int64_t allowance_ns,
                           const Baseline& baseline, std::optional<int64_t> device_capacity_bytes) {
  RefineRequest request;
  request.stall_allowance_ns = allowance_ns;
  Outcome outcome;
  outcome.selection = Refine(context, request);
  const size_t count = outcome.selection.placements.size();
  auto assemble = [&](size_t prefix) {
    return AssemblePlan(context, outcome.selection, Assembly(prefix, std::nullopt, baseline));
  };
  auto within = [&](const EvaluatedPlan& planned) {
    const SimulationResult& timeline = planned.evaluation.timeline;
    return timeline.makespan_ns - timeline.baseline_makespan_ns <= allowance_ns;
  };
  auto over_device = [&](const EvaluatedPlan& planned) {
    return device_capacity_bytes && planned.plan.layout.live_peak_bytes > *device_capacity_bytes;
  };
  Planned(outcome) = assemble(count);
  if (!within(outcome) && !over_device(outcome)) {
    // Predicted stalls assume the stall-free timeline; the replay decides. Only prefixes that
    // keep every bundled decision whole are plans (a wrap-around half alone is not periodic).
    std::vector<size_t> prefixes = {0};
    prefixes.insert(prefixes.end(), outcome.selection.decision_ends.begin(),
                    outcome.selection.decision_ends.end());
    size_t good = 0;
    size_t bad = prefixes.size() - 1;
    EvaluatedPlan good_plan = assemble(0);
    while (bad - good > 1) {
      const size_t mid = good + (bad - good) / 2;
      EvaluatedPlan plan = assemble(prefixes[mid]);
      if (within(plan)) {
        good = mid;
        good_plan = std::move(plan);
      } else if (over_device(plan)) {
        good_plan = std::move(plan);  // no prefix within the allowance fits the device
        break;
      } else {
        bad = mid;
      }
    }
    Planned(outcome) = std::move(good_plan);
  }
  outcome.feasible = true;
  return outcome;
}

Outcome PlanNothing(const PlanContext& context, std::optional<int64_t> budget_bytes,
                    const Baseline& baseline) {
  Outcome outcome;
  Selection& selection = outcome.selection;
  selection.reason.assign(context.candidates.candidates.size(), DecisionReason::kNotNeeded);
  selection.detail.assign(context.candidates.candidates.size(), std::string());
  selection.live_peak_bytes = context.lifetimes.timeline.peak_bytes;
  selection.peak_step = context.lifetimes.timeline.peak_step;
  selection.reached_target = !budget_bytes || selection.live_peak_bytes <= *budget_bytes;
  Planned(outcome) = AssemblePlan(context, selection, Assembly(0, budget_bytes, baseline));
  outcome.feasible = outcome.evaluation.fits;
  return outcome;
}

}  // namespace hyperplan::planner
