// Decoder pieces for the field's host placements (see decoder_pieces.h).
#include "contenders/decoder_pieces.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "hyperplan/layers.h"
#include "hyperplan/planner/host_parts.h"

namespace hyperplan::contenders {
namespace {

bool IsWeight(const Value& value) {
  return value.producer == kNoNode && value.value_class == ValueClass::kWeight;
}

// The layer of the weights a node reads (-1: none); -2 when it reads two layers' weights.
int LayerRead(const Graph& graph, const Node& node) {
  int layer = -1;
  for (ValueId input : node.inputs) {
    if (input == kNoValue || !IsWeight(graph.values[input])) continue;
    const int read = LayerOfWeight(graph.values[input].name);
    if (read < 0 || read == layer) continue;
    layer = layer < 0 ? read : -2;
  }
  return layer;
}

// The step after which the first layer starts: the token embedding's, where it is a part
// before the layer, else the step before the layer's first weight read.
Step FirstLayerStart(const Problem& problem, Step first_read) {
  Step start = first_read - 1;
  for (const HostPart& part : FindHostParts(problem)) {
    if (part.kind == HostPartKind::kEmbedding && part.last_step < first_read) {
      start = part.last_step;
    }
  }
  return start;
}

DecoderLayer LayerOver(const Problem& problem, int number, Step after, Step last) {
  const Graph& graph = *problem.graph;
  DecoderLayer layer;
  layer.layer = number;
  for (Step k = after + 1; k <= last; ++k) {
    const NodeId node = problem.order[k];
    const int read = LayerRead(graph, graph.nodes[node]);
    if (read != -1 && read != number) continue;  // another layer's weights
    layer.nodes.push_back(node);
  }
  if (!layer.nodes.empty()) {
    layer.first_step = problem.lifetimes.step_of_node[layer.nodes.front()];
    layer.last_step = last;
  }
  return layer;
}

bool ElementwiseUpdateOp(std::string_view op) {
  static const std::set<std::string_view> kOps = {"Add", "Sub", "Mul",        "Div",  "Sqrt",
                                                  "Pow", "Neg", "Reciprocal", "Cast", "Identity",
                                                  "Max", "Min", "Clip",       "Sign", "Abs"};
  return kOps.count(op) > 0;
}

// Union-find over update groups.
struct Groups {
  std::vector<int> parent;
  int Find(int g) {
    while (parent[g] != g) g = parent[g] = parent[parent[g]];
    return g;
  }
  int Add() {
    parent.push_back(static_cast<int>(parent.size()));
    return parent.back();
  }
  void Unite(int a, int b) { parent[Find(a)] = Find(b); }
};

// By NodeId: whether the node writes a weight or optimizer state in place (loop.h).
std::vector<uint8_t> UpdateWriters(const Graph& graph) {
  std::vector<uint8_t> writes(graph.nodes.size(), 0);
  for (const Value& value : graph.values) {
    if (value.written_by != kNoNode && (value.value_class == ValueClass::kWeight ||
                                        value.value_class == ValueClass::kOptimizerState)) {
      writes[value.written_by] = 1;
    }
  }
  return writes;
}

// The group every consumer of `node`'s outputs is in, or -1 (none, or two groups).
int ConsumersGroup(const Graph& graph, NodeId node, const std::vector<int>& group_of,
                   Groups& groups) {
  int group = -1;
  bool any = false;
  for (ValueId output : graph.nodes[node].outputs) {
    if (output == kNoValue) continue;
    for (NodeId consumer : graph.values[output].consumers) {
      if (group_of[consumer] < 0) return -1;
      const int g = groups.Find(group_of[consumer]);
      if (any && g != group) return -1;
      group = g;
      any = true;
    }
  }
  return group;
}

}  // namespace

std::vector<DecoderLayer> FindDecoderLayers(const Problem& problem) {
  const WeightLayers found = FindWeightLayers(*problem.graph, problem.order);
  std::vector<DecoderLayer> layers;
  if (static_cast<int>(found.visits.size()) != found.count()) return layers;  // visited twice
  Step after = 0;
  for (size_t i = 0; i < found.visits.size(); ++i) {
    const LayerVisit& visit = found.visits[i];
    if (i == 0) after = FirstLayerStart(problem, visit.first);
    DecoderLayer layer = LayerOver(problem, found.number_of_rank[visit.rank], after, visit.last);
    after = visit.last;
    if (!layer.nodes.empty()) layers.push_back(std::move(layer));
  }
  return layers;
}

std::vector<NodeId> AttentionCore(const Problem& problem, const DecoderLayer& layer) {
  const Graph& graph = *problem.graph;
  const std::set<NodeId> in_layer(layer.nodes.begin(), layer.nodes.end());
  auto touches_kv = [&](NodeId node) {
    for (ValueId input : graph.nodes[node].inputs) {
      if (input != kNoValue && graph.values[input].value_class == ValueClass::kKvCache) return true;
    }
    return false;
  };
  std::set<NodeId> core;
  std::vector<NodeId> stack;
  for (NodeId node : layer.nodes) {
    if (touches_kv(node)) {
      core.insert(node);
      stack.push_back(node);
    }
  }
  while (!stack.empty()) {
    const NodeId node = stack.back();
    stack.pop_back();
    for (ValueId output : graph.nodes[node].outputs) {
      if (output == kNoValue) continue;
      for (NodeId consumer : graph.values[output].consumers) {
        if (!in_layer.count(consumer) || core.count(consumer)) continue;
        if (LayerRead(graph, graph.nodes[consumer]) != -1) continue;  // a projection
        core.insert(consumer);
        stack.push_back(consumer);
      }
    }
  }
  std::vector<NodeId> nodes(core.begin(), core.end());
  std::sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) {
    return problem.lifetimes.step_of_node[a] < problem.lifetimes.step_of_node[b];
  });
  return nodes;
}

