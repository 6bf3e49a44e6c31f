// The token embedding's readers an optimizer update takes along (see embedding_update.h).
#include "planner/embedding_update.h"

#include <algorithm>

namespace hyperplan::planner {
namespace {

bool In(const std::set<NodeId>& nodes, NodeId id) { return nodes.count(id) > 0; }

// The Gather reading `table` (its data input) when it is the one reader outside the update.
std::optional<NodeId> LookupOutsideUpdate(const Graph& graph, ValueId table,
                                          const std::set<NodeId>& update) {
  std::optional<NodeId> lookup;
  for (NodeId reader : graph.values[table].consumers) {
    if (In(update, reader)) continue;
    const Node& node = graph.nodes[reader];
    if (lookup || node.op_type != "Gather" || node.inputs.empty() || node.inputs[0] != table) {
      return std::nullopt;
    }
    lookup = reader;
  }
  return lookup;
}

// Whether every output of `node` is read by `reader` alone.
bool FeedsOnly(const Graph& graph, const Node& node, NodeId reader) {
  return std::all_of(node.outputs.begin(), node.outputs.end(), [&](ValueId output) {
    const std::vector<NodeId>& consumers = graph.values[output].consumers;
    return output == kNoValue || (consumers.size() == 1 && consumers[0] == reader);
  });
}

// Whether `node` reads only initializers and graph inputs (no computed value).
bool ReadsNothingComputed(const Graph& graph, const Node& node) {
  return std::all_of(node.inputs.begin(), node.inputs.end(), [&](ValueId input) {
    return input == kNoValue || graph.values[input].producer == kNoNode;
  });
}

// The producer of `gradient` with the nodes before it that read nothing computed and feed only
// it, when the computed values it reads otherwise hold fewer bytes than the gradient and each
// of its outputs feeds only the update; empty otherwise.
std::vector<NodeId> SmallerScatter(const Graph& graph, ValueId gradient,
                                   const std::set<NodeId>& update) {
  const NodeId producer = graph.values[gradient].producer;
  const Node& node = graph.nodes[producer];
  for (ValueId output : node.outputs) {
    if (output == kNoValue) continue;
    for (NodeId reader : graph.values[output].consumers) {
      if (!In(update, reader)) return {};
    }
  }
  std::vector<NodeId> taken = {producer};
  int64_t crossing_bytes = 0;
  for (ValueId input : node.inputs) {
    if (input == kNoValue || graph.values[input].producer == kNoNode) continue;
    const NodeId before = graph.values[input].producer;
    const Node& before_node = graph.nodes[before];
    if (ReadsNothingComputed(graph, before_node) && FeedsOnly(graph, before_node, producer)) {
      taken.push_back(before);
    } else {
      crossing_bytes += graph.values[input].bytes;
    }
  }
  if (crossing_bytes >= graph.values[gradient].bytes) return {};
  return taken;
}

}  // namespace

std::vector<NodeId> EmbeddingReadersOfUpdate(const Problem& problem,
                                             const std::vector<std::optional<int>>& updates,
                                             const std::vector<NodeId>& update,
                                             const std::set<ValueId>& state) {
  const Graph& graph = *problem.graph;
  const std::set<NodeId> in_update(update.begin(), update.end());
  std::set<NodeId> taken;
  for (ValueId value : state) {
    const Value& table = graph.values[value];
    if (table.value_class != ValueClass::kWeight || !In(in_update, table.written_by)) continue;
    if (auto lookup = LookupOutsideUpdate(graph, value, in_update)) taken.insert(*lookup);
  }
  if (taken.empty()) return {};
  for (NodeId id : update) {
    for (ValueId input : graph.nodes[id].inputs) {
      if (input == kNoValue || state.count(input)) continue;
      const NodeId producer = graph.values[input].producer;
      if (producer == kNoNode || In(in_update, producer) || updates[producer]) continue;
      if (In(taken, producer)) continue;
      for (NodeId node : SmallerScatter(graph, input, in_update)) taken.insert(node);
    }
  }
  return std::vector<NodeId>(taken.begin(), taken.end());
}

}  // namespace hyperplan::planner
