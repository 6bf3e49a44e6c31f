// Where layers, other weights and the KV cache spend an iteration (see layer_summary.h).
#include "hyperplan/plan/layer_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <vector>

#include "hyperplan/layers.h"
#include "hyperplan/plan/expert_residency.h"
#include "hyperplan/plan/host_placement.h"

namespace hyperplan {
namespace {

// By ValueId: the tier a value is streamed from to the device, or kNoTier when no Prefetch
// brings it to the device (resident).
std::vector<TierId> StreamedFrom(const Graph& graph, const HardwareProfile& profile,
                                 const Plan& plan) {
  std::vector<TierId> home(graph.values.size(), kNoTier);
  for (const TierCopy& copy : plan.tier_copies) {
    if (copy.opened_by < 0 && copy.value >= 0 && home[copy.value] == kNoTier) {
      home[copy.value] = copy.tier;
    }
  }
  std::vector<TierId> from(graph.values.size(), kNoTier);
  for (const PlanStep& step : plan.steps) {
    if (step.kind != StepKind::kPrefetch || step.dst_tier != profile.device_tier ||
        step.value < 0 || from[step.value] != kNoTier) {
      continue;
    }
    from[step.value] = home[step.value] != kNoTier ? home[step.value] : step.src_tier;
  }
  return from;
}

// "resident", "streamed from ddr", "partly streamed from ddr and nvme", by bytes: a group
// counts as streamed when under 1% of its bytes stay (the norm vectors a policy leaves on the
// device do not make a 1.7 GB layer "partly" streamed).
std::string GroupState(const Graph& graph, const HardwareProfile& profile,
                       const std::vector<TierId>& from, const std::vector<ValueId>& values) {
  std::set<TierId> tiers;
  int64_t total_bytes = 0;
  int64_t streamed_bytes = 0;
  for (ValueId value : values) {
    total_bytes += graph.values[value].bytes;
    if (from[value] == kNoTier) continue;
    streamed_bytes += graph.values[value].bytes;
    tiers.insert(from[value]);
  }
  if (values.empty()) return "on the host";  // every weight of the group is read there
  if (tiers.empty()) return "resident";
  std::vector<std::string> names;
  for (TierId tier : tiers) names.push_back(profile.tiers[tier].name);
  const bool whole =
      static_cast<__int128>(streamed_bytes) * 100 >= static_cast<__int128>(total_bytes) * 99;
  return fmt::format("{}streamed from {}", whole ? "" : "partly ", fmt::join(names, " and "));
}

bool IsWeight(const Value& value) {
  return value.producer == kNoNode && value.value_class == ValueClass::kWeight &&
         value.size_known && value.bytes > 0;
}

// "80 layers: 50 streamed from ddr, 30 streamed from ddr and nvme": how many layers are in
// each state, states in order of first appearance (for states that alternate too often to
// list as runs, as a spill spread over the iteration makes them).
std::string CountLayerStates(const std::vector<std::string>& state_of_rank) {
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& state : state_of_rank) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& count) { return count.first == state; });
    if (it == counts.end()) it = counts.insert(counts.end(), {state, 0});
    ++it->second;
  }
  std::vector<std::string> parts;
  for (const auto& [state, count] : counts) parts.push_back(fmt::format("{} {}", count, state));
  return fmt::format("{} layers: {}", state_of_rank.size(), fmt::join(parts, ", "));
}

