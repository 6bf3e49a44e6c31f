// PlanOffload: orders, modes and the choice between plans (see planner.h).
#include "hyperplan/planner/planner.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "hyperplan/error.h"
#include "hyperplan/layout/plan_layout.h"
#include "hyperplan/plan/cold_start.h"
#include "hyperplan/plan/simulate.h"
#include "hyperplan/plan/verify.h"
#include "hyperplan/planner/problem.h"
#include "hyperplan/routes.h"
#include "planner/chunk_prefetches.h"
#include "planner/context.h"
#include "planner/expert_placement.h"
#include "planner/explain.h"
#include "planner/host_early_order.h"
#include "planner/host_placement.h"
#include "planner/modes.h"
#include "planner/order.h"
#include "planner/prep_early_order.h"
#include "planner/retime.h"

namespace hyperplan {
namespace {

using planner::Baseline;
using planner::Outcome;
using planner::PlanContext;

constexpr int64_t kNsPerS = 1000000000;
constexpr int64_t kOneInPpm = 1000000;  // max_overhead_ppm of the compute time

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
  const __int128 fetch_ns = must_fetch_bytes * kNsPerS / into_device_bytes_per_s;
  return fetch_ns > ComputeNs(context) + allowance_ns;
}

// Whether a Store of a value flagged in `values` (by ValueId) ends after the plan's last
// compute step: the iteration ends waiting for it.
bool EndsOnWriteBackOf(const EvaluatedPlan& planned, const std::vector<uint8_t>& values) {
  const Plan& plan = planned.plan;
  const SimulationResult& timeline = planned.evaluation.timeline;
  if (values.empty()) return false;
  int64_t compute_end_ns = 0;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (plan.steps[i].kind == StepKind::kCompute) {
      compute_end_ns = std::max(compute_end_ns, timeline.steps[i].end_ns);
    }
  }
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    if (step.kind == StepKind::kStore && values[step.value] &&
        timeline.steps[i].end_ns > compute_end_ns) {
      return true;
    }
  }
  return false;
}

const PlanContext* ContextWithOrder(const std::vector<PlanContext>& contexts,
                                    const std::vector<NodeId>& order) {
  for (const PlanContext& context : contexts) {
    if (context.order == order) return &context;
  }
  return nullptr;
}

// PlanOffload's search (planner.h): the orders, the mode each is planned in, the variants
// planned where the first plans call for them, and the best outcome kept.
class OffloadSearch {
 public:
  // `lead_ns`: the fastest plan an earlier search of the same PlanOffload made (none: none
  // yet); only a search whose plan is faster runs the last round (PlanStoresJudgedOnOwnAxis).
  OffloadSearch(const Problem& problem, const PlanOptions& options, int64_t lead_ns)
      : problem_(problem), options_(options), budget_(options.budget_bytes), lead_ns_(lead_ns) {
    capacity_ = profile().tiers[profile().device_tier].capacity_bytes;
    if (capacity_ > 0) device_capacity_ = capacity_;
    contexts_.reserve(3);  // the model's context must stay valid when the others join
    contexts_.push_back(planner::BuildContext(problem));
    contexts_.back().layout = options.layout;
    baseline_.peak_bytes = model_context().lifetimes.timeline.peak_bytes;
    baseline_.arena_bytes = NoOffloadArenaBytes(planned(), profile(), model_context().order,
                                                model_context().lifetimes, options.layout);
    if (budget_ && capacity_ > 0) budget_ = std::min(*budget_, capacity_);
    budget_mode_ = budget_.has_value();
    allowance_ns_ = static_cast<int64_t>(static_cast<__int128>(ComputeNs(model_context())) *
                                         options.max_overhead_ppm / kOneInPpm);
  }

  // With offloading off: the no-offload plan, every decision saying so.
  Outcome NothingOffloaded() const {
    Outcome outcome = planner::PlanNothing(model_context(), budget_, baseline_);
    for (Decision& decision : outcome.plan.decisions) {
      if (decision.reason == DecisionReason::kNotNeeded) decision.detail = "offloading is off";
    }
    outcome.plan.offload_enabled = false;
    return outcome;
  }

  Outcome Search() {
    // A unit placement plans the model's order alone (a reorder would move host parts).
    if (options_.allow_reorder && problem_.units.node_unit.empty()) AddMemoryAwareOrder();
    for (const PlanContext& context : contexts_) PlanAndKeep(context);
    PlanEagerUpdateOrder();
    PlanWrapHalvesRankedAlone();
    PlanLateWriteBacksAtStart();
    PlanInnerGapsBundled();
    PlanStoresJudgedOnOwnAxis();
    return std::move(chosen_);
  }

