// The search over host placements (see host_placement.h).
#include "planner/host_placement.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "hyperplan/layers.h"
#include "hyperplan/planner/host_parts.h"
#include "planner/expert_placement.h"
#include "planner/host_crossings.h"
#include "planner/modes.h"

namespace hyperplan::planner {
namespace {

// Fractions of the missing bytes the host takes over, in quarters.
constexpr int kQuartersTried[] = {4, 2, 1, 3, 5};
constexpr int kQuartersTriedLarge = 2;  // beyond kSecondChoiceLimit steps: the first two
constexpr int kRefineRounds = 3;        // then halving around the best, up to 6 more plans
// Interleaved, these many parts fewer than the best prefix: the link then carries what the
// host no longer frees. Llama-3-70B int4 decode on rtx-4090 (best prefix 34 parts, gap 7): 1
// fewer 236 ms, 2 fewer 230, 3 fewer 226, 4 fewer 237 (stalls 19.6 ms: the link saturates).
constexpr size_t kFewerPartsTried[] = {2, 3};
// Then these many halvings of the interleaved count, two plans each: on Llama-3-70B decode 32k
// on gh200 (best prefix 25, 115.1 ms) the interleaved counts 11-23 ran 110.3, 108.9, 103.8,
// 101.0, 99.1, 98.0, 95.5, 94.3, 96.5, 99.6, 102.7, 105.8 and 108.9 ms; from the balanced count
// (15) the two rounds try 18 and 20, then 16 and 19.
constexpr int kInterleavedRounds = 2;

// An MLP or a MoE layer's routed experts: what interleaving keeps on the device every few parts.
bool StreamsBesideHost(const HostPart& part) {
  return part.kind == HostPartKind::kMlp || part.kind == HostPartKind::kRoutedExperts;
}

bool Worthwhile(const Problem& problem, const PlanOptions& options, const PlanResult& device) {
  const HardwareProfile& profile = *problem.profile;
  if (!options.offload || !options.host_compute || !profile.host_compute.present() ||
      !problem.units.node_unit.empty() || !HostLinkedBothWays(profile)) {
    return false;
  }
  return !device.evaluation.fits || device.evaluation.timeline.stall_ns > 0;
}

// Whether moving even the cheapest part could pay: the device's plan does not fit, or it
// waits longer than that part adds on the host (in a chain of layers the host's time adds to
// the iteration; only waits can absorb it).
bool CouldPay(const PlanResult& device, const std::vector<HostPart>& parts) {
  if (!device.evaluation.fits) return true;
  int64_t cheapest_ns = INT64_MAX;
  for (const HostPart& part : parts) {
    cheapest_ns = std::min(cheapest_ns, part.host_ns - part.device_ns);
  }
  return device.evaluation.timeline.stall_ns > cheapest_ns;
}

// The device's room: the budget or its capacity, the lesser; 0: unbounded.
int64_t DeviceLimit(const Problem& problem, const PlanOptions& options) {
  const int64_t capacity = problem.profile->tiers[problem.profile->device_tier].capacity_bytes;
  int64_t limit = capacity > 0 ? capacity : 0;
  if (options.budget_bytes)
    limit = limit > 0 ? std::min(limit, *options.budget_bytes) : *options.budget_bytes;
  return std::max<int64_t>(limit, 0);
}

// Bytes the device lacks at its no-offload peak: live peak less the budget or capacity.
int64_t MissingBytes(const Problem& problem, const PlanOptions& options) {
  const int64_t limit = DeviceLimit(problem, options);
  if (limit <= 0) return 0;
  return problem.lifetimes.timeline.peak_bytes - limit;
}

// Least host time added per device byte freed first; ties (a stack of identical layers) by
// step, so the host takes the first layers and the device the rest. Spread over the iteration
// instead (spread.h, so that streamed layers alternate with host ones and fetch behind them),
// Llama-3-70B int4 decode on rtx-4090 ran slower at every count tried (31 parts: 274.7 ->
// 308.3 ms; best 242 -> 286 ms); why was not traced (the step-order plan's link idles 43% of
// the step, so what is missing is fetching earlier, behind the host's compute).
void RankParts(std::vector<HostPart>& parts) {
  auto added_ns = [](const HostPart& part) { return part.host_ns - part.device_ns; };
  std::stable_sort(parts.begin(), parts.end(), [&](const HostPart& a, const HostPart& b) {
    const __int128 lhs = static_cast<__int128>(added_ns(a)) * b.device_bytes();
    const __int128 rhs = static_cast<__int128>(added_ns(b)) * a.device_bytes();
    return lhs < rhs;
  });
}

// The kinds that update persistent state in place on the host (host_parts.h): the interleaved
// ranking was built and measured without them, and with them first in the ranking Llama-3-70B
// int4 decode on rtx-4090 ran 292.7 ms against 226 ms without (their prefixes hold attention
// parts that free few bytes per host millisecond next to MLPs but end the link's streaming
// windows), so they are searched after, only to beat what the search without them found.
bool UpdatesState(const HostPart& part) {
  return part.kind == HostPartKind::kAttention || part.kind == HostPartKind::kAttentionCore ||
         part.kind == HostPartKind::kOptimizer;
}

// llama.cpp -ngl's order (fit's dense rule): the embedding, then layer by layer its MLP (or
// MoE block) before its attention, over the layers where both may run on the host, so a prefix
// is whole layers from the first plus one layer's FFN (fit's partial layer).
std::vector<HostPart> WholeLayers(const std::vector<HostPart>& parts) {
  std::set<int> with_attention;
  for (const HostPart& part : parts) {
    if (part.kind == HostPartKind::kAttention) with_attention.insert(part.layer);
  }
  auto ffn = [](const HostPart& part) {
    return part.kind == HostPartKind::kMlp || part.kind == HostPartKind::kRoutedExperts;
  };
  std::vector<HostPart> ranked;
  for (const HostPart& part : parts) {
    const bool in_layer = (ffn(part) || part.kind == HostPartKind::kAttention) &&
                          with_attention.count(part.layer) > 0;
    if (in_layer || part.kind == HostPartKind::kEmbedding) ranked.push_back(part);
  }
  auto key = [&](const HostPart& part) {
    return std::pair(part.kind == HostPartKind::kEmbedding ? -1 : part.layer, ffn(part) ? 0 : 1);
  };
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](const HostPart& a, const HostPart& b) { return key(a) < key(b); });
  return ranked;
}

