// PlanOffload: orders, modes and the choice between plans (see planner.h).
#include "hyperplan/planner/planner.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "hyperplan/error.h"
#include "hyperplan/layout/plan_layout.h"
#include "hyperplan/plan/cold_start.h"
#include "hyperplan/plan/verify.h"
#include "hyperplan/routes.h"
#include "planner/context.h"
#include "planner/explain.h"
#include "planner/modes.h"
#include "planner/order.h"
#include "planner/retime.h"

namespace hyperplan {
namespace {

using planner::Baseline;
using planner::Outcome;
using planner::PlanContext;

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

// Whether a Store of a value flagged in `values` (by ValueId) ends after the plan's last
// compute step: the iteration ends waiting for it.
bool EndsOnWriteBackOf(const Plan& plan, const std::vector<uint8_t>& values) {
  if (values.empty()) return false;
  int64_t compute_end_ns = 0;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (plan.steps[i].kind == StepKind::kCompute) {
      compute_end_ns = std::max(compute_end_ns, plan.timeline.steps[i].end_ns);
    }
  }
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    if (step.kind == StepKind::kStore && values[step.value] &&
        plan.timeline.steps[i].end_ns > compute_end_ns) {
      return true;
    }
  }
  return false;
}

// Whether bundling inner gaps to the wrap-around gap (the fallback in PlanOffload) is worth a
// plan per order: it is meant for wrapped blocks that fragment the arena past `limit_bytes`
// while the live bytes fit. Bundled, a value's gaps free no step it could not free alone, so a
// plan whose live bytes are over the limit is left as it is (the 990k-node stacked decode: 3.3
// TB live against an 80 GB device; the bundled plans took 15 of its 38 s of planning and
// 1 GB of peak RSS for nothing).
bool LayoutMayBeWhatFails(const Outcome& outcome, int64_t limit_bytes) {
  return limit_bytes <= 0 || outcome.plan.layout.live_peak_bytes <= limit_bytes;
}

const PlanContext* ContextWithOrder(const std::vector<PlanContext>& contexts,
                                    const std::vector<NodeId>& order) {
  for (const PlanContext& context : contexts) {
    if (context.order == order) return &context;
  }
  return nullptr;
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
    auto keep = [&](Outcome outcome) {
      if (!have || planner::OutcomeBeats(outcome, chosen, budget_mode)) {
        chosen = std::move(outcome);
        have = true;
      }
    };
    // A plan in a context on another time axis, by the mode the first plan settled on.
    const planner::PlanOnAxis plan_on_axis = [&](const PlanContext& retimed) {
      return budget_mode
                 ? planner::PlanToBudget(retimed, *budget, baseline)
                 : planner::PlanWithinOverhead(retimed, allowance_ns, baseline, device_capacity);
    };
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
      keep(planner::ReplanOnRunTimeline(context, std::move(outcome), budget_mode, plan_on_axis));
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
    // A write-back that outlasts the iteration after its write (the training step's embedding,
    // updated last) runs past the iteration's end: the winning order again with those values
    // kept across the boundary and written back from the next iteration's start, replanned
    // from the timeline the winner ran on, even where that is the compute-only axis (a
    // stall-free plan whose Store runs past its end). Planned first on the compute-only axis
    // and then chained, the variant lost where links bind and cost a whole chain more.
    const PlanContext* winner = ContextWithOrder(contexts, chosen.plan.order);
    if (chosen.feasible && winner != nullptr &&
        EndsOnWriteBackOf(chosen.plan, planner::LateWriteBackValues(*winner))) {
      keep(planner::ReplanOnRunTimeline(planner::WithLateWriteBacksAtStart(*winner), chosen,
                                        budget_mode, plan_on_axis, planner::Seed::kOtherContext));
    }
    // Values kept on the device across the boundary while they leave in between are wrapped
    // arena blocks, which can fragment the arena past the budget where the old all-iteration
    // block fit (a weight read first and last, around the peak): then each order again with
    // its inner gaps bundled to the wrap-around gap.
    if (!chosen.feasible && LayoutMayBeWhatFails(chosen, budget.value_or(capacity))) {
      std::vector<PlanContext> bundled;
      for (const PlanContext& context : contexts) {
        if (planner::HasOwnInnerGaps(context))
          bundled.push_back(planner::WithInnerGapsBundled(context));
      }
      for (const PlanContext& context : bundled) plan_and_keep(context);
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