  // The chosen plan with what every plan carries, and why it does not fit if not.
  PlanResult Finish(Outcome chosen) const {
    ChunkPrefetches(chosen);
    chosen.plan.produced_by = "hyperplan";
    chosen.plan.periodic = problem_.periodic;
    chosen.plan.aliases = problem_.aliases;
    chosen.evaluation.cold_start =
        ComputeColdStart(planned(), profile(), model_context().homes, chosen.plan);
    // Verified by PlanOffload once a placement is chosen (VerifyChosen).
    PlanResult result;
    result.status = chosen.feasible ? PlanStatus::kPlanned : PlanStatus::kInfeasible;
    if (!chosen.feasible) {
      result.infeasibility = planner::ExplainInfeasible(planned(), profile(), model_context().homes,
                                                        chosen, budget_.value_or(capacity_));
    }
    result.plan = std::move(chosen.plan);
    result.evaluation = std::move(chosen.evaluation);
    return result;
  }

 private:
  const PlanContext& model_context() const { return contexts_.front(); }
  const Graph& model() const { return *problem_.model; }
  const Graph& planned() const { return *problem_.graph; }  // the loop graph, or the model

  // Prefetches split where a later transfer (a host crossing) waits behind them on their
  // channel (planner/chunk_prefetches.h), then laid out and replayed again.
  void ChunkPrefetches(Outcome& chosen) const {
    if (planner::ChunkBlockingPrefetches(profile(), chosen.plan) == 0) return;
    EvaluatedPlan finished =
        FinishPlan(planned(), profile(), options_.layout,
                   {baseline_.peak_bytes, baseline_.arena_bytes}, std::move(chosen.plan));
    chosen.plan = std::move(finished.plan);
    chosen.evaluation = std::move(finished.evaluation);
  }
  const HardwareProfile& profile() const { return *problem_.profile; }

  // A context for another order of the same graph, named as the plan will call it.
  PlanContext& AddContext(std::vector<NodeId> order, const char* order_name) {
    contexts_.push_back(planner::BuildContext(planned(), profile(), std::move(order),
                                              problem_.node_time_ns, problem_.persistent));
    contexts_.back().layout = options_.layout;
    contexts_.back().order_name = order_name;
    return contexts_.back();
  }

  // The memory-aware order joins when it is legal and lowers the peak enough (order.h).
  void AddMemoryAwareOrder() {
    std::vector<NodeId> order = planner::MemoryAwareOrder(model());
    if (order.size() == model().nodes.size() && order != model_context().order &&
        AliasesHoldIn(model(), problem_.aliases, order) &&
        LowersPeakEnough(AnalyzeLifetimes(planned(), order).timeline.peak_bytes,
                         baseline_.peak_bytes)) {
      AddContext(std::move(order), kMemoryAwareOrder);
    }
  }

  void Keep(Outcome outcome) {
    if (!have_ || planner::OutcomeBeats(outcome, chosen_, budget_mode_)) {
      chosen_ = std::move(outcome);
      have_ = true;
    }
  }

  // A plan in a context on another time axis, by the mode the first plan settled on.
  planner::PlanOnAxis PlanOnAxis() {
    return [this](const PlanContext& retimed) {
      return budget_mode_
                 ? planner::PlanToBudget(retimed, *budget_, baseline_)
                 : planner::PlanWithinOverhead(retimed, allowance_ns_, baseline_, device_capacity_);
    };
  }

  // The context planned to the budget, or within the overhead unless that cannot fit the
  // device (then to the device from here on), replanned on the timeline it ran on.
  void PlanAndKeep(const PlanContext& context) {
    Outcome outcome;
    if (budget_) {
      outcome = planner::PlanToBudget(context, *budget_, baseline_);
    } else {
      const bool cannot_fit_within_overhead =
          OverheadModeCannotFit(context, capacity_, allowance_ns_);
      if (!cannot_fit_within_overhead) {
        outcome = planner::PlanWithinOverhead(context, allowance_ns_, baseline_, device_capacity_);
      }
      if (cannot_fit_within_overhead ||
          (capacity_ > 0 && outcome.plan.layout.arena_bytes > capacity_)) {
        budget_mode_ = true;
        budget_ = capacity_;
        outcome = planner::PlanToBudget(context, capacity_, baseline_);
      }
    }
    Keep(ReplannedUnlessRouted(context, std::move(outcome)));
  }