// "layers 0-37 resident, 38-79 streamed from ddr": runs of consecutive layer numbers (in
// order of first use) in the same state; past kMaxLayerRuns runs, the count in each state.
std::string DescribeLayers(const Graph& graph, const HardwareProfile& profile,
                           const WeightLayers& layers, const std::vector<TierId>& from,
                           const std::vector<bool>& host_only) {
  constexpr size_t kMaxLayerRuns = 8;
  std::vector<std::vector<ValueId>> weights_of_rank(layers.count());
  for (size_t id = 0; id < layers.rank_of_value.size(); ++id) {
    if (layers.rank_of_value[id] >= 0 && !host_only[id]) {
      weights_of_rank[layers.rank_of_value[id]].push_back(static_cast<ValueId>(id));
    }
  }
  std::vector<std::string> state_of_rank;
  for (int rank = 0; rank < layers.count(); ++rank) {
    state_of_rank.push_back(GroupState(graph, profile, from, weights_of_rank[rank]));
  }
  std::vector<std::string> runs;
  int first = 0;
  for (int rank = 0; rank < layers.count(); ++rank) {
    const std::string& state = state_of_rank[rank];
    const bool run_ends = rank + 1 == layers.count() ||
                          layers.number_of_rank[rank + 1] != layers.number_of_rank[rank] + 1 ||
                          state_of_rank[rank + 1] != state;
    if (!run_ends) continue;
    const int low = layers.number_of_rank[first];
    const int high = layers.number_of_rank[rank];
    runs.push_back(low == high ? fmt::format("{} {}", low, state)
                               : fmt::format("{}-{} {}", low, high, state));
    first = rank + 1;
  }
  if (runs.size() > kMaxLayerRuns) return CountLayerStates(state_of_rank);
  return fmt::format("{} {}", layers.count() == 1 ? "layer" : "layers", fmt::join(runs, ", "));
}

// "lm_head" from "lm_head.weight", "embed_tokens" from "model.embed_tokens.weight"; a name
// longer than kShortNameChars (an exporter's constant named after its contents) is cut to
// its start and "...", so one weight does not take over the line.
std::string ShortName(std::string name) {
  constexpr size_t kShortNameChars = 40;
  constexpr std::string_view kPrefix = "model.";
  constexpr std::string_view kSuffix = ".weight";
  if (name.size() > kPrefix.size() && name.compare(0, kPrefix.size(), kPrefix) == 0) {
    name.erase(0, kPrefix.size());
  }
  if (name.size() > kSuffix.size() &&
      name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0) {
    name.resize(name.size() - kSuffix.size());
  }
  if (name.size() > kShortNameChars) name = name.substr(0, kShortNameChars - 3) + "...";
  return name;
}

