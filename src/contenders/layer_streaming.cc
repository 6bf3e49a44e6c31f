// Layer streaming with lookahead (see layer_streaming.h).
#include "contenders/layer_streaming.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "contenders/copy_reservations.h"
#include "contenders/plan_builder.h"
#include "contenders/residency_rules.h"
#include "contenders/steady_state.h"
#include "hyperplan/layers.h"

namespace hyperplan::contenders {
namespace {

// By layer rank: whether the layer streams when `resident_layers` of them stay on the device:
// the trailing ones, or (interleaved) every rank r with floor((r + 1) S / L) > floor(r S / L)
// for S streamed of L, which spreads the S streamed layers evenly and keeps rank 0 resident.
std::vector<uint8_t> StreamedRanks(int layer_count, int resident_layers, bool interleave) {
  std::vector<uint8_t> streamed(layer_count, 0);
  const int64_t streamed_count = layer_count - resident_layers;
  for (int rank = 0; rank < layer_count; ++rank) {
    streamed[rank] =
        interleave ? (rank + 1) * streamed_count / layer_count > rank * streamed_count / layer_count
                   : rank >= resident_layers;
  }
  return streamed;
}

// By ValueId: the values of the layers `streamed_rank` keeps on the device.
std::vector<uint8_t> ResidentOfRanks(const WeightLayers& layers,
                                     const std::vector<uint8_t>& streamed_rank) {
  std::vector<uint8_t> resident(layers.rank_of_value.size(), 0);
  for (size_t id = 0; id < resident.size(); ++id) {
    const int rank = layers.rank_of_value[id];
    resident[id] = rank >= 0 && !streamed_rank[rank];
  }
  return resident;
}

// The homed values of `layers` in the order they are kept on the device (slow_homes_resident):
// those whose home is behind a staging tier first, then by first use (ties: id).
std::vector<ValueId> SlowHomesFirst(const ContenderContext& context, const WeightLayers& layers) {
  std::vector<ValueId> values;
  for (size_t id = 0; id < layers.rank_of_value.size(); ++id) {
    const auto value = static_cast<ValueId>(id);
    if (layers.rank_of_value[id] >= 0 && context.homes.Homed(value)) values.push_back(value);
  }
  auto key = [&](ValueId value) {
    const bool slow = context.routes.BehindStagingTier(context.homes.OffTier(value));
    return std::make_tuple(!slow, context.lifetimes.lifetimes[value].use_steps.front(), value);
  };
  std::sort(values.begin(), values.end(), [&](ValueId a, ValueId b) { return key(a) < key(b); });
  return values;
}

// `layers` with the state each visit reads (KV cache, optimizer state and other homed values
// that are not weights) joined to that visit, by the visit containing its first use: state
// read by a layer streams with that layer's weights, as FlexGen streams a layer's KV cache.
WeightLayers WithLayerState(const ContenderContext& context, WeightLayers layers) {
  const Graph& graph = *context.graph;
  for (LayerVisit& visit : layers.visits) {
    for (Step k = visit.first; k <= visit.last; ++k) {
      for (ValueId input : graph.nodes[context.order[k]].inputs) {
        const Value& value = graph.values[input];
        if (value.value_class == ValueClass::kWeight || !context.homes.Homed(input) ||
            layers.rank_of_value[input] >= 0 ||
            context.lifetimes.lifetimes[input].use_steps.empty() ||
            context.lifetimes.lifetimes[input].use_steps.front() != k) {
          continue;
        }
        layers.rank_of_value[input] = visit.rank;
        visit.weights.push_back(input);
      }
    }
    std::sort(visit.weights.begin(), visit.weights.end());
  }
  return layers;
}

// How staging hops (NVMe -> DDR) run ahead of their device hop.
struct Staging {
  int lead_visits = 0;   // issued this many visits before the fetch (0: with the fetch)
  bool by_room = false;  // issued as early as the staging tier's free room allows
  bool Any() const { return lead_visits > 0 || by_room; }
};

// A streamed value's window whose fetch is staged: its staging hop may be issued at any
// boundary in [earliest, fetch]; `lead` is where the visit lead puts it; `read` is the first
// compute step that reads the value in the window (it waits for the device hop, so the staged
// copy is surely gone when the step after it starts).
struct StagedWindow {
  ValueId value;
  Step earliest;
  Step lead;
  Step fetch;
  Step read;
};

// The staging tier of `value`'s route to the device: the last tier before the device.
TierId StagingTier(const ContenderContext& context, ValueId value) {
  const Route& route = *context.routes.to_device[context.homes.OffTier(value)];
  return context.profile->links[route[route.size() - 2]].to;
}

// Staging boundaries paced by room, by window (in `windows`' order). In the order the device
// reads them, each staging hop is issued at the earliest boundary where its copy and the
// staged copies not yet surely read fit the staging tier's free room (a copy counts through
// the step that reads it, as the tier's layout sees it: tier_layout.h); never before the
// boundary an earlier window had to wait for (NVMe reads in the order the device needs them),
// nor before `earliest`, nor after the fetch. Where one fetch boundary alone stages more
// than the room (the fetch caps it), the tier's layout may still overflow: the plan then does
// not fit.
// Cost: O(w log w) for w windows.
std::vector<Step> PaceByRoom(const ContenderContext& context, const CopyReservations& copies,
                             const std::vector<StagedWindow>& windows) {
  std::vector<size_t> order(windows.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  auto key = [&](size_t k) { return std::tie(windows[k].read, windows[k].value); };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  std::map<TierId, std::vector<size_t>> by_tier;  // window indices in read order
  for (size_t k : order) by_tier[StagingTier(context, windows[k].value)].push_back(k);
  auto bytes_of = [&](size_t k) { return context.graph->values[windows[k].value].bytes; };
  std::vector<Step> stage(windows.size(), 0);
  for (const auto& tier_windows : by_tier) {
    // Named, not a structured binding: clang 14 (the fuzz build's) cannot capture one in a
    // lambda.
    const TierId tier = tier_windows.first;
    const std::vector<size_t>& list = tier_windows.second;
    const int64_t room_bytes = copies.FreeBytes(tier);
    Step boundary = 0;
    size_t oldest = 0;          // first window of `list` whose copy may still be unread
    int64_t waiting_bytes = 0;  // bytes of list[oldest, i)
    for (size_t i = 0; i < list.size(); ++i) {
      auto drop_read = [&] {
        while (oldest < i && windows[list[oldest]].read < boundary) {
          waiting_bytes -= bytes_of(list[oldest++]);
        }
      };
      drop_read();
      while (oldest < i && waiting_bytes + bytes_of(list[i]) > room_bytes) {
        boundary = windows[list[oldest]].read + 1;
        drop_read();
      }
      const StagedWindow& window = windows[list[i]];
      stage[list[i]] = std::min(window.fetch, std::max(boundary, window.earliest));
      waiting_bytes += bytes_of(list[i]);
    }
  }
  return stage;
}

// A value of a layer streams when it is not kept resident and its home tier has room for it
// (`copies` reserves that room).
std::vector<uint8_t> StreamedValues(const ContenderContext& context, const WeightLayers& layers,
                                    const std::vector<uint8_t>& kept_resident,
                                    CopyReservations& copies) {
  const Graph& graph = *context.graph;
  std::vector<uint8_t> is_streamed(graph.values.size(), 0);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const auto value = static_cast<ValueId>(id);
    is_streamed[id] = layers.rank_of_value[id] >= 0 && !kept_resident[id] &&
                      context.homes.Homed(value) && copies.Reserve(value);
  }
  return is_streamed;
}

// Per boundary, the streamed values staged, fetched and detached there; and the windows of
// staged values, whose staging boundary is placed afterwards (PlaceStaging).
struct StreamingSchedule {
  std::vector<std::vector<ValueId>> stage_at;
  std::vector<std::vector<ValueId>> fetch_at;
  std::vector<std::vector<ValueId>> detach_at;
  std::vector<StagedWindow> staged_windows;
};

// Each streamed weight's windows [fetch boundary, last step of the visit], merged when they
// touch, become one Fetch and one Detach. A value behind a staging tier (NVMe behind DDR) has
// its staging hop issued ahead of the window's fetch (Staging), so the slow hop runs ahead of
// the device hop.
StreamingSchedule ScheduleWindows(const ContenderContext& context, const WeightLayers& layers,
                                  int lookahead, const Staging& staging,
                                  const std::vector<uint8_t>& is_streamed) {
  const size_t value_count = context.graph->values.size();
  const Step step_count = context.step_count();
  StreamingSchedule schedule;
  schedule.stage_at.resize(static_cast<size_t>(step_count) + 1);
  schedule.fetch_at.resize(static_cast<size_t>(step_count) + 1);
  schedule.detach_at.resize(static_cast<size_t>(step_count) + 1);
  std::vector<Step> window_earliest(value_count, 0);
  std::vector<Step> window_read_from(value_count, 0);  // its first visit's start
  std::vector<Step> window_stage(value_count, -1);
  std::vector<Step> window_first(value_count, -1);
  std::vector<Step> window_last(value_count, -1);
  auto staged = [&](ValueId value) {
    return staging.Any() && context.routes.BehindStagingTier(context.homes.OffTier(value));
  };
  auto close_window = [&](ValueId value) {
    if (staged(value)) {
      const std::vector<Step>& uses = context.lifetimes.lifetimes[value].use_steps;
      const auto first_read = std::lower_bound(uses.begin(), uses.end(), window_read_from[value]);
      const Step read = first_read != uses.end() ? *first_read : window_read_from[value];
      schedule.staged_windows.push_back(
          {value, window_earliest[value], window_stage[value], window_first[value], read});
    }
    schedule.fetch_at[window_first[value]].push_back(value);
    if (window_last[value] + 1 < step_count) {
      schedule.detach_at[window_last[value] + 1].push_back(value);
    }
  };
  auto visit_start = [&](int j) { return j >= 0 ? layers.visits[j].first : 0; };
  for (int j = 0; j < static_cast<int>(layers.visits.size()); ++j) {
    const LayerVisit& visit = layers.visits[j];
    const Step fetch = visit_start(j - lookahead);
    for (ValueId value : visit.weights) {
      if (!is_streamed[value]) continue;
      if (window_first[value] >= 0 && fetch <= window_last[value] + 1) {
        window_last[value] = std::max(window_last[value], visit.last);
        continue;
      }
      if (window_first[value] >= 0) close_window(value);
      // Not before the previous window's end: one staged copy per value at a time.
      window_earliest[value] = window_last[value] >= 0 ? window_last[value] + 1 : 0;
      window_stage[value] =
          std::max(visit_start(j - lookahead - staging.lead_visits), window_earliest[value]);
      window_first[value] = fetch;
      window_read_from[value] = visit.first;
      window_last[value] = visit.last;
    }
  }
  for (size_t id = 0; id < value_count; ++id) {
    if (window_first[id] >= 0) close_window(static_cast<ValueId>(id));
  }
  return schedule;
}

// Each staged window's staging hop at its lead boundary, or paced by the staging tier's room.
void PlaceStaging(const ContenderContext& context, const CopyReservations& copies,
                  const Staging& staging, StreamingSchedule& schedule) {
  const std::vector<StagedWindow>& windows = schedule.staged_windows;
  const std::vector<Step> paced =
      staging.by_room ? PaceByRoom(context, copies, windows) : std::vector<Step>();
  for (size_t k = 0; k < windows.size(); ++k) {
    schedule.stage_at[staging.by_room ? paced[k] : windows[k].lead].push_back(windows[k].value);
  }
}

PlanDraft BuildStreaming(const ContenderContext& context, const WeightLayers& layers, int lookahead,
                         const Staging& staging, const std::vector<uint8_t>& kept_resident,
                         std::optional<int64_t> budget_bytes,
                         const std::vector<uint8_t>& start_off) {
  CopyReservations copies(context);
  const std::vector<uint8_t> is_streamed = StreamedValues(context, layers, kept_resident, copies);
  auto streamed = [&](ValueId value) { return is_streamed[value] != 0; };
  StreamingSchedule schedule = ScheduleWindows(context, layers, lookahead, staging, is_streamed);
  PlaceStaging(context, copies, staging, schedule);
  for (auto& list : schedule.fetch_at) std::stable_sort(list.begin(), list.end());
  for (auto& list : schedule.stage_at) std::stable_sort(list.begin(), list.end());

  PlanBuilder builder(context);
  OpenOwnedAtStart(context, builder,
                   [&](ValueId value) { return !streamed(value) && !start_off[value]; });
  for (Step k = 0; k < context.step_count(); ++k) {
    for (ValueId value : schedule.detach_at[k]) builder.Evict(value, k);
    for (ValueId value : schedule.stage_at[k]) builder.Stage(value, k);
    for (ValueId value : schedule.fetch_at[k]) builder.Fetch(value, k);
    RunComputeStep(context, builder, k);
  }
  PlanBuilder::FinishOptions options;
  options.budget_bytes = budget_bytes;
  return builder.Draft(options);
}

// The home-aware search stops when what it has left undecided holds under 1/256 of the budget.
constexpr int64_t kSearchPrecisionDivisor = 256;

// What stays on the device, counted in units: leading (or interleaved) layers, or, home-aware,
// values with their slow homes first (SlowHomesFirst).
class ResidentUnits {
 public:
  ResidentUnits(const ContenderContext& context, const WeightLayers& layers,
                const LayerStreamingOptions& options)
      : context_(context),
        layers_(layers),
        options_(options),
        slow_first_(options.slow_homes_resident ? SlowHomesFirst(context, layers)
                                                : std::vector<ValueId>()),
        slow_first_end_bytes_(slow_first_.size() + 1, 0) {
    for (size_t k = 0; k < slow_first_.size(); ++k) {
      slow_first_end_bytes_[k + 1] =
          slow_first_end_bytes_[k] + context.graph->values[slow_first_[k]].bytes;
    }
  }