  // Whether the route pass (expert_placement.h) rewrites `outcome`'s transfers once the search
  // is done: then the timeline it ran on is not the one the returned plan runs on.
  bool RoutedAfterward(const Outcome& outcome) const {
    return planner::RewrittenAfterRoute(planned(), options_, outcome.plan);
  }

  // `outcome` replanned on the timeline it ran on, unless the route pass rewrites it (retime.h
  // ReplanUnlessRouted: that timeline is not the returned plan's).
  Outcome ReplannedUnlessRouted(const PlanContext& context, Outcome outcome) {
    return planner::ReplanUnlessRouted(context, options_, std::move(outcome), budget_mode_,
                                       PlanOnAxis());
  }

  // Each update right after its gradient (order.h): the state's write-back overlaps the
  // backward pass instead of following it. Planned only where a budget binds (known once the
  // model's order is planned): with room on the device it trades the arena against time
  // (supernode: 1.06 -> 1.07 s for a 4 GB smaller arena), so it is not even built there.
  void PlanEagerUpdateOrder() {
    if (!budget_mode_ || !options_.allow_reorder || problem_.aliases.empty() ||
        !problem_.units.node_unit.empty()) {
      return;
    }
    std::vector<NodeId> order = planner::EagerUpdateOrder(model(), problem_.aliases);
    if (order != model_context().order && AliasesHoldIn(model(), problem_.aliases, order)) {
      PlanAndKeep(AddContext(std::move(order), kEagerUpdateOrder));
    }
  }

  // A write-back that outlasts the iteration after its write (the training step's embedding,
  // updated last) runs past the iteration's end: the winning order again with those values
  // kept across the boundary and written back from the next iteration's start, replanned
  // from the timeline the winner ran on, even where that is the compute-only axis (a
  // stall-free plan whose Store runs past its end). Planned first on the compute-only axis
  // and then chained, the variant lost where links bind and cost a whole chain more.
  void PlanLateWriteBacksAtStart() {
    const PlanContext* winner = ContextWithOrder(contexts_, chosen_.plan.order);
    if (chosen_.feasible && winner != nullptr && !RoutedAfterward(chosen_) &&
        EndsOnWriteBackOf(chosen_, planner::LateWriteBackValues(*winner))) {
      Keep(planner::ReplanOnRunTimeline(planner::WithLateWriteBacksAtStart(*winner), chosen_,
                                        budget_mode_, PlanOnAxis(), planner::Seed::kOtherContext));
    }
  }

  // The winning plan's order once more on the timeline that plan ran on, hoisted, without
  // refine's rule that turns down a gap whose pre-peak Store would wait longer on the
  // compute-only axis (pre_peak_stores.h). Where the forward pass must stall for its Stores
  // (the training step on rtx-4090-xeon-2s: 44 GB of activations leave over a 25 GB/s link
  // behind 0.9 s of forward compute), every pre-peak Store waits on the compute-only axis,
  // the rule turns down every activation's gap at the peak, and each retimed round stuck there
  // with its live peak at 43.6 GB (no retimed round fit): the plan kept was the compute-only
  // axis's. One round, not a chain: chained rounds without the rule took 25 s of planning
  // against 6.7 s, for 5.37 s against this round's 5.49 s; hoisted, as the second-choice
  // chains are (5.67 s not hoisted), and only up to kSecondChoiceLimit steps like them.
  // Kept only when it beats the chosen plan, and run only by a search whose plan leads those of
  // the same PlanOffload so far (the training step: 8.3 s of planning, against 10.0 s with the
  // round in every search and 6.7 s without it; the same plan either way; measured before
  // hoisting moved stored values too, which made it 4.98 s at 6.5 s). Cost: one budget mode's
  // rounds per such search.
  void PlanStoresJudgedOnOwnAxis() {
    const PlanContext* winner = ContextWithOrder(contexts_, chosen_.plan.order);
    const SimulationResult& ran = chosen_.evaluation.timeline;
    if (!budget_mode_ || !chosen_.feasible || winner == nullptr || ran.makespan_ns >= lead_ns_ ||
        winner->step_count() > planner::kSecondChoiceLimit || ran.makespan_ns <= ran.compute_ns ||
        RoutedAfterward(chosen_) || planner::LinkSaturated(profile(), chosen_)) {
      return;
    }
    PlanContext own_axis = planner::RetimedContext(*winner, ComputeStepStarts(chosen_.plan, ran));
    own_axis.reject_stores_late_on_compute_axis = false;
    own_axis.hoist_prefetches = true;
    Keep(PlanOnAxis()(own_axis));
  }