// llama.cpp -ot's order (--n-cpu-moe's): the embedding, then layer by layer its FFN, a MoE
// block's rest (router, shared experts) before its routed experts; no attention. Ranked by host
// time per byte, a router frees too few bytes to come early, yet at the margin the routers of
// many layers make room for one more layer's experts on the device: Qwen3-235B int4 decode on
// rtx-4090-xeon-2s, embedding and 80 MoE layers with their routers fit 24.0 GB (22.9 ms) where
// 80 layers' experts alone miss by 50 MB and the ranked search took 81 (23.0 ms).
std::vector<HostPart> FfnLayers(const std::vector<HostPart>& parts) {
  std::vector<HostPart> ranked;
  for (const HostPart& part : parts) {
    if (part.kind == HostPartKind::kEmbedding || part.kind == HostPartKind::kMlp ||
        part.kind == HostPartKind::kRoutedExperts) {
      ranked.push_back(part);
    }
  }
  auto key = [](const HostPart& part) {
    return std::pair(part.kind == HostPartKind::kEmbedding ? -1 : part.layer,
                     part.kind == HostPartKind::kRoutedExperts ? 1 : 0);
  };
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](const HostPart& a, const HostPart& b) { return key(a) < key(b); });
  return ranked;
}

// The fewest leading parts of `ranked` whose placement's no-offload peak is within
// `limit_bytes` (the peak falls as parts leave; bisection, no planning); past the end when
// none is.
size_t FewestFitting(const Problem& problem, const std::vector<HostPart>& ranked,
                     int64_t limit_bytes) {
  auto fits = [&](size_t count) {
    const std::vector<HostPart> placed(ranked.begin(), ranked.begin() + count);
    return PlaceUnits(problem, NodeUnitsOf(*problem.graph, placed)).lifetimes.timeline.peak_bytes <=
           limit_bytes;
  };
  if (ranked.empty() || !fits(ranked.size())) return ranked.size() + 1;
  size_t misses = 0;
  size_t fitting = ranked.size();
  while (fitting - misses > 1) {
    const size_t mid = misses + (fitting - misses) / 2;
    (fits(mid) ? fitting : misses) = mid;
  }
  return fits(0) ? 0 : fitting;
}

