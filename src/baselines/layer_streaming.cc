// Layer streaming with lookahead (see layer_streaming.h).
#include "baselines/layer_streaming.h"

#include <algorithm>
#include <map>
#include <vector>

#include "baselines/copy_reservations.h"
#include "baselines/layer_rule.h"
#include "baselines/plan_builder.h"
#include "baselines/steady_state.h"
#include "baselines/residency_rules.h"

namespace hyperplan::baselines {
namespace {

struct Visit {
  int rank = 0;  // the layer's rank by first use
  Step first = 0;
  Step last = 0;
  std::vector<ValueId> weights;  // read during the visit, ascending ids
};

struct Layers {
  std::vector<int> rank_of_value;  // by ValueId; -1: no layer
  int count = 0;
  std::vector<Visit> visits;
};

Layers FindLayers(const BaselineContext& context) {
  const Graph& graph = *context.graph;
  Layers layers;
  layers.rank_of_value.assign(graph.values.size(), -1);
  std::map<int, Step> first_use;  // layer number -> first step reading it
  std::vector<int> number_of_value(graph.values.size(), -1);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (value.producer != kNoNode || value.value_class != ValueClass::kWeight ||
        !value.size_known || value.bytes <= 0) {
      continue;
    }
    const int number = LayerOfWeight(value.name);
    const auto& uses = context.lifetimes.lifetimes[id].use_steps;
    if (number < 0 || uses.empty()) continue;
    number_of_value[id] = number;
    auto [it, inserted] = first_use.emplace(number, uses.front());
    if (!inserted) it->second = std::min(it->second, uses.front());
  }
  std::vector<std::pair<Step, int>> by_first_use;
  for (const auto& [number, step] : first_use) by_first_use.push_back({step, number});
  std::sort(by_first_use.begin(), by_first_use.end());
  std::map<int, int> rank_of_number;
  for (size_t r = 0; r < by_first_use.size(); ++r) {
    rank_of_number[by_first_use[r].second] = static_cast<int>(r);
  }
  layers.count = static_cast<int>(by_first_use.size());
  for (size_t id = 0; id < graph.values.size(); ++id) {
    if (number_of_value[id] >= 0) layers.rank_of_value[id] = rank_of_number[number_of_value[id]];
  }
  for (Step k = 0; k < context.step_count(); ++k) {
    for (ValueId input : graph.nodes[context.order[k]].inputs) {
      const int rank = layers.rank_of_value[input];
      if (rank < 0) continue;
      if (layers.visits.empty() || layers.visits.back().rank != rank) {
        layers.visits.push_back({rank, k, k, {}});
      }
      Visit& visit = layers.visits.back();
      visit.last = k;
      visit.weights.push_back(input);
    }
  }
  for (Visit& visit : layers.visits) {
    std::sort(visit.weights.begin(), visit.weights.end());
    visit.weights.erase(std::unique(visit.weights.begin(), visit.weights.end()),
                        visit.weights.end());
  }
  return layers;
}

Plan BuildStreaming(const BaselineContext& context, const Layers& layers, int lookahead,
                    int resident_layers, std::optional<int64_t> budget_bytes,
                    const std::vector<uint8_t>& start_off) {
  const Graph& graph = *context.graph;
  const Step step_count = context.step_count();
  // A weight streams when its layer is not kept resident and its home tier has room for it.
  CopyReservations copies(context);
  std::vector<uint8_t> is_streamed(graph.values.size(), 0);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const auto value = static_cast<ValueId>(id);
    is_streamed[id] = layers.rank_of_value[id] >= resident_layers && context.homes.Homed(value) &&
                      copies.Reserve(value);
  }
  auto streamed = [&](ValueId value) { return is_streamed[value] != 0; };
  // Each streamed weight's windows [fetch boundary, last step of the visit], merged when
  // they touch, become one Fetch and one Detach.
  std::vector<std::vector<ValueId>> fetch_at(static_cast<size_t>(step_count) + 1);
  std::vector<std::vector<ValueId>> detach_at(static_cast<size_t>(step_count) + 1);
  std::vector<Step> window_first(graph.values.size(), -1);
  std::vector<Step> window_last(graph.values.size(), -1);
  auto close_window = [&](ValueId value) {
    fetch_at[window_first[value]].push_back(value);
    if (window_last[value] + 1 < step_count) detach_at[window_last[value] + 1].push_back(value);
  };
  const auto visit_count = static_cast<int>(layers.visits.size());
  for (int j = 0; j < visit_count; ++j) {
    const Visit& visit = layers.visits[j];
    const Step fetch = j >= lookahead ? layers.visits[j - lookahead].first : 0;
    for (ValueId value : visit.weights) {
      if (!streamed(value)) continue;
      if (window_first[value] >= 0 && fetch <= window_last[value] + 1) {
        window_last[value] = std::max(window_last[value], visit.last);
        continue;
      }
      if (window_first[value] >= 0) close_window(value);
      window_first[value] = fetch;
      window_last[value] = visit.last;
    }
  }
  for (size_t id = 0; id < graph.values.size(); ++id) {
    if (window_first[id] >= 0) close_window(static_cast<ValueId>(id));
  }
  for (auto& list : fetch_at) std::stable_sort(list.begin(), list.end());

  PlanBuilder builder(context);
  OpenOwnedAtStart(context, builder,
                   [&](ValueId value) { return !streamed(value) && !start_off[value]; });
  for (Step k = 0; k < step_count; ++k) {
    for (ValueId value : detach_at[k]) builder.Evict(value, k);
    for (ValueId value : fetch_at[k]) builder.Fetch(value, k);
    FetchMissingInputs(context, builder, k);
    builder.Compute(k);
    ReleaseAfterLastUse(context, builder, k);
  }
  PlanBuilder::FinishOptions options;
  options.budget_bytes = budget_bytes;
  return builder.Finish(options);
}

}  // namespace

LayerStreamingResult LayerStreamingPlan(const BaselineContext& context,
                                        std::optional<int64_t> budget_bytes,
                                        const LayerStreamingOptions& options) {
  const Layers layers = FindLayers(context);
  const int lookahead = std::max(0, options.lookahead_layers);
  const std::optional<int64_t> budget =
      budget_bytes ? std::optional<int64_t>(context.EffectiveBudget(budget_bytes)) : std::nullopt;
  LayerStreamingResult result;
  result.layer_count = layers.count;
  auto build = [&](int resident) {
    return SteadyState(context, [&](const std::vector<uint8_t>& start_off) {
      return BuildStreaming(context, layers, lookahead, resident, budget, start_off);
    });
  };
  if (options.resident_layers || !budget) {
    result.resident_layers = std::clamp(options.resident_layers.value_or(0), 0, layers.count);
    result.plan = build(result.resident_layers);
    return result;
  }
  // The most leading layers that still fit: fits(count) is monotone in the count.
  Plan all = build(layers.count);
  if (all.fits) {
    result.resident_layers = layers.count;
    result.plan = std::move(all);
    return result;
  }
  Plan best = build(0);
  int lo = 0;
  int hi = layers.count;  // fits(lo) (when best fits), !fits(hi)
  if (best.fits) {
    while (hi - lo > 1) {
      const int mid = lo + (hi - lo) / 2;
      Plan plan = build(mid);
      if (plan.fits) {
        lo = mid;
        best = std::move(plan);
      } else {
        hi = mid;
      }
    }
  }
  result.resident_layers = lo;
  result.plan = std::move(best);
  return result;
}

}  // namespace hyperplan::baselines
