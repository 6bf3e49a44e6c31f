// The LRU expert cache contender (see lru_experts.h).
#include "contenders/lru_experts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <list>
#include <map>
#include <utility>
#include <vector>

#include "hyperplan/plan/cold_start.h"
#include "hyperplan/routed_fetch.h"
#include "planner/expert_placement.h"

namespace hyperplan::contenders {
namespace {

using planner::StreamedOperand;

constexpr uint64_t kLruSeed = 1;

// Misses and touches of one LRU over the measured iterations.
struct LruCount {
  int64_t misses = 0;
  int64_t touched = 0;
};

LruCount ReplayLru(const MoeRouting& routing, int64_t slots) {
  std::list<int32_t> recency;  // most recent first
  LruCount count;
  for (int32_t index = 0; index < kLruWarmup + kLruIterations; ++index) {
    const std::vector<char> touched = SampleTouchedExperts(routing, kLruSeed, index);
    for (size_t e = 0; e < touched.size(); ++e) {
      if (!touched[e]) continue;
      const auto expert = static_cast<int32_t>(e);
      const auto found = std::find(recency.begin(), recency.end(), expert);
      const bool hit = found != recency.end();
      if (hit) recency.erase(found);
      recency.push_front(expert);
      if (static_cast<int64_t>(recency.size()) > slots) recency.pop_back();
      if (index < kLruWarmup) continue;
      count.touched += 1;
      count.misses += hit ? 0 : 1;
    }
  }
  return count;
}

// The plan with `slots` experts cached per streamed operand, each moving its node's misses.
struct Cached {
  EvaluatedPlan planned;
  LruCount count;
};

Cached CachedPlan(const ContenderContext& context, const LayoutOptions& layout,
                  const PlanResult& base, const std::vector<StreamedOperand>& streamed,
                  int64_t slots) {
  std::map<NodeId, LruCount> by_node;
  Cached cached;
  std::vector<std::vector<int32_t>> resident(streamed.size());
  std::vector<int64_t> fetched_bytes(streamed.size());
  for (size_t i = 0; i < streamed.size(); ++i) {
    const MoeRouting& routing = streamed[i].operand.routing;
    const int64_t held = std::min(slots, routing.experts - 1);
    for (int32_t e = 0; e < held; ++e) resident[i].push_back(e);
    auto found = by_node.find(routing.node);
    if (found == by_node.end()) {
      found = by_node.emplace(routing.node, ReplayLru(routing, held)).first;
      cached.count.misses += found->second.misses;
      cached.count.touched += found->second.touched;
    }
    const double misses =
        static_cast<double>(found->second.misses) / static_cast<double>(kLruIterations);
    fetched_bytes[i] =
        std::llround(static_cast<long double>(streamed[i].operand.slice_bytes) * misses);
  }
  const NoOffloadReference reference{context.baseline_peak_bytes, context.baseline_arena_bytes};
  cached.planned =
      FinishPlan(*context.graph, *context.profile, layout, reference,
                 planner::FetchAfterRoute(base.plan, streamed, resident, fetched_bytes));
  return cached;
}

// Every MoE node's stacked operands: the most slots (E - 1) and one expert's bytes over all.
struct ExpertSlices {
  int64_t most_slots = 0;
  int64_t slice_bytes = 0;  // one expert of every stacked operand of every MoE node
};

ExpertSlices AllSlices(const Graph& graph) {
  ExpertSlices slices;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (ValueId input : graph.nodes[n].inputs) {
      const std::optional<RoutedOperand> operand =
          RoutedOperandOf(graph, static_cast<NodeId>(n), input);
      if (!operand) continue;
      slices.most_slots = std::max(slices.most_slots, operand->routing.experts - 1);
      slices.slice_bytes += operand->slice_bytes;
    }
  }
  return slices;
}

// The device plan with `slots` experts cached per layer: the planner's plan of the device-only
// problem with stacked tensors whole, planned to the budget less the slots' room, then its
// streamed operands fetched after route into the slots. Empty when nothing streams.
std::optional<Cached> SlotsPlan(const ContenderContext& context, int64_t budget_bytes,
                                int64_t slots, const ExpertSlices& slices) {
  PlanOptions options = DeviceSideOptions(context, budget_bytes - slots * slices.slice_bytes);
  options.host_compute = false;
  options.route_fetch = false;
  const PlanResult base = PlanOffload(context, options);
  const std::vector<StreamedOperand> streamed =
      planner::FindStreamedOperands(*context.graph, base.plan);
  if (streamed.empty()) return std::nullopt;
  options.budget_bytes = budget_bytes;
  Plan plan = base.plan;
  plan.budget_bytes = budget_bytes;
  PlanResult with_budget;
  static_cast<EvaluatedPlan&>(with_budget) = EvaluatedPlan{std::move(plan), base.evaluation};
  return CachedPlan(context, options.layout, with_budget, streamed, slots);
}

}  // namespace

double MeanLruMisses(const MoeRouting& routing, int64_t slots) {
  return static_cast<double>(ReplayLru(routing, slots).misses) /
         static_cast<double>(kLruIterations);
}

LruExpertsResult LruExpertCachePlan(const ContenderContext& context,
                                    std::optional<int64_t> budget) {
  LruExpertsResult out;
  const int64_t budget_bytes = context.EffectiveBudget(budget);
  const ExpertSlices slices = AllSlices(*context.graph);
  if (slices.slice_bytes <= 0) {
    out.note = "not built: no stacked expert tensor of a MoE/QMoE node or expert Gather";
    return out;
  }
  // The most slots that fit (bisection over 1..E - 1; the room for one slot per layer must
  // leave a budget for the rest).
  int64_t fits = 0;
  int64_t too_many = std::min(slices.most_slots, budget_bytes / slices.slice_bytes) + 1;
  std::optional<Cached> best;
  while (too_many - fits > 1) {
    const int64_t mid = fits + (too_many - fits) / 2;
    std::optional<Cached> cached = SlotsPlan(context, budget_bytes, mid, slices);
    if (cached && cached->planned.evaluation.fits) {
      fits = mid;
      best = std::move(cached);
    } else {
      too_many = mid;
    }
  }
  if (!best) {
    out.note =
        "not built: no cache of one expert per layer fits beside the device plan (or "
        "the device holds every expert tensor whole)";
    return out;
  }
  out.slots = fits;
  out.hit_rate = best->count.touched > 0 ? 1.0 - static_cast<double>(best->count.misses) /
                                                     static_cast<double>(best->count.touched)
                                         : 0.0;
  static_cast<EvaluatedPlan&>(out.result) = std::move(best->planned);
  out.result.plan.produced_by = "LRU expert cache";
  out.result.evaluation.cold_start =
      ComputeColdStart(*context.graph, *context.profile, context.homes, out.result.plan);
  out.note = fmt::format("C = {} of {} experts cached per layer, {:.0f}% hits", fits,
                         slices.most_slots + 1, 100.0 * out.hit_rate);
  out.built = true;
  return out;
}

}  // namespace hyperplan::contenders