// How many leading parts cover `quarters`/4 of `missing_bytes`.
size_t PrefixCovering(const std::vector<HostPart>& parts, int64_t missing_bytes, int quarters) {
  const __int128 want = static_cast<__int128>(missing_bytes) * quarters / 4;
  __int128 covered = 0;
  size_t count = 0;
  while (count < parts.size() && covered < want) covered += parts[count++].device_bytes();
  return count;
}

// Weight bytes of each decoder layer (layers.h), by layer.
std::map<int, int64_t> LayerWeightBytes(const Graph& graph) {
  std::map<int, int64_t> bytes;
  for (const Value& value : graph.values) {
    if (value.producer != kNoNode || value.value_class != ValueClass::kWeight) continue;
    const int layer = LayerOfWeight(value.name);
    if (layer >= 0) bytes[layer] += value.bytes;
  }
  return bytes;
}

int64_t MovedBytes(const PlanResult& result) {
  return result.evaluation.timeline.total_bytes_moved();
}

// What the search compares plans by: fits first, then the shorter iteration, then fewer bytes
// moved.
struct PlanScore {
  bool fits = false;
  int64_t makespan_ns = 0;
  int64_t moved_bytes = 0;

  bool Beats(const PlanScore& other) const {
    if (fits != other.fits) return fits;
    if (makespan_ns != other.makespan_ns) return makespan_ns < other.makespan_ns;
    return moved_bytes < other.moved_bytes;
  }
};

PlanScore ScoreOf(const PlanResult& result) {
  return {result.evaluation.fits, result.evaluation.timeline.makespan_ns, MovedBytes(result)};
}

// The placements planned so far, over every ranking searched: the three rankings share many
// prefixes (the parts that update state rank last, so the search over every part retries the
// first search's placements), and the same placement plans the same plan (planning is a
// function of the problem). Such a plan lost to the best so far, or is it, and the best only
// improves under Beats (a strict order), so planning it again could not change the result:
// on the DeepSeek-V3-sized QMoE decode on h100-sxm, the search over every part asked again
// for 12 and 6 parts, 2 of the 13 placements tried.
class PlannedPlacements {
 public:
  // Whether (`node_unit`, `reserve_crossings`) is new (and now recorded).
  bool Add(const std::vector<ComputeUnit>& node_unit, bool reserve_crossings) {
    return planned_.emplace(node_unit, reserve_crossings).second;
  }

 private:
  std::set<std::pair<std::vector<ComputeUnit>, bool>> planned_;
};

// The plans tried, by how many leading parts run on the host (0: the device's plan).
class PrefixSearch {
 public:
  PrefixSearch(const Problem& problem, std::vector<HostPart> parts, PlanResult device,
               const PlanProblem& plan, PlannedPlacements& planned)
      : problem_(problem),
        parts_(std::move(parts)),
        plan_(plan),
        planned_(planned),
        best_(std::move(device)) {
    tried_.push_back(0);
  }

  void Try(size_t count) {
    if (count == 0 || count > parts_.size() ||
        std::find(tried_.begin(), tried_.end(), count) != tried_.end()) {
      return;
    }
    tried_.push_back(count);
    const PlanScore before = ScoreOf(best_);
    const std::optional<PlanScore> score =
        TryPlacement(std::vector<HostPart>(parts_.begin(), parts_.begin() + count), false);
    if (score && score->Beats(before)) best_count_ = count;
  }

