// PlanOffload: orders, modes and the choice between plans (see planner.h).
#include "hyperplan/planner/planner.h"

#include <algorithm>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "hyperplan/error.h"
#include "hyperplan/planner/bottleneck.h"
#include "hyperplan/planner/cold_start.h"
#include "hyperplan/planner/plan_layout.h"
#include "hyperplan/planner/routes.h"
#include "hyperplan/planner/simulate.h"
#include "hyperplan/planner/verify.h"
#include "planner/context.h"
#include "planner/explain.h"
#include "planner/modes.h"
#include "planner/order.h"

namespace hyperplan {
namespace {

using planner::Baseline;
using planner::Outcome;
using planner::PlanContext;

// Replanning rounds on a simulated timeline (ReplanOnRunTimeline): always up to
// kRetimeRounds, then up to kMaxRetimeRounds while each round cuts the best makespan by at
// least 1/kRetimeGainDivisor (1%).
constexpr int kRetimeRounds = 2;
constexpr int kMaxRetimeRounds = 6;
constexpr int64_t kRetimeGainDivisor = 100;
// A link busy at least (d - 1)/d of an iteration binds it (LinkSaturated): 99%.
constexpr int64_t kSaturatedPercentDivisor = 100;

// Whether `a` beats `b` (strictly); ties keep the earlier (the model's order).
bool Beats(const Outcome& a, const Outcome& b, bool budget_mode) {
  if (budget_mode) {
    if (a.feasible != b.feasible) return a.feasible;
    if (!a.feasible) {
      if (a.selection.live_peak_bytes != b.selection.live_peak_bytes) {
        return a.selection.live_peak_bytes < b.selection.live_peak_bytes;
      }
      return a.plan.layout.arena_bytes < b.plan.layout.arena_bytes;
    }
    if (a.plan.timeline.makespan_ns != b.plan.timeline.makespan_ns) {
      return a.plan.timeline.makespan_ns < b.plan.timeline.makespan_ns;
    }
    const int64_t a_moved = a.plan.timeline.total_bytes_moved();
    const int64_t b_moved = b.plan.timeline.total_bytes_moved();
    if (a_moved != b_moved) return a_moved < b_moved;
    return a.plan.layout.arena_bytes < b.plan.layout.arena_bytes;
  }
  if (a.plan.layout.arena_bytes != b.plan.layout.arena_bytes) {
    return a.plan.layout.arena_bytes < b.plan.layout.arena_bytes;
  }
  return a.plan.timeline.makespan_ns < b.plan.timeline.makespan_ns;
}

void CheckInputs(const HardwareProfile& profile, const PlanOptions& options) {
  if (profile.device_tier < 0 || static_cast<size_t>(profile.device_tier) >= profile.tiers.size()) {
    throw Error(ErrorKind::kProfile, "profile '" + profile.name + "': no device tier");
  }
  if (options.budget_bytes && *options.budget_bytes < 0) {
    throw Error(ErrorKind::kUsage, "budget must not be negative");
  }
  if (options.max_overhead_ppm < 0) {
    throw Error(ErrorKind::kUsage, "max overhead must not be negative");
  }
}

// Whether every alias stays legal in `order`: nothing reads an input after its in-place writer.
bool AliasesHoldIn(const Graph& model, const std::vector<ValueAlias>& aliases,
                   const std::vector<NodeId>& order) {
  std::vector<Step> step_of(order.size());
  for (size_t k = 0; k < order.size(); ++k) step_of[order[k]] = static_cast<Step>(k);
  for (const ValueAlias& alias : aliases) {
    const Step writer = step_of[model.values[alias.out_value].producer];
    for (NodeId reader : model.values[alias.in_value].consumers) {
      if (step_of[reader] > writer) return false;
    }
  }
  return true;
}

// The graph the planner works on: the loop graph of a periodic plan, or the model itself.
struct LoopView {
  bool periodic = false;
  std::vector<ValueAlias> aliases;
  Graph loop_graph;  // set when periodic
  std::vector<uint8_t> persistent;
  const Graph& graph(const Graph& model) const { return periodic ? loop_graph : model; }
};

LoopView MakeLoopView(const Graph& model, const PlanOptions& options) {
  LoopView view;
  view.periodic = !options.single_run;
  if (!view.periodic) return view;
  view.aliases = options.aliases;
  view.loop_graph = LoopGraph(model, view.aliases);
  view.persistent = PersistentValues(view.loop_graph, view.aliases);
  return view;
}

// Whether a reordered peak is worth planning a second order in full (which doubles the
// planning time): at least 1% below the model order's. On real-scale graphs the memory-aware
// order often wins only a few bytes in a million.
bool LowersPeakEnough(int64_t reordered_peak_bytes, int64_t model_peak_bytes) {
  return reordered_peak_bytes < model_peak_bytes - model_peak_bytes / 100;
}

// Compute alone: the sum of the node times (the context's axis may be stretched).
int64_t ComputeNs(const PlanContext& context) {
  int64_t total_ns = 0;
  for (NodeId node : context.order) total_ns += context.cost.node_time_ns[node];
  return total_ns;
}

// Whether no periodic plan in `context` can both fit `capacity_bytes` and run within
// `allowance_ns` of compute: every persistent value read in the iteration is on the device at
// its read, at most the capacity of them is there when the iteration starts, and the rest
// comes in every iteration over the device's in-links. When that alone outlasts compute plus
// the allowance, the overhead mode's plan cannot fit and the budget mode must run anyway (the
// DeepSeek-V3-sized decode: 1.2 TB of weights for an 80 GB device, 0.3 s of planning saved).
bool OverheadModeCannotFit(const PlanContext& context, int64_t capacity_bytes,
                           int64_t allowance_ns) {
  if (context.persistent.empty() || capacity_bytes <= 0) return false;
  const int64_t into_device_bytes_per_s =
      SumDeviceLinkRates(*context.profile).into_device_bytes_per_s;
  if (into_device_bytes_per_s <= 0) return false;
  int64_t read_bytes = 0;
  for (size_t id = 0; id < context.graph->values.size(); ++id) {
    const Value& value = context.graph->values[id];
    if (context.persistent[id] && value.size_known && !value.consumers.empty()) {
      read_bytes += value.bytes;
    }
  }
  const __int128 must_fetch_bytes = read_bytes - capacity_bytes;
  if (must_fetch_bytes <= 0) return false;
  const __int128 fetch_ns = must_fetch_bytes * 1'000'000'000 / into_device_bytes_per_s;
  return fetch_ns > ComputeNs(context) + allowance_ns;
}

// Whether a link is busy through (nearly) all of `plan`'s iteration: the plan is bound by that
// link's bytes, and a replan, which moves transfers in time, cannot shorten it. Skipping the
// replans there matters: on the 99k-node stacked decode (NVMe streaming at 50% of the peak)
// the retimed rounds' plans overflowed and ran every budget round twice, 79 s of planning for
// nothing, where the first plan (staging hops ahead) keeps NVMe busy.
bool LinkSaturated(const HardwareProfile& profile, const Plan& plan) {
  const Bottleneck bottleneck = FindBottleneck(profile, plan);
  return bottleneck.link >= 0 &&
         static_cast<__int128>(bottleneck.busy_ns) * kSaturatedPercentDivisor >=
             static_cast<__int128>(plan.timeline.makespan_ns) * (kSaturatedPercentDivisor - 1);
}

// The hoisted replanning chain runs on a thread of its own when the machine has a second core
// (the plans are the same either way: each chain is a function of its inputs).
std::launch SecondChainLaunch() {
  return std::thread::hardware_concurrency() > 1 ? std::launch::async : std::launch::deferred;
}

// Up to kRetimeRounds plans, then more while each gains (up to kMaxRetimeRounds), each on the
// timeline the previous one ran on (with Prefetches hoisted when `hoist`); the best of them
// and `best`. On the training step each new axis removes stalls the last one left: a100-pcie4
// 3.96 s after two rounds, 3.86, 3.80 and 3.75 s after three, four and five, then under 1%
// more (2026-11-27); a round costs about a second of planning there.
template <typename PlanIn>
Outcome RetimeRounds(const PlanContext& context, Outcome best, bool budget_mode, bool hoist,
                     PlanIn plan_in) {
  Outcome last_round = best;
  std::vector<int64_t> axis_ns = context.cost.step_start_ns;
  bool gained = true;  // the last round cut the best makespan by 1% or more
  for (int round = 0; round < kMaxRetimeRounds && (round < kRetimeRounds || gained); ++round) {
    const Plan& ran = last_round.plan;
    if (ran.timeline.makespan_ns <= ran.timeline.compute_ns || ran.steps.empty()) break;
    if (LinkSaturated(*context.profile, ran)) break;
    std::vector<int64_t> ran_axis_ns = ComputeStepStarts(ran);
    // Planning is a function of the axis: the same axis again gives the same plan.
    if (ran_axis_ns == axis_ns) break;
    axis_ns = ran_axis_ns;
    PlanContext retimed = planner::RetimedContext(context, std::move(ran_axis_ns));
    retimed.hoist_prefetches = hoist;
    last_round = plan_in(retimed);
    const int64_t best_ns = best.plan.timeline.makespan_ns;
    gained = false;
    if (Beats(last_round, best, budget_mode)) {
      gained = last_round.plan.timeline.makespan_ns <= best_ns - best_ns / kRetimeGainDivisor;
      best = last_round;
    }
  }
  return best;
}

// Where links bind, the compute-only axis tells the refiner a transfer has more time than it
// has: a Prefetch "hidden" behind steps that in fact wait for other transfers stalls. Plans
// again on the axis the plan ran on (each step as long as its stall made it), so transfers are
// issued as early as the real timeline needs; a round is kept only when it beats the best so
// far (on the next axis the stalls it removed are gone, so rounds may alternate).
// In budget mode the rounds run twice, the second time with each homed value's Prefetch
// hoisted as early as the device has room (PlanContext::hoist_prefetches), and the better
// plan wins: placed latest-first, a Prefetch leaves the link idle through steps that had
// room, which costs where stalls stretch the run (the training step's Adam moments, read only
// by the optimizer: h100-sxm 2.41 -> 2.29 s); filling that room can also fragment the arena
// past the budget or slow another round, so hoisting never replaces the plain rounds (hoisting
// in every round, the first included, made a100-pcie4 4.26 s but lost elsewhere: a test's
// 103 ns plan became 104 ns).
// The hoisted chain runs beside the plain one on a second core, and only up to
// kSecondChoiceLimit steps, as the budget rounds' second choice (modes.h): on the
// DeepSeek-V3-sized decode (123k steps) it won nothing and cost 5 s of planning and 0.8 GB of
// peak RSS (holding both chains' plans); the training step it won has 9.4k.
template <typename PlanIn>
Outcome ReplanOnRunTimeline(const PlanContext& context, Outcome best, bool budget_mode,
                            PlanIn plan_in) {
  // Replanning moves transfers in time; a plan over the budget needs bytes off the device, which
  // the budget rounds already tried on every axis they have.
  if (budget_mode && !best.feasible) return best;
  if (!budget_mode || context.step_count() > planner::kSecondChoiceLimit) {
    return RetimeRounds(context, std::move(best), budget_mode, false, plan_in);
  }
  // The two chains share nothing mutable: on a second core they run side by side.
  std::future<Outcome> hoisted_rounds = std::async(
      SecondChainLaunch(), [&] { return RetimeRounds(context, best, budget_mode, true, plan_in); });
  Outcome plain = RetimeRounds(context, best, budget_mode, false, plan_in);
  Outcome hoisted = hoisted_rounds.get();
  return Beats(hoisted, plain, budget_mode) ? hoisted : plain;
}

}  // namespace

PlanResult PlanOffload(const Graph& graph, const HardwareProfile& profile,
                       const PlanOptions& options) {
  CheckInputs(profile, options);
  const LoopView loop = MakeLoopView(graph, options);
  const Graph& planned = loop.graph(graph);
  // Node times of the model itself: the loop graph's in-place rewrite must not change them.
  const std::vector<int64_t> node_time_ns =
      planner::NodeTimes(graph, profile, options.node_time_ns);
  std::vector<PlanContext> contexts;
  contexts.reserve(3);  // `model` below must stay valid when the reordered context joins
  contexts.push_back(
      planner::BuildContext(planned, profile, ModelOrder(planned), node_time_ns, loop.persistent));
  contexts.back().layout = options.layout;
  const PlanContext& model = contexts.front();

  Baseline baseline;
  baseline.peak_bytes = model.lifetimes.timeline.peak_bytes;
  baseline.arena_bytes =
      NoOffloadArenaBytes(planned, profile, model.order, model.lifetimes, options.layout);

  const int64_t capacity = profile.tiers[profile.device_tier].capacity_bytes;
  std::optional<int64_t> budget = options.budget_bytes;
  const std::optional<int64_t> device_capacity =
      capacity > 0 ? std::optional<int64_t>(capacity) : std::nullopt;
  if (budget && capacity > 0) budget = std::min(*budget, capacity);

  PlanResult result;
  Outcome chosen;
  bool budget_mode = budget.has_value();
  if (!options.offload) {
    chosen = planner::PlanNothing(model, budget, baseline);
    for (Decision& decision : chosen.plan.decisions) {
      if (decision.reason == DecisionReason::kNotNeeded) decision.detail = "offloading is off";
    }
    chosen.plan.offload_enabled = false;
  } else {
    if (options.allow_reorder) {
      std::vector<NodeId> order = planner::MemoryAwareOrder(graph);
      if (order.size() == graph.nodes.size() && order != model.order &&
          AliasesHoldIn(graph, loop.aliases, order) &&
          LowersPeakEnough(AnalyzeLifetimes(planned, order).timeline.peak_bytes,
                           baseline.peak_bytes)) {
        contexts.push_back(planner::BuildContext(planned, profile, std::move(order), node_time_ns,
                                                 loop.persistent));
        contexts.back().layout = options.layout;
        contexts.back().order_name = kMemoryAwareOrder;
      }
    }
    const int64_t allowance_ns = static_cast<int64_t>(static_cast<__int128>(ComputeNs(model)) *
                                                      options.max_overhead_ppm / 1'000'000);
    bool have = false;
    auto plan_and_keep = [&](const PlanContext& context) {
      Outcome outcome;
      if (budget) {
        outcome = planner::PlanToBudget(context, *budget, baseline);
      } else {
        const bool cannot_fit_within_overhead =
            OverheadModeCannotFit(context, capacity, allowance_ns);
        if (!cannot_fit_within_overhead) {
          outcome = planner::PlanWithinOverhead(context, allowance_ns, baseline, device_capacity);
        }
        if (cannot_fit_within_overhead ||
            (capacity > 0 && outcome.plan.layout.arena_bytes > capacity)) {
          budget_mode = true;
          budget = capacity;
          outcome = planner::PlanToBudget(context, capacity, baseline);
        }
      }
      outcome = ReplanOnRunTimeline(
          context, std::move(outcome), budget_mode, [&](const PlanContext& retimed) {
            return budget_mode ? planner::PlanToBudget(retimed, *budget, baseline)
                               : planner::PlanWithinOverhead(retimed, allowance_ns, baseline,
                                                             device_capacity);
          });
      if (!have || Beats(outcome, chosen, budget_mode)) {
        chosen = std::move(outcome);
        have = true;
      }
    };
    for (const PlanContext& context : contexts) plan_and_keep(context);
    // Each update right after its gradient (order.h): the state's write-back overlaps the
    // backward pass instead of following it. Planned only where a budget binds (known once the
    // model's order is planned): with room on the device it trades the arena against time
    // (supernode: 1.06 -> 1.07 s for a 4 GB smaller arena), so it is not even built there.
    if (budget_mode && options.allow_reorder && !loop.aliases.empty()) {
      std::vector<NodeId> order = planner::EagerUpdateOrder(graph, loop.aliases);
      if (order != model.order && AliasesHoldIn(graph, loop.aliases, order)) {
        contexts.push_back(planner::BuildContext(planned, profile, std::move(order), node_time_ns,
                                                 loop.persistent));
        contexts.back().layout = options.layout;
        contexts.back().order_name = kEagerUpdateOrder;
        plan_and_keep(contexts.back());
      }
    }
  }

  chosen.plan.produced_by = "hyperplan";
  chosen.plan.periodic = loop.periodic;
  chosen.plan.aliases = loop.aliases;
  chosen.plan.cold_start = ComputeColdStart(planned, profile, contexts.front().homes, chosen.plan);
  const VerifyResult verdict = VerifyPlan(graph, profile, chosen.plan);
  if (!verdict.ok) {
    throw Error(ErrorKind::kInternal, "plan failed verification: " + verdict.message);
  }
  result.status = chosen.feasible ? PlanStatus::kPlanned : PlanStatus::kInfeasible;
  if (!chosen.feasible) {
    result.infeasibility = planner::ExplainInfeasible(planned, profile, contexts.front().homes,
                                                      chosen, budget.value_or(capacity));
  }
  result.plan = std::move(chosen.plan);
  return result;
}

}  // namespace hyperplan
