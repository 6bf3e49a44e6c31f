// The best verified plan among the planner's and the contenders' (see portfolio.h).
#include "contenders/portfolio.h"

#include <algorithm>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "contenders/contender_pool.h"
#include "contenders/context.h"
#include "contenders/layer_streaming.h"
#include "contenders/lower_bounds.h"
#include "contenders/op_distance.h"
#include "hyperplan/plan/verify.h"

namespace hyperplan::contenders {
namespace {

struct Entry {
  std::string name;
  // `search`: the budget search's counts, shared with the entries of the same device
  // residency (layer_streaming.h ResidentSearch).
  std::function<EvaluatedPlan(const ContenderContext&, int64_t budget_bytes,
                              ResidentSearch* search)>
      plan;
  // Runs only where some home is behind a staging tier (NVMe behind DDR): elsewhere it would
  // rebuild another entry's plan.
  bool needs_staging_homes = false;
  // A staged entry's unstaged twin (the same policy with both hops of a fetch issued together):
  // the staged one holds the same device bytes and more staging-tier bytes, so it fits only
  // where the twin does.
  std::string unstaged_twin;  // empty: not staged
};

// Whether some value's home reaches the device through a staging tier (NVMe behind DDR).
bool AnyHomeBehindStagingTier(const ContenderContext& context) {
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

// When a staged entry issues its staging hops (NVMe -> DDR); unstaged: with the device hop.
struct StageLead {
  int layers = 0;        // this many visits ahead of the device hop
  bool by_room = false;  // as far ahead as the staging tier's free room allows
  bool Staged() const { return layers > 0 || by_room; }
};

// Layer streaming with `lookahead` layers in flight, `residency` deciding what stays, staging
// hops issued as `lead` says.
Entry StreamingEntry(int lookahead, Residency residency, StageLead lead = {}) {
  const std::string unstaged = std::string(residency == Residency::kInterleaved ? "interleaved "
                                           : residency == Residency::kHomeAware ? "home-aware "
                                                                                : "") +
                               "layer streaming k=" + std::to_string(lookahead);
  const std::string name = unstaged + (lead.by_room      ? " staged by room"
                                       : lead.layers > 0 ? " staged +" + std::to_string(lead.layers)
                                                         : "");
  Entry entry;
  entry.name = name;
  entry.plan = [lookahead, residency, lead](const ContenderContext& context, int64_t budget,
                                            ResidentSearch* search) {
    LayerStreamingOptions options;
    options.lookahead_layers = lookahead;
    options.interleave = residency == Residency::kInterleaved;
    options.slow_homes_resident = residency == Residency::kHomeAware;
    options.stage_lead_layers = lead.layers;
    options.stage_by_room = lead.by_room;
    options.stream_state = true;  // a layer's KV cache streams with it (FlexGen)
    return EvaluatedPlan(LayerStreamingPlan(context, budget, options, search));
  };
  entry.needs_staging_homes = lead.Staged() || residency == Residency::kHomeAware;
  if (lead.Staged()) entry.unstaged_twin = unstaged;
  return entry;
}

Entry OpDistanceEntry(int distance) {
  Entry entry;
  entry.name = "op distance " + std::to_string(distance);
  entry.plan = [distance](const ContenderContext& context, int64_t budget, ResidentSearch*) {
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
    for (int layers : {2, 4, 8}) {
      list.push_back(StreamingEntry(1, Residency::kHomeAware, StageLead{layers, false}));
    }
    list.push_back(StreamingEntry(1, Residency::kHomeAware, StageLead{0, true}));
    for (int distance : {4, 32}) list.push_back(OpDistanceEntry(distance));
    return list;
  }();
  return entries;
}

// Whether `a` beats `b` (strictly): fits, then makespan, then bytes moved, then arena. When
// neither fits, the one closer to fitting (the smaller arena) wins: a user who is told "no
// fit" sees the plan that came nearest, not a fast one twice the device.
bool Beats(const EvaluatedPlan& a, const EvaluatedPlan& b) {
  const int64_t a_arena = a.plan.layout.arena_bytes;
  const int64_t b_arena = b.plan.layout.arena_bytes;
  const SimulationResult& a_timeline = a.evaluation.timeline;
  const SimulationResult& b_timeline = b.evaluation.timeline;
  if (a.evaluation.fits != b.evaluation.fits) return a.evaluation.fits;
  if (!a.evaluation.fits && a_arena != b_arena) return a_arena < b_arena;
  if (a_timeline.makespan_ns != b_timeline.makespan_ns) {
    return a_timeline.makespan_ns < b_timeline.makespan_ns;
  }
  const int64_t a_moved = a_timeline.total_bytes_moved();
  const int64_t b_moved = b_timeline.total_bytes_moved();
  if (a_moved != b_moved) return a_moved < b_moved;
  return a_arena < b_arena;
}

// The budget the planner planned to, when it did plan to one (see options.h).
std::optional<int64_t> PlannedBudget(const Plan& plan) {
  return plan.offload_enabled ? plan.budget_bytes : std::nullopt;
}

// The lower bounds at `budget_bytes` for the model's order and, when it differs, the plan's
// (a bound holds per order; the smaller is the one every plan here is measured against).
void RecordLowerBounds(const ContenderContext& context, const HardwareProfile& profile,
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

// The contenders at `budget_bytes`, in portfolio order, but the entries that need homes behind a
// staging tier where none is; a staged entry runs only where its unstaged twin fits, and
// reuses its twin's budget search (ResidentSearch: the same device residency at every count).
std::vector<ContenderTask> ContenderTasks(const ContenderContext& context, int64_t budget_bytes) {
  const bool staging_homes = AnyHomeBehindStagingTier(context);
  std::vector<ContenderTask> tasks;
  std::map<std::string, std::shared_ptr<ResidentSearch>> searches;  // by unstaged name
  for (const Entry& entry : Entries()) {
    if (entry.needs_staging_homes && !staging_homes) continue;
    std::shared_ptr<ResidentSearch>& search =
        searches[entry.unstaged_twin.empty() ? entry.name : entry.unstaged_twin];
    if (!search) search = std::make_shared<ResidentSearch>();
    // Only the twin writes the shared counts. A staged entry runs once its twin is done, on a
    // copy: staged entries run side by side, and one reading a count another wrote meanwhile
    // would plan by timing.
    const bool staged = !entry.unstaged_twin.empty();
    ContenderTask task{entry.name,
                       [&context, &entry, budget_bytes, search, staged] {
                         if (!staged) return entry.plan(context, budget_bytes, search.get());
                         ResidentSearch twins = *search;
                         return entry.plan(context, budget_bytes, &twins);
                       },
                       std::nullopt};
    for (size_t t = 0; t < tasks.size(); ++t) {
      if (tasks[t].name == entry.unstaged_twin) task.prerequisite = t;
    }
    tasks.push_back(std::move(task));
  }
  return tasks;
}

// The contenders at `budget_bytes`, ready for Work: the best verified plan is kept (Beats
// orders plans strictly; the first of equals in portfolio order wins).
std::unique_ptr<ContenderPool> MakePool(const Graph& graph, const HardwareProfile& profile,
                                        const ContenderContext& context, int64_t budget_bytes) {
  return std::make_unique<ContenderPool>(
      ContenderTasks(context, budget_bytes), Beats,
      [&graph, &profile](const EvaluatedPlan& planned) {
        return VerifyPlan(graph, profile, planned.plan, planned.evaluation).ok;
      });
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
  // One problem bundle for the planner and every contender (problem.h).
  const Problem problem = BuildProblem(graph, profile, options);
  const std::optional<int64_t> expected_budget = ExpectedBudget(profile, options);
  std::optional<ContenderContext> context;
  std::unique_ptr<ContenderPool> pool;
  std::future<void> contenders;
  // Should the planner throw, the contenders stop at their next policy before the future's
  // destructor waits for them.
  const struct CancelOnExit {
    const std::unique_ptr<ContenderPool>& pool;
    ~CancelOnExit() {
      if (pool) pool->Cancel();
    }
  } cancel_on_exit{pool};
  if (expected_budget) {
    context.emplace(BuildContenderContext(problem));
    pool = MakePool(graph, profile, *context, *expected_budget);
    contenders = std::async(ContenderLaunch(), [&pool = *pool] { pool.Work(); });
  }
  PlanResult result = PlanOffload(problem, options);
  result.own_makespan_ns = result.evaluation.timeline.makespan_ns;
  result.own_fits = result.evaluation.fits;
  const std::optional<int64_t> budget = PlannedBudget(result.plan);
  const bool ran_at_budget = contenders.valid() && budget == expected_budget;
  if (contenders.valid()) {
    if (ran_at_budget) {
      pool->Work();  // the planner is done: this thread builds contenders too
    } else {
      // The guess missed: its plans are moot, and so is an error one of them threw (whether
      // the thread took a task before the Cancel is a matter of timing; thrown here, it made
      // the exit status vary from run to run).
      pool->Cancel();
    }
    contenders.get();
    if (ran_at_budget) pool->ThrowFirstError();
  }
  if (!budget) return result;
  if (!context) context.emplace(BuildContenderContext(problem));
  if (!ran_at_budget) {  // plan them (again) at the planner's budget, on every core
    pool = MakePool(graph, profile, *context, *budget);
    contenders = std::async(ContenderLaunch(), [&pool = *pool] { pool.Work(); });
    pool->Work();
    contenders.get();
    pool->ThrowFirstError();
  }
  if (comparison != nullptr) {
    RecordLowerBounds(*context, profile, result.plan.order, *budget, *comparison);
    comparison->contenders = pool->Outcomes();
  }
  std::optional<EvaluatedPlan> best = pool->TakeBest();
  if (best && Beats(*best, result)) {
    static_cast<EvaluatedPlan&>(result) = std::move(*best);
    if (result.evaluation.fits) result.status = PlanStatus::kPlanned;
  }
  return result;
}

}  // namespace hyperplan::contenders