  // Fewer parts than the best prefix, interleaved (see PlaceOnHostWhereFaster), with the
  // crossings' link time reserved (Problem::reserve_crossings): kFewerPartsTried below the best
  // prefix, then kInterleavedRounds halvings between the best interleaved count and its
  // nearest tried neighbours (taken at the round's start; the second midpoint from the best as
  // the first left it, as Refine does), the balanced count (BalancedCount of `ranked`) standing
  // for the lower end until a count below the best is tried.
  void TryInterleaved(int gap, int64_t missing_bytes) {
    if (best_count_ == 0 || gap < 2) return;
    const std::vector<HostPart> ranked = Interleaved(parts_, gap);
    InterleavedCounts counts;
    for (size_t fewer : kFewerPartsTried) {
      if (fewer < best_count_) TryInterleavedCount(ranked, best_count_ - fewer, counts);
    }
    if (counts.tried.empty()) return;
    const size_t balanced = BalancedCount(problem_, ranked, missing_bytes);
    for (int round = 0; round < kInterleavedRounds; ++round) {
      size_t below = std::min(balanced, counts.best);
      size_t above = best_count_;
      for (size_t count : counts.tried) {
        if (count < counts.best) below = std::max(below, count);
        if (count > counts.best) above = std::min(above, count);
      }
      TryInterleavedCount(ranked, (below + counts.best) / 2, counts);
      TryInterleavedCount(ranked, (counts.best + above) / 2, counts);
    }
  }

  // Halves the distance from the best count to its nearest tried neighbours on either side.
  void Refine() {
    size_t below = 0;
    size_t above = parts_.size() + 1;
    for (size_t count : tried_) {
      if (count < best_count_) below = std::max(below, count);
      if (count > best_count_) above = std::min(above, count);
    }
    Try((below + best_count_) / 2);
    if (above <= parts_.size()) Try((best_count_ + above) / 2);
  }

  PlanResult TakeBest() { return std::move(best_); }

 private:
  // The interleaved counts tried, and the best of them (by Beats) with its plan's score.
  struct InterleavedCounts {
    std::vector<size_t> tried;
    size_t best = 0;
    PlanScore best_score;
  };

  // Plans the leading `count` parts of `ranked` with the crossings reserved, once per count.
  void TryInterleavedCount(const std::vector<HostPart>& ranked, size_t count,
                           InterleavedCounts& counts) {
    if (count == 0 || count > ranked.size() ||
        std::find(counts.tried.begin(), counts.tried.end(), count) != counts.tried.end()) {
      return;
    }
    counts.tried.push_back(count);
    const std::optional<PlanScore> score =
        TryPlacement(std::vector<HostPart>(ranked.begin(), ranked.begin() + count), true);
    if (score && (counts.best == 0 || score->Beats(counts.best_score))) {
      counts.best = count;
      counts.best_score = *score;
    }
  }

  // Plans `placed` on the host and keeps it when it beats the best so far; its score (none
  // when the placement was planned before: it cannot beat the best).
  std::optional<PlanScore> TryPlacement(const std::vector<HostPart>& placed,
                                        bool reserve_crossings) {
    std::vector<ComputeUnit> node_unit = NodeUnitsOf(*problem_.graph, placed);
    if (!planned_.Add(node_unit, reserve_crossings)) return std::nullopt;
    Problem problem = PlaceUnits(problem_, std::move(node_unit));
    problem.reserve_crossings = reserve_crossings;
    PlanResult candidate = plan_(problem);
    const PlanScore score = ScoreOf(candidate);
    if (score.Beats(ScoreOf(best_))) best_ = std::move(candidate);
    return score;
  }

  const Problem& problem_;
  const std::vector<HostPart> parts_;
  const PlanProblem& plan_;
  PlannedPlacements& planned_;
  PlanResult best_;
  size_t best_count_ = 0;
  std::vector<size_t> tried_;
};

}  // namespace

