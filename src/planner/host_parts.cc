// Layer parts the host may run (see host_parts.h).
#include "hyperplan/planner/host_parts.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "hyperplan/host_cost.h"
#include "hyperplan/layers.h"

namespace hyperplan {
namespace {

bool Contains(std::string_view name, std::string_view token) {
  return name.find(token) != std::string_view::npos;
}

using PartKey = std::pair<HostPartKind, int>;

// What a weight says about the node reading it: the part it belongs to; none (a layer's
// attention or norm weight: that node is in no part); or neutral (a constant of no layer, e.g.
// a Reshape's target shape or the rotary tables, which any part may read).
struct WeightRole {
  std::optional<PartKey> part;
  bool neutral = false;
};

WeightRole RoleOfWeight(std::string_view name) {
  const int layer = LayerOfWeight(name);
  if (layer >= 0 && (Contains(name, ".mlp.") || Contains(name, ".feed_forward.") ||
                     Contains(name, ".ffn") || Contains(name, ".block_sparse_moe."))) {
    return {PartKey(HostPartKind::kMlp, layer), false};
  }
  if (layer >= 0) return {};
  if (Contains(name, "lm_head")) return {PartKey(HostPartKind::kLmHead, -1), false};
  if (Contains(name, "embed_tokens") || Contains(name, "wte") || Contains(name, "tok_embeddings")) {
    return {PartKey(HostPartKind::kEmbedding, -1), false};
  }
  return {std::nullopt, true};
}

bool IsWeight(const Value& value) {
  return value.producer == kNoNode && value.value_class == ValueClass::kWeight;
}

// Whether the host can run `node`: its weights are homed on the host tier and not written,
// and it neither reads nor writes other persistent state.
bool HostCanRun(const Problem& problem, const Node& node) {
  const Graph& graph = *problem.graph;
  const TierId host_tier = problem.profile->host_compute.memory_tier;
  auto persistent = [&](ValueId id) {
    return !problem.persistent.empty() && problem.persistent[id];
  };
  for (ValueId input : node.inputs) {
    if (input == kNoValue) continue;
    const Value& value = graph.values[input];
    if (IsWeight(value)) {
      if (problem.homes.home_tier[input] != host_tier || value.written_by != kNoNode) return false;
    } else if (persistent(input)) {
      return false;
    }
  }
  for (ValueId output : node.outputs) {
    if (output != kNoValue && persistent(output)) return false;
  }
  return true;
}

// The part each step's node reads weights of: kind and layer, or none; a node reading two
// parts' weights (or a part's and a non-neutral other weight) belongs to none.
struct StepParts {
  std::map<PartKey, std::pair<Step, Step>> mlp_spans;
  std::vector<std::pair<HostPartKind, Step>> single_nodes;  // LM head and embedding readers
  std::vector<uint8_t> reads_other_weight;                  // by step
};

StepParts ClassifySteps(const Problem& problem) {
  const Graph& graph = *problem.graph;
  StepParts parts;
  parts.reads_other_weight.assign(problem.order.size(), 0);
  for (Step k = 0; k < problem.step_count(); ++k) {
    std::set<PartKey> keys;
    for (ValueId input : graph.nodes[problem.order[k]].inputs) {
      if (input == kNoValue || !IsWeight(graph.values[input])) continue;
      const WeightRole role = RoleOfWeight(graph.values[input].name);
      if (role.part) {
        keys.insert(*role.part);
      } else if (!role.neutral) {
        parts.reads_other_weight[k] = 1;
      }
    }
    if (keys.size() != 1 || parts.reads_other_weight[k]) continue;
    const auto key = *keys.begin();
    if (key.first != HostPartKind::kMlp) {
      parts.single_nodes.push_back({key.first, k});
      continue;
    }
    auto [it, added] = parts.mlp_spans.try_emplace(key, k, k);
    if (!added) it->second.second = k;
  }
  return parts;
}

std::string PartName(HostPartKind kind, int layer) {
  if (kind == HostPartKind::kMlp) return "layer " + std::to_string(layer) + " MLP";
  if (kind == HostPartKind::kRoutedExperts) {
    return "layer " + std::to_string(layer) + " routed experts";
  }
  return kind == HostPartKind::kLmHead ? "LM head" : "token embedding";
}

// `nodes` (in step order) as a part, costed.
HostPart CostedPart(const Problem& problem, HostPartKind kind, int layer,
                    std::vector<NodeId> nodes) {
  const Graph& graph = *problem.graph;
  HostPart part;
  part.kind = kind;
  part.layer = layer;
  part.first_step = problem.lifetimes.step_of_node[nodes.front()];
  part.last_step = problem.lifetimes.step_of_node[nodes.back()];
  part.name = PartName(kind, layer);
  std::set<ValueId> weights;
  for (NodeId id : nodes) {
    const Node& node = graph.nodes[id];
    part.device_ns += problem.node_time_ns[id];
    part.host_ns += EstimateHostNodeCost(graph, node, *problem.profile).time_ns;
    for (ValueId input : node.inputs) {
      if (input != kNoValue && IsWeight(graph.values[input])) weights.insert(input);
    }
  }
  part.nodes = std::move(nodes);
  for (ValueId weight : weights) part.weight_bytes += graph.values[weight].bytes;
  return part;
}

// The part over steps [first, last], costed; none when a node in it cannot run on the host or
// reads a weight of another part.
std::optional<HostPart> MakePart(const Problem& problem, const StepParts& steps, HostPartKind kind,
                                 int layer, Step first, Step last) {
  std::vector<NodeId> nodes;
  for (Step k = first; k <= last; ++k) {
    const NodeId id = problem.order[k];
    if (steps.reads_other_weight[k] || !HostCanRun(problem, problem.graph->nodes[id])) {
      return std::nullopt;
    }
    nodes.push_back(id);
  }
  return CostedPart(problem, kind, layer, std::move(nodes));
}

bool IsSharedExpertWeight(std::string_view name) { return Contains(name, "shared_expert"); }

bool IsRoutedExpertWeight(std::string_view name) {
  return Contains(name, ".experts.") && !IsSharedExpertWeight(name);
}

// Whether a node is fed by a routed expert (its weight, or a value such a node produced) and
// by a shared one; `routed` and `shared` gain its outputs accordingly.
bool FedByRoutedOnly(const Graph& graph, const Node& node, std::set<ValueId>& routed,
                     std::set<ValueId>& shared) {
  bool by_routed = false;
  bool by_shared = false;
  for (ValueId input : node.inputs) {
    if (input == kNoValue) continue;
    const Value& value = graph.values[input];
    const bool weight = IsWeight(value);
    by_routed = by_routed || (weight ? IsRoutedExpertWeight(value.name) : routed.count(input) > 0);
    by_shared = by_shared || (weight ? IsSharedExpertWeight(value.name) : shared.count(input) > 0);
  }
  for (ValueId output : node.outputs) {
    if (output == kNoValue) continue;
    if (by_routed) routed.insert(output);
    if (by_shared) shared.insert(output);
  }
  return by_routed && !by_shared;
}

// An MLP part as its routed experts and the rest of the block (see host_parts.h), or as is
// when it has no routed experts (a dense MLP) or nothing else. The part's nodes are in step
// order, so one pass sees every producer before its consumers.
void AddSplitAtExperts(const Problem& problem, HostPart part, std::vector<HostPart>& parts) {
  std::set<ValueId> routed;
  std::set<ValueId> shared;
  std::vector<NodeId> experts;
  std::vector<NodeId> rest;
  for (NodeId id : part.nodes) {
    (FedByRoutedOnly(*problem.graph, problem.graph->nodes[id], routed, shared) ? experts : rest)
        .push_back(id);
  }
  if (experts.empty() || rest.empty()) {
    parts.push_back(std::move(part));
    return;
  }
  parts.push_back(
      CostedPart(problem, HostPartKind::kRoutedExperts, part.layer, std::move(experts)));
  parts.push_back(CostedPart(problem, HostPartKind::kMlp, part.layer, std::move(rest)));
}

// Whether the host tier holds its home copies: where they overflow it (homes.h leaves what fits
// nowhere in its preferred tier), a host part's weights would be read from copies that do not fit.
bool HomesFit(const Problem& problem) {
  const TierId host_tier = problem.profile->host_compute.memory_tier;
  const int64_t capacity = problem.profile->tiers[host_tier].capacity_bytes;
  return capacity <= 0 || problem.homes.homed_bytes_per_tier[host_tier] <= capacity;
}

}  // namespace

std::string_view HostPartKindName(HostPartKind kind) {
  switch (kind) {
    case HostPartKind::kMlp:
      return "MLP";
    case HostPartKind::kLmHead:
      return "LM head";
    case HostPartKind::kEmbedding:
      return "token embedding";
    case HostPartKind::kAttention:
      return "attention";
    case HostPartKind::kAttentionCore:
      return "attention core";
    case HostPartKind::kOptimizer:
      return "optimizer";
    case HostPartKind::kRoutedExperts:
      return "routed experts";
  }
  return "?";
}

std::vector<HostPart> FindHostParts(const Problem& problem, const HostPartOptions& /*options*/) {
  std::vector<HostPart> parts;
  if (!problem.profile->host_compute.present() || !HomesFit(problem)) return parts;
  const StepParts steps = ClassifySteps(problem);
  for (const auto& [key, span] : steps.mlp_spans) {
    if (auto part = MakePart(problem, steps, key.first, key.second, span.first, span.second)) {
      AddSplitAtExperts(problem, std::move(*part), parts);
    }
  }
  for (const auto& [kind, step] : steps.single_nodes) {
    if (auto part = MakePart(problem, steps, kind, -1, step, step))
      parts.push_back(std::move(*part));
  }
  std::sort(parts.begin(), parts.end(),
            [](const HostPart& a, const HostPart& b) { return a.first_step < b.first_step; });
  return parts;
}

std::vector<ComputeUnit> NodeUnitsOf(const Graph& graph, const std::vector<HostPart>& parts) {
  std::vector<ComputeUnit> units(graph.nodes.size(), ComputeUnit::kDevice);
  for (const HostPart& part : parts) {
    for (NodeId node : part.nodes) units[node] = ComputeUnit::kHost;
  }
  return units;
}

}  // namespace hyperplan