  // Values kept on the device across the boundary while they leave in between are wrapped
  // arena blocks, which can fragment the arena past the budget where the old all-iteration
  // block fit (a weight read first and last, around the peak): then each order again with
  // its inner gaps bundled to the wrap-around gap.
  void PlanInnerGapsBundled() {
    if (chosen_.feasible || !planner::LayoutMayBeWhatFails(chosen_, budget_.value_or(capacity_)))
      return;
    std::vector<PlanContext> bundled;
    for (const PlanContext& context : contexts_) {
      if (planner::HasOwnInnerGaps(context)) {
        bundled.push_back(planner::WithInnerGapsBundled(context));
      }
    }
    for (const PlanContext& context : bundled) PlanAndKeep(context);
  }

  // The ranking of wrap-around halves (candidates.h WrapRank) wins on decodes whose layers
  // must stream, the old one on some prefills and training steps: where the budget's plan
  // stalls, the winning order again ranked the old way, replanned on its own timeline, and,
  // should that plan end on a write-back, with the late write-backs kept across the boundary
  // too (PlanLateWriteBacksAtStart); the better plan kept. Only up to kSecondChoiceLimit steps
  // (a chain or two more of planning).
  void PlanWrapHalvesRankedAlone() {
    const PlanContext* winner = ContextWithOrder(contexts_, chosen_.plan.order);
    const SimulationResult& timeline = chosen_.evaluation.timeline;
    if (!budget_mode_ || winner == nullptr || winner->persistent.empty() ||
        winner->step_count() > planner::kSecondChoiceLimit ||
        timeline.makespan_ns <= timeline.compute_ns) {
      return;
    }
    const PlanContext own_half = planner::WithWrapHalvesRankedAlone(*winner);
    Outcome outcome = planner::PlanToBudget(own_half, *budget_, baseline_);
    outcome = ReplannedUnlessRouted(own_half, std::move(outcome));
    if (outcome.feasible && !RoutedAfterward(outcome) &&
        EndsOnWriteBackOf(outcome, planner::LateWriteBackValues(own_half))) {
      Outcome late =
          planner::ReplanOnRunTimeline(planner::WithLateWriteBacksAtStart(own_half), outcome, true,
                                       PlanOnAxis(), planner::Seed::kOtherContext);
      Keep(std::move(late));
    }
    Keep(std::move(outcome));
  }

  const Problem& problem_;
  const PlanOptions& options_;
  int64_t capacity_ = 0;                    // the device's; 0: unbounded
  std::optional<int64_t> device_capacity_;  // unset: unbounded
  std::optional<int64_t> budget_;
  bool budget_mode_ = false;
  int64_t allowance_ns_ = 0;
  int64_t lead_ns_ = 0;
  std::vector<PlanContext> contexts_;
  Baseline baseline_;
  Outcome chosen_;
  bool have_ = false;
};

// One placement's plan: the orders, modes and variants above.
// `lead_ns`: the fastest plan of the searches before this one (OffloadSearch), lowered to this
// one's when it is faster.
PlanResult PlanPlacement(const Problem& problem, const PlanOptions& options, int64_t& lead_ns) {
  OffloadSearch search(problem, options, lead_ns);
  PlanResult planned = search.Finish(options.offload ? search.Search() : search.NothingOffloaded());
  planned = planner::PlaceExpertsAfterRoute(problem, options, std::move(planned));
  if (planned.status == PlanStatus::kPlanned) {
    lead_ns = std::min(lead_ns, planned.evaluation.timeline.makespan_ns);
  }
  return planned;
}

// The units `plan` runs its compute steps on (by NodeId); empty when every step is the device's.
std::vector<ComputeUnit> UnitsOf(const Plan& plan, size_t node_count) {
  std::vector<ComputeUnit> units(node_count, ComputeUnit::kDevice);
  bool any_host = false;
  for (const PlanStep& step : plan.steps) {
    if (step.kind != StepKind::kCompute || step.unit != ComputeUnit::kHost) continue;
    units[step.node] = ComputeUnit::kHost;
    any_host = true;
  }
  if (!any_host) units.clear();
  return units;
}

