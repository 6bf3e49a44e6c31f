// Fixed op-distance offloading (see op_distance.h).
#include "contenders/op_distance.h"

#include <algorithm>
#include <tuple>
#include <vector>

#include "contenders/copy_reservations.h"
#include "contenders/fit_budget.h"
#include "contenders/plan_builder.h"
#include "contenders/residency_rules.h"
#include "contenders/steady_state.h"
#include "hyperplan/planner/idle_gaps.h"
#include "hyperplan/planner/segment_tree.h"
#include "hyperplan/planner/stabbing_index.h"

namespace hyperplan::contenders {
namespace {

struct Gap {
  ValueId value = kNoValue;
  int64_t bytes = 0;
  Step cover_first = 0;  // steps it frees (inclusive)
  Step cover_last = 0;
  Step detach_boundary = -1;    // -1: starts off the device (a homed value's leading gap)
  Step prefetch_boundary = -1;  // -1: not needed again
  bool needs_store = false;
};

std::vector<Gap> FindGaps(const ContenderContext& context, int distance) {
  const Graph& graph = *context.graph;
  const Step n = context.step_count();
  std::vector<Gap> gaps;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const auto value = static_cast<ValueId>(id);
    const Value& info = graph.values[id];
    if (!info.size_known || info.bytes <= 0 || !context.homes.CanLeave(value)) continue;
    const Lifetime& lifetime = context.lifetimes.lifetimes[id];
    const bool produced = info.producer != kNoNode;
    const bool homed = context.homes.Homed(value);
    Gap base;
    base.value = value;
    base.bytes = info.bytes;
    base.needs_store = !homed;
    auto add = [&](Step first, Step last, Step detach, Step prefetch) {
      if (first > last) return;
      Gap gap = base;
      gap.cover_first = first;
      gap.cover_last = last;
      gap.detach_boundary = detach;
      gap.prefetch_boundary = prefetch;
      gaps.push_back(gap);
    };
    // Released after the last use before each gap, fetched `distance` steps before the next.
    for (const IdleGap& gap : IdleGaps(RequiredSteps(info, lifetime), n)) {
      const Step prefetch = gap.before_step - distance;
      switch (gap.kind) {
        case GapKind::kWholeRun:
          if (!produced && homed) add(0, n - 1, -1, -1);
          break;
        case GapKind::kLeading:
          if (!produced && homed) add(0, prefetch - 1, -1, prefetch);
          break;
        case GapKind::kInner:
          add(gap.after_step + 1, prefetch - 1, gap.after_step + 1, prefetch);
          break;
        case GapKind::kTrailing:
          if (lifetime.baseline_last_step == n - 1 && gap.after_step < n - 1) {
            add(gap.after_step + 1, n - 1, gap.after_step + 1, -1);
          }
          break;
      }
    }
  }
  std::sort(gaps.begin(), gaps.end(), [](const Gap& a, const Gap& b) {
    return std::make_tuple(-a.bytes, a.value, a.cover_first) <
           std::make_tuple(-b.bytes, b.value, b.cover_first);
  });
  return gaps;
}

// Largest gap covering the current peak, until the peak meets the target.
std::vector<uint8_t> Choose(const ContenderContext& context, const std::vector<Gap>& gaps,
                            int64_t target_bytes) {
  const Step n = context.step_count();
  std::vector<uint8_t> chosen(gaps.size(), 0);
  if (n == 0) return chosen;
  StabbingIndex index(n);  // gaps by rank: largest first
  for (size_t r = 0; r < gaps.size(); ++r) {
    index.Add(static_cast<int32_t>(r), gaps[r].cover_first, gaps[r].cover_last);
  }
  std::vector<uint8_t> untaken(gaps.size(), 1);
  RangeMaxTree live(context.lifetimes.timeline.live_bytes_per_step);
  CopyReservations copies(context);
  while (true) {
    const RangeMaxTree::Peak peak = live.MaxAt(0, n - 1);
    if (peak.value <= target_bytes) break;
    const int32_t best = index.PopBest(peak.index, untaken).rank;
    if (best < 0) break;
    untaken[best] = 0;
    if (!copies.Reserve(gaps[best].value)) continue;  // its tier is full
    chosen[best] = 1;
    live.Add(gaps[best].cover_first, gaps[best].cover_last, -gaps[best].bytes);
  }
  return chosen;
}

PlanDraft BuildOpDistance(const ContenderContext& context, const std::vector<Gap>& gaps,
                          int64_t target_bytes, int64_t budget_bytes,
                          const std::vector<uint8_t>& start_off) {
  const Graph& graph = *context.graph;
  const Step n = context.step_count();
  const std::vector<uint8_t> chosen = Choose(context, gaps, target_bytes);
  std::vector<std::vector<ValueId>> stores(static_cast<size_t>(n) + 1);
  std::vector<std::vector<ValueId>> detaches(static_cast<size_t>(n) + 1);
  std::vector<std::vector<ValueId>> prefetches(static_cast<size_t>(n) + 1);
  std::vector<uint8_t> starts_off(graph.values.size(), 0);
  std::vector<uint8_t> stored(graph.values.size(), 0);
  for (size_t r = 0; r < gaps.size(); ++r) {
    if (!chosen[r]) continue;
    const Gap& gap = gaps[r];
    if (gap.needs_store && !stored[gap.value]) {
      stored[gap.value] = 1;
      const NodeId producer = graph.values[gap.value].producer;
      // Attached right after the producer, as the heuristic attaches it.
      const Step at = producer == kNoNode ? 0 : context.lifetimes.step_of_node[producer] + 1;
      stores[at].push_back(gap.value);
    }
    if (gap.detach_boundary < 0) {
      starts_off[gap.value] = 1;
    } else {
      detaches[gap.detach_boundary].push_back(gap.value);
    }
    if (gap.prefetch_boundary >= 0) prefetches[gap.prefetch_boundary].push_back(gap.value);
  }
  PlanBuilder builder(context);
  OpenOwnedAtStart(context, builder,
                   [&](ValueId value) { return !starts_off[value] && !start_off[value]; });
  for (Step k = 0; k < n; ++k) {
    for (auto* list : {&stores[k], &detaches[k], &prefetches[k]}) {
      std::sort(list->begin(), list->end());
    }
    for (ValueId value : stores[k]) builder.Store(value, k);
    for (ValueId value : detaches[k]) builder.Evict(value, k);
    for (ValueId value : prefetches[k]) {
      if (!builder.Resident(value)) builder.Fetch(value, k);
    }
    RunComputeStep(context, builder, k);
  }
  PlanBuilder::FinishOptions options;
  options.budget_bytes = budget_bytes;
  return builder.Draft(options);
}

}  // namespace

EvaluatedPlan OpDistancePlan(const ContenderContext& context, std::optional<int64_t> budget_bytes,
                             const OpDistanceOptions& options) {
  const int64_t budget = context.EffectiveBudget(budget_bytes);
  const std::vector<Gap> gaps = FindGaps(context, std::max(0, options.prefetch_distance_ops));
  return FitToBudget(budget, [&](int64_t target) {
    return SteadyState(context, [&](const std::vector<uint8_t>& start_off) {
      return BuildOpDistance(context, gaps, target, budget, start_off);
    });
  });
}

}  // namespace hyperplan::contenders