  int count() const {
    return options_.slow_homes_resident ? static_cast<int>(slow_first_.size()) : layers_.count();
  }

  // By ValueId: the values `units` keep on the device.
  std::vector<uint8_t> Values(int units) const {
    if (!options_.slow_homes_resident) {
      return ResidentOfRanks(layers_, StreamedRanks(layers_.count(), units, options_.interleave));
    }
    std::vector<uint8_t> resident(layers_.rank_of_value.size(), 0);
    for (int k = 0; k < units; ++k) resident[slow_first_[k]] = 1;
    return resident;
  }

  // The bytes of home-aware units [lo, hi) (0 for layers).
  int64_t BytesBetween(int lo, int hi) const {
    return options_.slow_homes_resident ? slow_first_end_bytes_[hi] - slow_first_end_bytes_[lo] : 0;
  }

  // The bytes `units` keep on the device: all of them are there when the iteration ends, so
  // no plan keeping them has a smaller arena. Cost: O(values) for layers, O(1) home-aware.
  int64_t KeptBytes(int units) const {
    if (options_.slow_homes_resident) return slow_first_end_bytes_[units];
    const std::vector<uint8_t> resident = Values(units);
    int64_t bytes = 0;
    for (size_t id = 0; id < resident.size(); ++id) {
      if (resident[id]) bytes += context_.graph->values[id].bytes;
    }
    return bytes;
  }