int InterleaveGap(const Problem& problem, const std::vector<HostPart>& parts) {
  const HardwareProfile& profile = *problem.profile;
  const int32_t link = DirectLink(profile, profile.host_compute.memory_tier, profile.device_tier);
  if (link < 0 || profile.links[link].bandwidth_bytes_per_s <= 0) return 0;
  const long double ns_per_byte = 1e9L / profile.links[link].bandwidth_bytes_per_s;
  const std::map<int, int64_t> layer_bytes = LayerWeightBytes(*problem.graph);
  long double need_ns = 0;
  long double spare_ns = 0;
  for (const HostPart& part : parts) {
    const auto layer = layer_bytes.find(part.layer);
    if (!StreamsBesideHost(part) || layer == layer_bytes.end()) continue;
    // A MoE layer's experts kept on the device are fetched after route (expert_placement.h).
    need_ns += StreamedPartBytes(*problem.graph, part.nodes, part.weight_bytes) * ns_per_byte;
    spare_ns += part.host_ns - (layer->second - part.weight_bytes) * ns_per_byte;
  }
  if (need_ns <= 0 || spare_ns <= 0) return 0;
  return 1 + static_cast<int>(std::ceil(need_ns / spare_ns));
}

size_t BalancedCount(const Problem& problem, const std::vector<HostPart>& ranked,
                     int64_t missing_bytes) {
  const HardwareProfile& profile = *problem.profile;
  const int32_t link = DirectLink(profile, profile.host_compute.memory_tier, profile.device_tier);
  if (link < 0 || profile.links[link].bandwidth_bytes_per_s <= 0) return 0;
  const long double ns_per_byte = 1e9L / profile.links[link].bandwidth_bytes_per_s;
  long double chain_ns = 0;
  for (NodeId node : problem.order) chain_ns += problem.node_time_ns[node];
  long double lacking_bytes = static_cast<long double>(missing_bytes);
  size_t count = 0;
  while (count < ranked.size() && chain_ns < lacking_bytes * ns_per_byte) {
    chain_ns += ranked[count].host_ns - ranked[count].device_ns;
    lacking_bytes -= ranked[count].device_bytes();
    ++count;
  }
  return count;
}

std::vector<HostPart> Interleaved(const std::vector<HostPart>& ranked, int gap) {
  std::vector<HostPart> kept;
  std::vector<HostPart> moved;
  int mlp = 0;
  for (const HostPart& part : ranked) {
    const bool keep_on_device = StreamsBesideHost(part) && ++mlp % gap == 0;
    (keep_on_device ? moved : kept).push_back(part);
  }
  kept.insert(kept.end(), moved.begin(), moved.end());
  return kept;
}

namespace {

// One search over the prefixes of `ranked` (least first) that must beat `best`: the counts
// covering `quarters` of the missing bytes, `refine_rounds` halvings, interleaved when `gap`.
struct SearchShape {
  std::vector<int> quarters;
  int refine_rounds = 0;
  int gap = 0;
};

PlanResult SearchPrefixes(const Problem& problem, std::vector<HostPart> ranked, PlanResult best,
                          const PlanProblem& plan, int64_t missing_bytes, const SearchShape& shape,
                          PlannedPlacements& planned) {
  std::vector<size_t> counts;
  for (int quarters : shape.quarters) {
    counts.push_back(PrefixCovering(ranked, missing_bytes, quarters));
  }
  PrefixSearch search(problem, std::move(ranked), std::move(best), plan, planned);
  for (size_t count : counts) search.Try(count);
  for (int round = 0; round < shape.refine_rounds; ++round) search.Refine();
  search.TryInterleaved(shape.gap, missing_bytes);
  return search.TakeBest();
}

// The shape of the search by least host time per byte: every quarter, the halvings and the
// interleaving; on large graphs the first two quarters only.
SearchShape RankedShape(const Problem& problem, const std::vector<HostPart>& ranked) {
  SearchShape shape;
  const bool large = problem.step_count() > kSecondChoiceLimit;
  const int tries = large ? kQuartersTriedLarge : static_cast<int>(std::size(kQuartersTried));
  shape.quarters.assign(std::begin(kQuartersTried), std::begin(kQuartersTried) + tries);
  shape.refine_rounds = large ? 0 : kRefineRounds;
  shape.gap = large ? 0 : InterleaveGap(problem, ranked);
  return shape;
}

// The field's placements whole, each one system's rule over every part it moves: FlexGen's
// CPU attention (every layer's attention core, HostPartOptions::attention_cores), which the
// rankings above never meet (their parts hold a layer's whole attention, projections
// included, and need its weights homed on the host's tier). Planned once, and it replaces
// `best` only when it beats it, so it never makes the plan worse. On the DeepSeek-V3-sized
// decode on gh200 the weights spill to NVMe, so no ranked part is eligible and the search
// planned nothing, while every core (the KV caches live in DDR) ran 58.2 s against the
// device's 58.3 s. Gated like the rankings (CouldPay): only where the best plan does not fit
// or stalls longer than the cheapest core adds on the host. Cost: FindHostParts once more and,
// where attention cores exist and could pay, one planning.
PlanResult WithFieldPlacements(const Problem& problem, PlanResult best, const PlanProblem& plan,
                               PlannedPlacements& planned) {
  HostPartOptions cores_only;
  cores_only.attention_cores = true;
  std::vector<HostPart> cores = FindHostParts(problem, cores_only);
  std::erase_if(cores, [](const HostPart& part) {
    return part.kind != HostPartKind::kAttentionCore || part.device_bytes() <= 0;
  });
  if (cores.empty() || !CouldPay(best, cores)) return best;
  const size_t count = cores.size();
  PrefixSearch every_core(problem, std::move(cores), std::move(best), plan, planned);
  every_core.Try(count);
  return every_core.TakeBest();
}

}  // namespace