// Whether `candidate` replaces `chosen`: it fits where `chosen` does, and is strictly faster
// or fits where `chosen` does not.
bool PlanBeats(const PlanResult& candidate, const PlanResult& chosen) {
  if (candidate.status != PlanStatus::kPlanned) return false;
  if (chosen.status != PlanStatus::kPlanned) return true;
  return candidate.evaluation.timeline.makespan_ns < chosen.evaluation.timeline.makespan_ns;
}

// A placement's problem replanned in `order` (the placed problem's own when equal): its
// lifetimes again where the order moved.
PlanResult PlanPlacedInOrder(Problem placed, std::vector<NodeId> order, const PlanOptions& options,
                             int64_t& lead_ns) {
  if (order != placed.order) {
    placed.order = std::move(order);
    placed.lifetimes = AnalyzeLifetimes(*placed.graph, placed.order, placed.units);
  }
  return PlanPlacement(placed, options, lead_ns);
}

// Where reordering is allowed and the loop updates state in place: the placement again in the
// eager-update order (order.h: each parameter's weight-gradient MatMul and update chain right
// after its gradient), its weights' preparation moved early too. With the update on the host
// (ZeRO-Offload), the model's order runs every update after the whole backward pass: each
// gradient waits on the device until its update's turn, its crossing Store is issued only
// there, so the device then waits on the out-link for every Detach behind it while the host
// has not started. Llama-3-8B training on rtx-4090-xeon-2s: the device sat idle 0.50 s
// behind 11 GiB of gradient Stores issued after the backward pass, and the host ran its
// 1.78 s of updates from 4.87 s to 6.75 s of a 6.80 s iteration. With `host_tail_early`
// (WithEveryUpdateOnHost's placement) the host's tail, its nodes after the order's last device
// node, has the nodes that read nothing computed moved to the order's start (HostEarlyOrder,
// host_early_order.h): there the token table's update runs after the device's last step, and
// its moments' decays and the zeros its gradient is scattered into run in the forward pass,
// where the host idles (4.57 -> 4.56 s). Composed into this one planning, and only there: on
// ZeRO-Offload's placement of the same row (the table's update without its lookup and
// scatter) the move made 4.60 -> 4.63 s, and planning both orders cost 26-34% more CPU (the
// second cut short by the first's lead). Kept only when it beats `chosen`.
PlanResult WithEagerHostUpdates(const Problem& placed, const PlanOptions& options,
                                PlanResult chosen, int64_t& lead_ns, bool host_tail_early) {
  if (!options.allow_reorder || placed.aliases.empty()) return chosen;
  std::vector<NodeId> eager = planner::EagerUpdateOrder(*placed.model, placed.aliases);
  if (eager == placed.order || !AliasesHoldIn(*placed.model, placed.aliases, eager)) {
    return chosen;
  }
  std::vector<NodeId> order = planner::PrepEarlyOrder(*placed.graph, eager, placed.units.node_unit);
  if (host_tail_early) {
    order = planner::HostEarlyOrder(*placed.graph, order, placed.units.node_unit);
  }
  PlanResult eager_plan = PlanPlacedInOrder(placed, std::move(order), options, lead_ns);
  if (!PlanBeats(eager_plan, chosen)) return chosen;
  eager_plan.plan.reordered = true;
  eager_plan.plan.order_name = kEagerUpdateOrder;
  return eager_plan;
}

// The chosen unit placement again with the device running beside the host: each crossing
// Detach waiting for its Store alone (problem.h detach_waits_for_host) and, where reordering is
// allowed, a weight's preparation moved into the device's wait for the host (PrepEarlyOrder,
// prep_early_order.h), and the updates run eagerly (WithEagerHostUpdates, its host tail moved
// early with `host_tail_early`). One or two more plannings where the placement has host steps;
// each kept only when it beats the chosen plan, so no plan gets worse.
PlanResult WithDeviceBesideHost(const Problem& problem, const PlanOptions& options,
                                PlanResult chosen, int64_t& lead_ns, bool host_tail_early) {
  if (chosen.plan.reordered) return chosen;
  std::vector<ComputeUnit> units = UnitsOf(chosen.plan, problem.graph->nodes.size());
  if (units.empty()) return chosen;
  Problem placed = PlaceUnits(problem, std::move(units));
  placed.detach_waits_for_host = false;
  std::vector<NodeId> order =
      planner::PrepEarlyOrder(*placed.graph, placed.order, placed.units.node_unit);
  const bool reordered = options.allow_reorder && order != placed.order;
  PlanResult beside =
      PlanPlacedInOrder(placed, reordered ? std::move(order) : placed.order, options, lead_ns);
  if (PlanBeats(beside, chosen)) {
    if (reordered) {
      beside.plan.reordered = true;
      beside.plan.order_name = kPrepEarlyOrder;
    }
    chosen = std::move(beside);
  }
  return WithEagerHostUpdates(placed, options, std::move(chosen), lead_ns, host_tail_early);
}