std::vector<std::vector<NodeId>> OptimizerUpdates(const Problem& problem) {
  const Graph& graph = *problem.graph;
  const std::vector<uint8_t> writers = UpdateWriters(graph);
  std::vector<int> group_of(graph.nodes.size(), -1);
  Groups groups;
  // Last step first: a node joins once every reader of its outputs is in one group.
  for (Step k = problem.step_count() - 1; k >= 0; --k) {
    const NodeId node = problem.order[k];
    if (!ElementwiseUpdateOp(graph.nodes[node].op_type)) continue;
    if (writers[node]) {
      group_of[node] = groups.Add();
    } else {
      const int group = ConsumersGroup(graph, node, group_of, groups);
      if (group >= 0) group_of[node] = group;
    }
  }
  // A parameter's step reads the moments its moment updates wrote in place: one group.
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (group_of[n] < 0) continue;
    for (ValueId input : graph.nodes[n].inputs) {
      if (input == kNoValue) continue;
      const NodeId writer = graph.values[input].written_by;
      if (writer != kNoNode && group_of[writer] >= 0) groups.Unite(group_of[n], group_of[writer]);
    }
  }
  std::map<int, std::vector<NodeId>> by_group;
  for (Step k = 0; k < problem.step_count(); ++k) {
    const NodeId node = problem.order[k];
    if (group_of[node] >= 0) by_group[groups.Find(group_of[node])].push_back(node);
  }
  std::vector<std::vector<NodeId>> updates;
  for (auto& [group, nodes] : by_group) updates.push_back(std::move(nodes));
  std::sort(updates.begin(), updates.end(), [&](const auto& a, const auto& b) {
    return problem.lifetimes.step_of_node[a.back()] < problem.lifetimes.step_of_node[b.back()];
  });
  return updates;
}

bool HomedOnHost(const Problem& problem, const std::vector<NodeId>& nodes) {
  const Graph& graph = *problem.graph;
  const TierId host_tier = problem.profile->host_compute.memory_tier;
  auto persistent = [&](ValueId id) {
    return !problem.persistent.empty() && problem.persistent[id];
  };
  for (NodeId node : nodes) {
    for (ValueId input : graph.nodes[node].inputs) {
      if (input == kNoValue) continue;
      if ((IsWeight(graph.values[input]) || persistent(input)) &&
          problem.homes.home_tier[input] != host_tier) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace hyperplan::contenders