  // The layers `units` keep whole (every homed value resident).
  int WholeLayers(int units) const {
    if (!options_.slow_homes_resident) return units;
    const std::vector<uint8_t> resident = Values(units);
    std::vector<uint8_t> streams(layers_.count(), 0);
    for (size_t id = 0; id < resident.size(); ++id) {
      const int rank = layers_.rank_of_value[id];
      if (rank >= 0 && !resident[id] && context_.homes.Homed(static_cast<ValueId>(id))) {
        streams[rank] = 1;
      }
    }
    return static_cast<int>(std::count(streams.begin(), streams.end(), 0));
  }

 private:
  const ContenderContext& context_;
  const WeightLayers& layers_;
  const LayerStreamingOptions& options_;
  std::vector<ValueId> slow_first_;
  std::vector<int64_t> slow_first_end_bytes_;  // prefix sums of their bytes
};

// The most units whose plan's arena fits (monotone in the units: each one adds device bytes),
// with that plan; 0 and its plan when none does. That plan may still overflow a host tier
// (it then does not fit): keeping more on the device only lowers what stages through host
// tiers, so no other count would fit either. Counts whose kept bytes alone exceed
// `arena_limit_bytes` are ruled out before any is built (on the DeepSeek-V3-sized decode,
// three of 61 layers fit 80 GB). The search also ends once the units left undecided hold
// under `precision_bytes` (0: it resolves to the last unit).
// Two searches, cheap first: over drafts (no layout, no replay) for the most units whose live
// peak fits, since an arena is never below its live peak; then over finished plans, from that
// count down, for the most whose arena fits, which is usually that count itself. Laying out
// every probe instead was half of `hyperplan plan`'s CPU time on the DeepSeek-V3-sized decode
// (29 layouts of 250k steps, 0.2 s each, 11 of them over the budget by their live bytes).
template <typename Draft>
std::pair<int, EvaluatedPlan> MostUnitsThatFit(const ContenderContext& context,
                                               const ResidentUnits& units,
                                               int64_t arena_limit_bytes, int64_t precision_bytes,
                                               const Draft& draft) {
  // Fewest units whose kept bytes exceed the limit (none fits from there on).
  int over = units.count() + 1;
  for (int lo = 0, hi = units.count() + 1; lo < hi;) {
    const int mid = lo + (hi - lo) / 2;
    if (units.KeptBytes(mid) > arena_limit_bytes) {
      hi = over = mid;
    } else {
      lo = mid + 1;
    }
  }
  // Binary search for the most units in [lo, hi) that pass `probe`, given that lo passes and
  // hi fails, to the precision; `probe` builds a count's candidate, says whether it passes
  // and keeps the last one that did.
  auto search = [&](int lo, int hi, const auto& probe) {
    while (hi - lo > 1 && units.BytesBetween(lo, hi) >= precision_bytes) {
      const int mid = lo + (hi - lo) / 2;
      (probe(mid) ? lo : hi) = mid;
    }
    return lo;
  };
  auto live_fits = [&](const PlanDraft& candidate) {
    return DraftLivePeakBytes(candidate) <= arena_limit_bytes;
  };
  auto arena_fits = [&](const EvaluatedPlan& candidate) {
    return candidate.plan.layout.arena_bytes <= arena_limit_bytes;
  };
  const int top = std::max(0, over - 1);  // the most units worth a draft
  std::optional<PlanDraft> live_draft = draft(top);
  int live_most = top;  // the most units whose draft's live peak fits
  if (!live_fits(*live_draft)) {
    // Zero units is taken to fit until the search ends there: drafted only then.
    live_draft.reset();
    live_most = search(0, top, [&](int units_kept) {
      PlanDraft candidate = draft(units_kept);
      if (!live_fits(candidate)) return false;
      live_draft = std::move(candidate);
      return true;
    });
    if (live_most == 0) live_draft = draft(0);
  }
  EvaluatedPlan best = CompletePlan(context, std::move(*live_draft));
  if (arena_fits(best) || live_most == 0) return {live_most, std::move(best)};
  EvaluatedPlan none = CompletePlan(context, draft(0));
  if (!arena_fits(none)) return {0, std::move(none)};
  best = std::move(none);
  const int most = search(0, live_most, [&](int units_kept) {
    EvaluatedPlan candidate = CompletePlan(context, draft(units_kept));
    if (!arena_fits(candidate)) return false;
    best = std::move(candidate);
    return true;
  });
  return {most, std::move(best)};
}

// Streams `layers` (see LayerStreamingPlan).
// `known_units`, when given, is this path's count from an earlier search with the same device
// residency (used when set, set when found).
LayerStreamingResult StreamLayers(const ContenderContext& context, const WeightLayers& layers,
                                  std::optional<int64_t> budget_bytes,
                                  const LayerStreamingOptions& options,
                                  std::optional<int>* known_units = nullptr) {
  const int lookahead = std::max(0, options.lookahead_layers);
  const std::optional<int64_t> budget =
      budget_bytes ? std::optional<int64_t>(context.EffectiveBudget(budget_bytes)) : std::nullopt;
  const ResidentUnits units(context, layers, options);
  const Staging staging{std::max(0, options.stage_lead_layers), options.stage_by_room};
  auto draft = [&](int unit_count) {
    const std::vector<uint8_t> resident = units.Values(unit_count);
    return SteadyStateDraft(context, [&](const std::vector<uint8_t>& start_off) {
      return BuildStreaming(context, layers, lookahead, staging, resident, budget, start_off);
    });
  };
  auto build = [&](int unit_count) { return CompletePlan(context, draft(unit_count)); };
  int kept = 0;
  EvaluatedPlan plan;
  if (options.resident_layers || !budget) {
    kept = options.slow_homes_resident
               ? 0
               : std::clamp(options.resident_layers.value_or(0), 0, layers.count());
    plan = build(kept);
  } else if (known_units != nullptr && known_units->has_value()) {
    kept = **known_units;
    plan = build(kept);
  } else {
    // Home-aware, a value left off by the search crosses NVMe once an iteration: resolving the
    // last 1/256 of the budget (a DeepSeek-V3-sized expert or two) is not worth its builds.
    // Layers are resolved to the last one.
    const int64_t precision_bytes =
        options.slow_homes_resident ? *budget / kSearchPrecisionDivisor : 0;
    const int64_t capacity = context.device_capacity_bytes();
    const int64_t arena_limit = capacity > 0 ? std::min(*budget, capacity) : *budget;
    std::tie(kept, plan) = MostUnitsThatFit(context, units, arena_limit, precision_bytes, draft);
    if (known_units != nullptr) *known_units = kept;
  }
  LayerStreamingResult result;
  static_cast<EvaluatedPlan&>(result) = std::move(plan);
  result.layer_count = layers.count();
  result.resident_layers = units.WholeLayers(kept);
  return result;
}

}  // namespace

LayerStreamingResult LayerStreamingPlan(const ContenderContext& context,
                                        std::optional<int64_t> budget_bytes,
                                        const LayerStreamingOptions& options,
                                        ResidentSearch* search) {
  WeightLayers layers = FindWeightLayers(*context.graph, context.order);
  std::optional<int>* weights_only_units = search ? &search->weights_only_units : nullptr;
  if (!options.stream_state) {
    return StreamLayers(context, layers, budget_bytes, options, weights_only_units);
  }
  if (!budget_bytes) return StreamLayers(context, WithLayerState(context, layers), {}, options);
  // With a budget, state moves only when the weights alone leave the arena over it (a plan
  // that failed on a host tier's capacity gains nothing from moving more through it).
  LayerStreamingResult weights_only =
      StreamLayers(context, layers, budget_bytes, options, weights_only_units);
  const bool arena_over =
      weights_only.plan.layout.arena_bytes > context.EffectiveBudget(budget_bytes);
  if (weights_only.evaluation.fits || !arena_over) return weights_only;
  LayerStreamingResult with_state =
      StreamLayers(context, WithLayerState(context, std::move(layers)), budget_bytes, options,
                   search ? &search->with_state_units : nullptr);
  const bool nearer = with_state.plan.layout.arena_bytes < weights_only.plan.layout.arena_bytes;
  return with_state.evaluation.fits || nearer ? with_state : weights_only;
}

}  // namespace hyperplan::contenders
