// Layer parts the host may run (see host_parts.h).
#include "hyperplan/planner/host_parts.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "hyperplan/attention_pattern.h"
#include "hyperplan/host_cost.h"
#include "hyperplan/layers.h"
#include "planner/embedding_update.h"
#include "planner/optimizer_nodes.h"

namespace hyperplan {
namespace {

bool Contains(std::string_view name, std::string_view token) {
  return name.find(token) != std::string_view::npos;
}

using PartKey = std::pair<HostPartKind, int>;

// What a weight says about the node reading it (WeightPartOfName, layers.h): the part it
// belongs to; none (a layer's norm weight: that node is in no part); or neutral (a constant
// of no layer, e.g. a Reshape's target shape or the rotary tables, which any part may read).
struct WeightRole {
  std::optional<PartKey> part;
  bool neutral = false;
};

WeightRole RoleOfWeight(std::string_view name) {
  const int layer = LayerOfWeight(name);
  switch (WeightPartOfName(name)) {
    case WeightPart::kLayerMlp:
      return {PartKey(HostPartKind::kMlp, layer), false};
    case WeightPart::kLayerAttention:
      return {PartKey(HostPartKind::kAttention, layer), false};
    case WeightPart::kLayerOther:
      return {};
    case WeightPart::kLmHead:
      return {PartKey(HostPartKind::kLmHead, -1), false};
    case WeightPart::kEmbedding:
      return {PartKey(HostPartKind::kEmbedding, -1), false};
    case WeightPart::kNone:
      break;
  }
  return {std::nullopt, true};
}

bool IsWeight(const Value& value) {
  return value.producer == kNoNode && value.value_class == ValueClass::kWeight;
}

// Persistent values a part may read or update in place beyond read-only weights: a layer's KV
// cache, or its weights and optimizer state.
using StateSet = std::set<ValueId>;

// Whether the host can run `node` in a part allowed `state`: every weight it reads is homed on
// the host tier, and every other persistent value it reads or updates, and every weight it
// updates, is in `state` and homed there.
bool HostCanRun(const Problem& problem, const Node& node, const StateSet& state) {
  const Graph& graph = *problem.graph;
  const TierId host_tier = problem.profile->host_compute.memory_tier;
  auto persistent = [&](ValueId id) {
    return !problem.persistent.empty() && problem.persistent[id];
  };
  for (ValueId input : node.inputs) {
    if (input == kNoValue) continue;
    const Value& value = graph.values[input];
    const bool plain_weight = IsWeight(value) && value.written_by == kNoNode;
    if (!plain_weight && !persistent(input)) continue;
    if (problem.homes.home_tier[input] != host_tier) return false;
    if (!plain_weight && !state.count(input)) return false;
  }
  for (ValueId output : node.outputs) {
    if (output != kNoValue && persistent(output)) return false;
  }
  return true;
}

// The part each step's node reads weights of: kind and layer, or none; a node reading two
// parts' weights (or a part's and a non-neutral other weight), or updating a layer's weights
// (an optimizer node), belongs to none and ends every span over it.
struct StepParts {
  std::map<PartKey, std::pair<Step, Step>> spans;           // MLPs and attentions
  std::vector<std::pair<HostPartKind, Step>> single_nodes;  // LM head and embedding readers
  std::vector<uint8_t> reads_other_weight;                  // by step
  std::vector<std::optional<PartKey>> key_of_step;          // the one part's weights it reads
};

// The LM head and the embedding by the node: a tied matrix read by a Gather is the embedding,
// by a MatMul the LM head.
HostPartKind SingleNodeKind(HostPartKind named, const Node& node) {
  if (named != HostPartKind::kLmHead && named != HostPartKind::kEmbedding) return named;
  return node.op_type == "Gather" ? HostPartKind::kEmbedding : HostPartKind::kLmHead;
}

StepParts ClassifySteps(const Problem& problem, const std::vector<std::optional<int>>& updates) {
  const Graph& graph = *problem.graph;
  StepParts parts;
  parts.reads_other_weight.assign(problem.order.size(), 0);
  parts.key_of_step.assign(problem.order.size(), std::nullopt);
  for (Step k = 0; k < problem.step_count(); ++k) {
    const NodeId id = problem.order[k];
    if (updates[id]) {
      parts.reads_other_weight[k] = 1;
      continue;
    }
    std::set<PartKey> keys;
    for (ValueId input : graph.nodes[id].inputs) {
      if (input == kNoValue || !IsWeight(graph.values[input])) continue;
      const WeightRole role = RoleOfWeight(graph.values[input].name);
      if (role.part) {
        keys.insert(*role.part);
      } else if (!role.neutral) {
        parts.reads_other_weight[k] = 1;
      }
    }
    if (keys.size() > 1) parts.reads_other_weight[k] = 1;
    if (keys.size() != 1 || parts.reads_other_weight[k]) continue;
    const PartKey key = *keys.begin();
    parts.key_of_step[k] = key;
    if (key.second < 0) {
      parts.single_nodes.push_back({SingleNodeKind(key.first, graph.nodes[id]), k});
      continue;
    }
    auto [it, added] = parts.spans.try_emplace(key, k, k);
    if (!added) it->second.second = k;
  }
  return parts;
}

std::string PartName(HostPartKind kind, int layer) {
  const std::string kind_name(HostPartKindName(kind));
  if (kind == HostPartKind::kOptimizer && layer < 0) return "optimizer outside layers";
  if (layer < 0) return kind_name;
  return "layer " + std::to_string(layer) + " " + kind_name;
}

// The part running `nodes` (in step order), costed; none when a node in it cannot run on the
// host with `state`.
std::optional<HostPart> MakePart(const Problem& problem, HostPartKind kind, int layer,
                                 const std::vector<NodeId>& nodes, const StateSet& state) {
  const Graph& graph = *problem.graph;
  const Graph& model = problem.model != nullptr ? *problem.model : graph;
  HostPart part;
  part.kind = kind;
  part.layer = layer;
  part.name = PartName(kind, layer);
  part.first_step = problem.lifetimes.step_of_node[nodes.front()];
  part.last_step = problem.lifetimes.step_of_node[nodes.back()];
  std::set<ValueId> weights;
  std::set<ValueId> states;
  for (NodeId id : nodes) {
    const Node& node = graph.nodes[id];
    if (!HostCanRun(problem, node, state)) return std::nullopt;
    part.nodes.push_back(id);
    part.device_ns += problem.node_time_ns[id];
    part.host_ns += EstimateHostLoopNodeCost(model, graph, id, *problem.profile).time_ns;
    for (ValueId input : node.inputs) {
      if (input == kNoValue) continue;
      const Value& value = graph.values[input];
      if (IsWeight(value) && value.written_by == kNoNode) weights.insert(input);
      if (state.count(input) && !IsWeight(value)) states.insert(input);
    }
  }
  for (ValueId weight : weights) part.weight_bytes += graph.values[weight].bytes;
  for (ValueId value : states) part.state_bytes += graph.values[value].bytes;
  return part;
}

// The nodes of steps [first, last]; none when one of them reads a weight of another part than
// `key` (none: of any part) or of no part, or updates a layer's weights.
std::optional<std::vector<NodeId>> SpanNodes(const Problem& problem, const StepParts& steps,
                                             std::optional<PartKey> key, Step first, Step last) {
  std::vector<NodeId> nodes;
  for (Step k = first; k <= last; ++k) {
    if (steps.reads_other_weight[k]) return std::nullopt;
    if (steps.key_of_step[k] && steps.key_of_step[k] != key) return std::nullopt;
    nodes.push_back(problem.order[k]);
  }
  return nodes;
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
  // Every node already ran on the host in `part`, so both halves are parts.
  parts.push_back(*MakePart(problem, HostPartKind::kRoutedExperts, part.layer, experts, {}));
  parts.push_back(*MakePart(problem, HostPartKind::kMlp, part.layer, rest, {}));
}

// A layer's KV cache: the persistent values other than weights its attention span's nodes read
// or update, and the steps of every node that reads or updates them; none when such a node
// lies outside the span (the device would read the cache the host appends to).
struct LayerCache {
  StateSet values;
  Step first = 0;
  Step last = -1;
};

std::optional<LayerCache> CacheOfSpan(const Problem& problem, Step first, Step last) {
  const Graph& graph = *problem.graph;
  LayerCache cache;
  if (problem.persistent.empty()) return cache;
  for (Step k = first; k <= last; ++k) {
    for (ValueId input : graph.nodes[problem.order[k]].inputs) {
      if (input != kNoValue && problem.persistent[input] && !IsWeight(graph.values[input])) {
        cache.values.insert(input);
      }
    }
  }
  for (ValueId value : cache.values) {
    std::vector<NodeId> touching = graph.values[value].consumers;
    if (graph.values[value].written_by != kNoNode)
      touching.push_back(graph.values[value].written_by);
    for (NodeId node : touching) {
      const Step step = problem.lifetimes.step_of_node[node];
      if (step < first || step > last) return std::nullopt;
      cache.first = cache.last < 0 ? step : std::min(cache.first, step);
      cache.last = std::max(cache.last, step);
    }
  }
  return cache;
}

// The last step of the spelled-out attention blocks (attention_pattern.h) one of whose members
// reads or appends `cache`, or `cache.last` when none does. The cache's last reader is
// repeat_kv's first op, so a core ending there would hand the device the cache widened to every
// query head (query heads / KV heads times its bytes: 8x on Llama-3-70B, 17.2 GB a layer at
// batch 16, 32k) to compute the scores on; FlexGen computes the scores and the context on the
// CPU, so only the query, the new K/V and the context cross.
Step LastStepOfBlocks(const Problem& problem, const std::vector<AttentionBlock>& blocks,
                      const LayerCache& cache) {
  const Graph& graph = *problem.graph;
  Step last = cache.last;
  for (const AttentionBlock& block : blocks) {
    const bool touches = std::any_of(block.members.begin(), block.members.end(), [&](NodeId id) {
      const Node& node = graph.nodes[id];
      auto in_cache = [&](ValueId value) { return cache.values.count(value) > 0; };
      return std::any_of(node.inputs.begin(), node.inputs.end(), in_cache) ||
             std::any_of(node.outputs.begin(), node.outputs.end(), in_cache);
    });
    if (!touches) continue;
    for (NodeId id : block.members) last = std::max(last, problem.lifetimes.step_of_node[id]);
  }
  return last;
}

// A layer's attention span as kAttention, or as kAttentionCore its cache's steps through the
// end of its spelled-out attention block (FlexGen: no weight of any part read there).
std::optional<HostPart> AttentionPart(const Problem& problem, const StepParts& steps, int layer,
                                      std::pair<Step, Step> span,
                                      const std::vector<AttentionBlock>* blocks) {
  const bool core = blocks != nullptr;
  const std::optional<LayerCache> cache = CacheOfSpan(problem, span.first, span.second);
  if (!cache) return std::nullopt;
  if (!core) {
    const auto nodes = SpanNodes(problem, steps, PartKey(HostPartKind::kAttention, layer),
                                 span.first, span.second);
    if (!nodes) return std::nullopt;
    return MakePart(problem, HostPartKind::kAttention, layer, *nodes, cache->values);
  }
  if (cache->values.empty()) return std::nullopt;
  const Step last = LastStepOfBlocks(problem, *blocks, *cache);
  const auto nodes = SpanNodes(problem, steps, std::nullopt, cache->first, last);
  if (!nodes) return std::nullopt;
  return MakePart(problem, HostPartKind::kAttentionCore, layer, *nodes, cache->values);
}

// A layer's optimizer update, with the token embedding's lookup and gradient scatter where it
// updates the table and `embedding_readers` asks for them (embedding_update.h), or without them
// where the host cannot run those.
std::optional<HostPart> OptimizerPart(const Problem& problem,
                                      const std::vector<std::optional<int>>& updates, int layer,
                                      const std::vector<NodeId>& nodes, const StateSet& state,
                                      bool embedding_readers) {
  std::vector<NodeId> wider;
  if (embedding_readers) {
    wider = planner::EmbeddingReadersOfUpdate(problem, updates, nodes, state);
  }
  if (!wider.empty()) {
    wider.insert(wider.end(), nodes.begin(), nodes.end());
    std::sort(wider.begin(), wider.end(), [&](NodeId a, NodeId b) {
      return problem.lifetimes.step_of_node[a] < problem.lifetimes.step_of_node[b];
    });
    if (auto part = MakePart(problem, HostPartKind::kOptimizer, layer, wider, state)) return part;
  }
  return MakePart(problem, HostPartKind::kOptimizer, layer, nodes, state);
}

// Each layer's optimizer update (optimizer_nodes.h), with the state it may touch: its
// optimizer state and the weights it updates. None where the device reads an updated weight
// after its update (the plan would need a second Prefetch; the planner brings it once, at the
// iteration's start).
std::vector<HostPart> OptimizerParts(const Problem& problem,
                                     const std::vector<std::optional<int>>& updates,
                                     bool embedding_readers) {
  const Graph& graph = *problem.graph;
  std::map<int, std::vector<NodeId>> nodes_of_layer;
  for (Step k = 0; k < problem.step_count(); ++k) {
    const NodeId id = problem.order[k];
    if (updates[id]) nodes_of_layer[*updates[id]].push_back(id);
  }
  std::vector<HostPart> parts;
  for (const auto& [layer, nodes] : nodes_of_layer) {
    StateSet state;
    bool read_after = false;
    for (NodeId id : nodes) {
      for (ValueId input : graph.nodes[id].inputs) {
        if (input == kNoValue || problem.persistent.empty() || !problem.persistent[input]) {
          continue;
        }
        state.insert(input);
        const NodeId writer = graph.values[input].written_by;
        if (writer == kNoNode) continue;
        for (NodeId reader : graph.values[input].consumers) {
          read_after |= !updates[reader] && problem.lifetimes.step_of_node[reader] >
                                                problem.lifetimes.step_of_node[writer];
        }
      }
    }
    if (read_after) continue;
    if (auto part = OptimizerPart(problem, updates, layer, nodes, state, embedding_readers)) {
      parts.push_back(std::move(*part));
    }
  }
  return parts;
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

std::vector<HostPart> FindHostParts(const Problem& problem, const HostPartOptions& options) {
  std::vector<HostPart> parts;
  if (!problem.profile->host_compute.present() || !HomesFit(problem)) return parts;
  const std::vector<std::optional<int>> updates =
      planner::OptimizerLayers(*problem.graph, problem.persistent);
  const StepParts steps = ClassifySteps(problem, updates);
  std::vector<AttentionBlock> blocks;
  if (options.attention_cores) blocks = FindAttentionBlocks(*problem.graph);
  for (const auto& [key, span] : steps.spans) {
    std::optional<HostPart> part;
    if (key.first == HostPartKind::kAttention) {
      part = AttentionPart(problem, steps, key.second, span,
                           options.attention_cores ? &blocks : nullptr);
    } else if (auto nodes = SpanNodes(problem, steps, key, span.first, span.second)) {
      part = MakePart(problem, key.first, key.second, *nodes, {});
    }
    if (part && part->kind == HostPartKind::kMlp) {
      AddSplitAtExperts(problem, std::move(*part), parts);
    } else if (part) {
      parts.push_back(std::move(*part));
    }
  }
  for (const auto& [kind, step] : steps.single_nodes) {
    if (auto part = MakePart(problem, kind, -1, {problem.order[step]}, {})) {
      parts.push_back(std::move(*part));
    }
  }
  for (HostPart& part : OptimizerParts(problem, updates, options.embedding_readers)) {
    parts.push_back(std::move(part));
  }
  std::stable_sort(parts.begin(), parts.end(), [](const HostPart& a, const HostPart& b) {
    return a.first_step < b.first_step;
  });
  return parts;
}

std::vector<ComputeUnit> NodeUnitsOf(const Graph& graph, const std::vector<HostPart>& parts) {
  std::vector<ComputeUnit> units(graph.nodes.size(), ComputeUnit::kDevice);
  for (const HostPart& part : parts) {
    for (NodeId node : part.nodes) units[node] = ComputeUnit::kHost;
  }
  return units;
}

std::vector<int> PartIndexOf(const Graph& graph, const std::vector<HostPart>& parts) {
  std::vector<int> part_of(graph.nodes.size(), -1);
  for (size_t p = 0; p < parts.size(); ++p) {
    for (NodeId node : parts[p].nodes) part_of[node] = static_cast<int>(p);
  }
  return part_of;
}

}  // namespace hyperplan