// "embed_tokens, lm_head and 3 more resident; norm streamed from ddr": the weights outside
// every layer, grouped by state, largest first.
std::string DescribeOtherWeights(const Graph& graph, const HardwareProfile& profile,
                                 const std::vector<ValueId>& others,
                                 const std::vector<TierId>& from) {
  constexpr size_t kNamesShown = 3;
  std::vector<std::pair<std::string, std::vector<ValueId>>> groups;  // state -> values
  for (ValueId value : others) {
    const std::string state = GroupState(graph, profile, from, {value});
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& group) { return group.first == state; });
    if (it == groups.end()) it = groups.insert(groups.end(), {state, {}});
    it->second.push_back(value);
  }
  auto bytes_of = [&](const std::vector<ValueId>& values) {
    int64_t bytes = 0;
    for (ValueId value : values) bytes += graph.values[value].bytes;
    return bytes;
  };
  std::stable_sort(groups.begin(), groups.end(), [&](const auto& a, const auto& b) {
    return bytes_of(a.second) > bytes_of(b.second);
  });
  std::vector<std::string> parts;
  for (auto& [state, values] : groups) {
    std::sort(values.begin(), values.end(), [&](ValueId a, ValueId b) {
      return std::make_tuple(-graph.values[a].bytes, graph.values[a].name) <
             std::make_tuple(-graph.values[b].bytes, graph.values[b].name);
    });
    std::vector<std::string> names;
    for (size_t i = 0; i < values.size() && i < kNamesShown; ++i) {
      names.push_back(ShortName(graph.values[values[i]].name));
    }
    std::string list = fmt::format("{}", fmt::join(names, ", "));
    if (values.size() > kNamesShown) {
      list += fmt::format(" and {} more", values.size() - kNamesShown);
    } else if (names.size() > 1) {
      const size_t last_comma = list.rfind(", ");
      list.replace(last_comma, 2, " and ");
    }
    parts.push_back(list + " " + state);
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

// "weights (no layer names): 12 resident, 30 streamed from ddr".
std::string DescribeUnnamedWeights(const HardwareProfile& profile,
                                   const std::vector<ValueId>& weights,
                                   const std::vector<TierId>& from) {
  size_t resident = 0;
  std::vector<std::pair<TierId, size_t>> streamed;  // tier -> count, ascending tier
  for (ValueId value : weights) {
    if (from[value] == kNoTier) {
      ++resident;
      continue;
    }
    auto it = std::find_if(streamed.begin(), streamed.end(),
                           [&](const auto& entry) { return entry.first == from[value]; });
    if (it == streamed.end()) it = streamed.insert(streamed.end(), {from[value], 0});
    ++it->second;
  }
  std::sort(streamed.begin(), streamed.end());
  std::vector<std::string> parts;
  if (resident > 0) parts.push_back(fmt::format("{} resident", resident));
  for (const auto& [tier, count] : streamed) {
    parts.push_back(fmt::format("{} streamed from {}", count, profile.tiers[tier].name));
  }
  return fmt::format("weights (no layer names): {}", fmt::join(parts, ", "));
}

// "kv cache resident", "kv cache partly streamed from ddr (40 of 160 tensors)"; "" without one.
std::string DescribeKvCache(const Graph& graph, const HardwareProfile& profile,
                            const std::vector<TierId>& from) {
  std::vector<ValueId> caches;
  size_t streamed = 0;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (value.value_class != ValueClass::kKvCache || value.producer != kNoNode ||
        !value.size_known || value.bytes <= 0) {
      continue;
    }
    caches.push_back(static_cast<ValueId>(id));
    streamed += from[id] != kNoTier;
  }
  if (caches.empty()) return "";
  std::string text = "kv cache " + GroupState(graph, profile, from, caches);
  if (streamed > 0 && streamed < caches.size()) {
    text += fmt::format(" ({} of {} tensors)", streamed, caches.size());
  }
  return text;
}

}  // namespace

std::string DescribeLayerResidency(const Graph& graph, const HardwareProfile& profile,
                                   const Plan& plan) {
  const std::vector<TierId> from = StreamedFrom(graph, profile, plan);
  const WeightLayers layers = FindWeightLayers(graph, plan.order);
  // Weights only host steps read stay in their home copy on the host tier: their parts are
  // named apart ("layers 0-31 MLP on the host"), not counted resident.
  const std::vector<bool> host_only = HostOnlyValues(graph, plan);
  std::vector<bool> read(graph.values.size(), false);
  for (NodeId node : plan.order) {
    for (ValueId input : graph.nodes[node].inputs) read[input] = true;
  }
  std::vector<ValueId> other_weights;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    if (IsWeight(graph.values[id]) && read[id] && layers.rank_of_value[id] < 0 && !host_only[id]) {
      other_weights.push_back(static_cast<ValueId>(id));
    }
  }
  std::vector<std::string> parts;
  if (layers.count() > 0) {
    parts.push_back(DescribeLayers(graph, profile, layers, from, host_only));
    if (!other_weights.empty()) {
      parts.push_back(DescribeOtherWeights(graph, profile, other_weights, from));
    }
  } else if (!other_weights.empty()) {
    parts.push_back(DescribeUnnamedWeights(profile, other_weights, from));
  } else if (!std::any_of(host_only.begin(), host_only.end(), [](bool only) { return only; })) {
    parts.push_back("no weights");
  }
  if (std::string host = DescribeHostPlacement(FindHostPlacement(graph, plan)); !host.empty()) {
    parts.push_back(std::move(host));
  }
  if (std::string kv = DescribeKvCache(graph, profile, from); !kv.empty()) parts.push_back(kv);
  // After the KV cache, which competes with them for the room (expert_residency.h).
  const std::string experts = DescribeResidentExperts(FindResidentExperts(graph, profile, plan));
  if (!experts.empty()) parts.push_back(experts);
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace hyperplan