namespace {

// The searches over the ranked parts (see PlaceOnHostWhereFaster): `device` or a better plan.
PlanResult SearchRankedParts(const Problem& problem, const PlanOptions& options, PlanResult device,
                             const PlanProblem& plan, int64_t missing_bytes,
                             PlannedPlacements& planned) {
  std::vector<HostPart> parts = FindHostParts(problem);
  std::erase_if(parts, [](const HostPart& part) { return part.device_bytes() <= 0; });
  if (parts.empty() || !CouldPay(device, parts)) return device;
  RankParts(parts);
  std::vector<HostPart> stateless;
  std::copy_if(parts.begin(), parts.end(), std::back_inserter(stateless),
               [](const HostPart& part) { return !UpdatesState(part); });
  PlanResult best = std::move(device);
  std::vector<HostPart> ffn_layers = FfnLayers(stateless);
  if (!stateless.empty()) {
    const SearchShape shape = RankedShape(problem, stateless);
    best = SearchPrefixes(problem, std::move(stateless), std::move(best), plan, missing_bytes,
                          shape, planned);
  }
  // Then the fewest FFNs in -ot's order that fit, kept only when strictly better.
  const size_t fewest_ffns = FewestFitting(problem, ffn_layers, DeviceLimit(problem, options));
  PrefixSearch ffn_search(problem, std::move(ffn_layers), std::move(best), plan, planned);
  ffn_search.Try(fewest_ffns);
  best = ffn_search.TakeBest();
  if (std::none_of(parts.begin(), parts.end(), UpdatesState)) return best;
  std::vector<HostPart> layers = WholeLayers(parts);
  const SearchShape shape = RankedShape(problem, parts);
  best = SearchPrefixes(problem, std::move(parts), std::move(best), plan, missing_bytes, shape,
                        planned);
  const size_t fitting = FewestFitting(problem, layers, DeviceLimit(problem, options));
  PrefixSearch whole_layers(problem, std::move(layers), std::move(best), plan, planned);
  whole_layers.Try(fitting);
  return whole_layers.TakeBest();
}

}  // namespace

PlanResult PlaceOnHostWhereFaster(const Problem& problem, const PlanOptions& options,
                                  PlanResult device, const PlanProblem& plan) {
  if (!Worthwhile(problem, options, device)) return device;
  const int64_t missing_bytes = MissingBytes(problem, options);
  if (missing_bytes <= 0) return device;
  PlannedPlacements planned;
  PlanResult best =
      SearchRankedParts(problem, options, std::move(device), plan, missing_bytes, planned);
  return WithFieldPlacements(problem, std::move(best), plan, planned);
}

}  // namespace hyperplan::planner
