// The best verified plan among the planner's and the contenders' (see portfolio.h).
#include "baselines/portfolio.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <future>
#include <optional>
#include <thread>
#include <utility>

#include "baselines/context.h"
#include "baselines/layer_streaming.h"
#include "baselines/lower_bounds.h"
#include "baselines/op_distance.h"
#include "hyperplan/planner/simulate.h"
#include "hyperplan/planner/verify.h"

namespace hyperplan::baselines {
namespace {

struct Entry {
  std::string name;
  std::function<Plan(const BaselineContext&, int64_t budget_bytes)> plan;
  // Runs only where some home is behind a staging tier (NVMe behind DDR): elsewhere it would
  // rebuild another entry's plan.
  bool needs_staging_homes = false;
  // A staged entry's unstaged twin (the same policy with both hops of a fetch issued together):
  // the staged one holds the same device bytes and more staging-tier bytes, so it fits only
  // where the twin does.
  std::string unstaged_twin;  // empty: not staged
};

// Whether some value's home reaches the device through a staging tier (NVMe behind DDR).
bool AnyHomeBehindStagingTier(const BaselineContext& context) {
  const std::vector<TierId>& homes = context.homes.home_tier;
  return std::any_of(homes.begin(), homes.end(),
                     [&](TierId home) { return context.routes.BehindStagingTier(home); });
}

// Which layers (or values) layer streaming keeps on the device (layer_streaming.h).
enum class Residency {
  kLeading,      // the leading layers (the peers' form)
  kInterleaved,  // layers spread among the streamed ones (hyperplan's)
  kHomeAware,    // values homed behind a staging tier first, then leading (hyperplan's)
};

// A stage lead meaning "as far ahead as the staging tier's room allows".
constexpr int kStageByRoom = -1;

// Layer streaming with `lookahead` layers in flight, `residency` deciding what stays, staging
// hops `stage_lead` layers ahead (0: issued with the device hop; kStageByRoom).
Entry StreamingEntry(int lookahead, Residency residency, int stage_lead = 0) {
  const std::string unstaged = std::string(residency == Residency::kInterleaved ? "interleaved "
                                           : residency == Residency::kHomeAware ? "home-aware "
                                                                                : "") +
                               "layer streaming k=" + std::to_string(lookahead);
  const std::string name = unstaged + (stage_lead == kStageByRoom ? " staged by room"
                                       : stage_lead > 0 ? " staged +" + std::to_string(stage_lead)
                                                        : "");
  Entry entry;
  entry.name = name;
  entry.plan = [lookahead, residency, stage_lead](const BaselineContext& context, int64_t budget) {
    LayerStreamingOptions options;
    options.lookahead_layers = lookahead;
    options.interleave = residency == Residency::kInterleaved;
    options.slow_homes_resident = residency == Residency::kHomeAware;
    options.stage_lead_layers = std::max(0, stage_lead);
    options.stage_by_room = stage_lead == kStageByRoom;
    options.stream_state = true;  // a layer's KV cache streams with it (FlexGen)
    return LayerStreamingPlan(context, budget, options).plan;
  };
  entry.needs_staging_homes = stage_lead != 0 || residency == Residency::kHomeAware;
  if (stage_lead != 0) entry.unstaged_twin = unstaged;
  return entry;
}

Entry OpDistanceEntry(int distance) {
  Entry entry;
  entry.name = "op distance " + std::to_string(distance);
  entry.plan = [distance](const BaselineContext& context, int64_t budget) {
    OpDistanceOptions options;
    options.prefetch_distance_ops = distance;
    return OpDistancePlan(context, budget, options);
  };
  return entry;
}

const std::vector<Entry>& Entries() {
  static const std::vector<Entry> entries = [] {
    std::vector<Entry> list;
    for (int lookahead : {0, 1, 2}) list.push_back(StreamingEntry(lookahead, Residency::kLeading));
    for (int lookahead : {1, 2}) list.push_back(StreamingEntry(lookahead, Residency::kInterleaved));
    list.push_back(StreamingEntry(1, Residency::kHomeAware));
    for (int lead : {2, 4, 8, kStageByRoom}) {
      list.push_back(StreamingEntry(1, Residency::kHomeAware, lead));
    }
    for (int distance : {4, 32}) list.push_back(OpDistanceEntry(distance));
    return list;
  }();
  return entries;
}

int64_t BytesMoved(const Plan& plan) {
  int64_t total = 0;
  for (int64_t bytes : plan.timeline.bytes_moved_per_link) total += bytes;
  return total;
}

// Whether `a` beats `b` (strictly): fits, then makespan, then bytes moved, then arena. When
// neither fits, the one closer to fitting (the smaller arena) wins: a user who is told "no
// fit" sees the plan that came nearest, not a fast one twice the device.
bool Beats(const Plan& a, const Plan& b) {
  if (a.fits != b.fits) return a.fits;
  if (!a.fits && a.layout.arena_bytes != b.layout.arena_bytes) {
    return a.layout.arena_bytes < b.layout.arena_bytes;
  }
  if (a.timeline.makespan_ns != b.timeline.makespan_ns) {
    return a.timeline.makespan_ns < b.timeline.makespan_ns;
  }
  if (BytesMoved(a) != BytesMoved(b)) return BytesMoved(a) < BytesMoved(b);
  return a.layout.arena_bytes < b.layout.arena_bytes;
}

// The budget the planner planned to, when it did plan to one (see options.h).
std::optional<int64_t> PlannedBudget(const Plan& plan) {
  return plan.offload_enabled ? plan.budget_bytes : std::nullopt;
}

// The lower bounds at `budget_bytes` for the model's order and, when it differs, the plan's
// (a bound holds per order; the smaller is the one every plan here is measured against).
void RecordLowerBounds(const BaselineContext& context, const HardwareProfile& profile,
                       const std::vector<NodeId>& plan_order, int64_t budget_bytes,
                       PortfolioComparison& comparison) {
  LowerBounds bound = ComputeLowerBounds(*context.graph, profile, context.order,
                                         context.node_time_ns, budget_bytes, context.persistent);
  if (plan_order != context.order && plan_order.size() == context.order.size()) {
    const LowerBounds own =
        ComputeLowerBounds(*context.graph, profile, plan_order, context.node_time_ns, budget_bytes,
                           context.persistent);
    if (own.makespan_ns < bound.makespan_ns) bound = own;
  }
  // Below the peak floor no plan fits, and the makespan bound (for plans within the budget)
  // bounds nothing.
  comparison.makespan_lower_bound_ns = bound.budget_below_floor ? 0 : bound.makespan_ns;
  comparison.peak_floor_bytes = bound.peak_floor_bytes;
}

// The budget PlanOffload will plan to, as far as it can be told before planning: the asked
// budget (capped by the device), else the device when it has a capacity (the planner plans to
// it whenever its overhead-mode plan does not fit). PlanBest starts the contenders there while
// the planner runs and checks the guess against the plan's budget (PlannedBudget).
std::optional<int64_t> ExpectedBudget(const HardwareProfile& profile, const PlanOptions& options) {
  if (!options.offload) return std::nullopt;
  const int64_t capacity = profile.tiers[profile.device_tier].capacity_bytes;
  if (options.budget_bytes) {
    return capacity > 0 ? std::min(*options.budget_bytes, capacity) : *options.budget_bytes;
  }
  return capacity > 0 ? std::optional<int64_t>(capacity) : std::nullopt;
}

// The contenders' side of PlanBest: every policy's numbers, and the best verified plan among
// them (the first of equals, in portfolio order). `cancel` stops it between policies.
struct ContenderRun {
  std::vector<ContenderOutcome> outcomes;
  std::optional<Plan> best;
  std::atomic<bool> cancel{false};
};

// Whether a staged entry's unstaged twin, run before it, fitted.
bool TwinFits(const ContenderRun& run, const Entry& entry) {
  return std::any_of(run.outcomes.begin(), run.outcomes.end(), [&](const ContenderOutcome& twin) {
    return twin.name == entry.unstaged_twin && twin.fits;
  });
}

// Runs every contender at `budget_bytes`, in portfolio order, but the entries that need homes
// behind a staging tier where none is, and the staged ones whose twin did not fit. A plan that does
// not beat the best so far is dropped unverified; one that does replaces it once it verifies.
// Keeping the first best verified plan here and comparing it with the planner's once picks what
// comparing each in turn with the best of all would (Beats orders plans strictly).
void RunContenders(const Graph& graph, const HardwareProfile& profile,
                   const BaselineContext& context, int64_t budget_bytes, ContenderRun& run) {
  const bool staging_homes = AnyHomeBehindStagingTier(context);
  for (const Entry& entry : Entries()) {
    if (run.cancel) return;
    if (entry.needs_staging_homes && !staging_homes) continue;
    if (!entry.unstaged_twin.empty() && !TwinFits(run, entry)) continue;
    Plan plan = entry.plan(context, budget_bytes);
    run.outcomes.push_back({entry.name, plan.fits, plan.timeline.makespan_ns,
                            plan.layout.arena_bytes, BytesMoved(plan)});
    if (run.best && !Beats(plan, *run.best)) continue;
    if (!VerifyPlan(graph, profile, plan).ok) continue;
    plan.produced_by = entry.name;
    run.best = std::move(plan);
  }
}

// Contenders run beside the planner when the machine has a second core (the plans are the
// same either way: each is a function of its inputs, and PlanBest reads them after both end).
std::launch ContenderLaunch() {
  return std::thread::hardware_concurrency() > 1 ? std::launch::async : std::launch::deferred;
}

}  // namespace

std::vector<std::string> PortfolioPolicies() {
  std::vector<std::string> names;
  for (const Entry& entry : Entries()) names.push_back(entry.name);
  return names;
}

PlanResult PlanBest(const Graph& graph, const HardwareProfile& profile, const PlanOptions& options,
                    PortfolioComparison* comparison) {
  const LoopSpec loop{!options.single_run,
                      options.single_run ? std::vector<ValueAlias>{} : options.aliases};
  const std::optional<int64_t> expected_budget = ExpectedBudget(profile, options);
  std::optional<BaselineContext> context;
  ContenderRun run;
  std::future<void> contenders;
  // Should the planner throw, the contenders stop at their next policy before the future's
  // destructor waits for them.
  const struct StopOnExit {
    ContenderRun& run;
    ~StopOnExit() { run.cancel = true; }
  } stop_on_exit{run};
  if (expected_budget) {
    context.emplace(BuildBaselineContext(graph, profile, options.node_time_ns, loop));
    contenders = std::async(
        ContenderLaunch(), [&] { RunContenders(graph, profile, *context, *expected_budget, run); });
  }
  PlanResult result = PlanOffload(graph, profile, options);
  result.own_makespan_ns = result.plan.timeline.makespan_ns;
  result.own_fits = result.plan.fits;
  const std::optional<int64_t> budget = PlannedBudget(result.plan);
  const bool ran_at_budget = contenders.valid() && budget == expected_budget;
  if (contenders.valid()) {
    if (!ran_at_budget) run.cancel = true;  // the guess missed: its plans are moot
    contenders.get();
  }
  if (!budget) return result;
  if (!context) context.emplace(BuildBaselineContext(graph, profile, options.node_time_ns, loop));
  if (!ran_at_budget) {  // plan them (again) at the planner's budget
    run.outcomes.clear();
    run.best.reset();
    run.cancel = false;
    RunContenders(graph, profile, *context, *budget, run);
  }
  if (comparison != nullptr) {
    RecordLowerBounds(*context, profile, result.plan.order, *budget, *comparison);
    comparison->contenders = run.outcomes;
  }
  if (run.best && Beats(*run.best, result.plan)) {
    result.plan = std::move(*run.best);
    if (result.plan.fits) result.status = PlanStatus::kPlanned;
  }
  if (result.plan.produced_by == "hyperplan" || result.plan.order != context->order) return result;
  // A contender won: its timeline is one the links can keep. The planner places its own
  // transfers on that axis (instead of compute alone) and wins if it does better there.
  PlanOptions retimed = options;
  retimed.planning_step_start_ns = ComputeStepStarts(result.plan);
  retimed.budget_bytes = budget;  // the planner went to budget mode once already
  PlanResult replanned = PlanOffload(graph, profile, retimed);
  if (Beats(replanned.plan, result.plan)) {
    replanned.own_makespan_ns = replanned.plan.timeline.makespan_ns;
    replanned.own_fits = replanned.plan.fits;
    return replanned;
  }
  if (replanned.plan.fits &&
      (!result.own_fits || replanned.plan.timeline.makespan_ns < result.own_makespan_ns)) {
    result.own_makespan_ns = replanned.plan.timeline.makespan_ns;
    result.own_fits = true;
  }
  return result;
}

}  // namespace hyperplan::baselines