// ZeRO-Offload's placement, every optimizer update on the host, through the same variants
// (WithDeviceBesideHost), kept when it beats `chosen`. The host search compares placements
// planned in the model's order and runs the variants (the eager-update order) on its winner
// alone: on the 8B training step on rtx-4090-xeon-2s its winner (the updates of layers 2-31
// and lm_head) ran 4.98 s eagerly where every update on the host ran 4.92 s (the ZeRO-Offload
// contender, through this planner); on the tiny training step, where the device's plan fits
// and the search never looks at the host, ZeRO-Offload's placement ran 14.8 ms against its
// 46.1 ms. Where a host unit and updates exist: up to three more plannings.
PlanResult WithEveryUpdateOnHost(const Problem& problem, const PlanOptions& options,
                                 PlanResult chosen) {
  if (!options.offload || !options.host_compute || !problem.profile->host_compute.present() ||
      !problem.units.node_unit.empty()) {
    return chosen;
  }
  std::vector<ComputeUnit> chosen_units = UnitsOf(chosen.plan, problem.graph->nodes.size());
  // With the token table's lookup and gradient scatter (host_parts.h embedding_readers): with
  // every update on the host, the table's home copy is the host's, so only the rows cross (on
  // the training step on rtx-4090-xeon-2s the 1.05 GB table no longer comes in whole before the
  // forward pass, nor its gradient out after the backward pass: 4.60 -> 4.57 s).
  HostPartOptions readers;
  readers.embedding_readers = true;
  std::vector<HostPart> updates = FindHostParts(problem, readers);
  std::erase_if(updates,
                [](const HostPart& part) { return part.kind != HostPartKind::kOptimizer; });
  if (updates.empty()) return chosen;
  std::vector<ComputeUnit> units = NodeUnitsOf(*problem.graph, updates);
  if (units == chosen_units) return chosen;
  // Planned as a search of its own (as the contender's PlanOffload does): its model-order plan
  // trails the lead, which would skip the last round that the eager order wins by.
  int64_t own_lead_ns = std::numeric_limits<int64_t>::max();
  PlanResult every = PlanPlacement(PlaceUnits(problem, std::move(units)), options, own_lead_ns);
  every = WithDeviceBesideHost(problem, options, std::move(every), own_lead_ns,
                               /*host_tail_early=*/true);
  return PlanBeats(every, chosen) ? every : chosen;
}

// The plan PlanOffload returns, verified against the model (a failure is a bug). Only this one:
// the placements' plans that lost were compared by status and makespan, which their
// verification never changed (a failure threw), so verifying each (4% of the CPU on DeepSeek-V3
// fp8 gather, every placement the host search tried) decided nothing; a bug in a plan that is
// returned still throws here.
PlanResult VerifyChosen(const Problem& problem, PlanResult chosen) {
  const VerifyResult verdict =
      VerifyPlan(*problem.model, *problem.profile, chosen.plan, chosen.evaluation);
  if (!verdict.ok) {
    throw Error(ErrorKind::kInternal, "plan failed verification: " + verdict.message);
  }
  return chosen;
}

}  // namespace

PlanResult PlanOffload(const Problem& problem, const PlanOptions& options) {
  CheckPlanInputs(*problem.profile, options);
  int64_t lead_ns = std::numeric_limits<int64_t>::max();  // no search has planned yet
  PlanResult device = PlanPlacement(problem, options, lead_ns);
  PlanResult chosen = planner::PlaceOnHostWhereFaster(
      problem, options, std::move(device), [&options, &lead_ns](const Problem& placed) {
        return PlanPlacement(placed, options, lead_ns);
      });
  chosen = WithDeviceBesideHost(problem, options, std::move(chosen), lead_ns,
                                /*host_tail_early=*/false);
  return VerifyChosen(problem, WithEveryUpdateOnHost(problem, options, std::move(chosen)));
}

PlanResult PlanOffload(const Graph& graph, const HardwareProfile& profile,
                       const PlanOptions& options) {
  return PlanOffload(BuildProblem(graph, profile, options), options);
}

}  // namespace hyperplan
