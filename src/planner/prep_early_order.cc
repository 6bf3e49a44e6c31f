// A weight's preparation moved into the device's wait for the host (see prep_early_order.h).
#include "planner/prep_early_order.h"

#include <cstddef>

namespace hyperplan::planner {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

bool OnHost(const std::vector<ComputeUnit>& node_unit, NodeId node) {
  return node_unit[node] == ComputeUnit::kHost;
}

// Device nodes that read no activation: every input a weight no node updates in place, or the
// output of such a node. In a topological order producers are decided first.
std::vector<uint8_t> PrepNodes(const Graph& graph, const std::vector<NodeId>& order,
                               const std::vector<ComputeUnit>& node_unit) {
  std::vector<uint8_t> prep(graph.nodes.size(), 0);
  for (NodeId node : order) {
    if (OnHost(node_unit, node) || graph.nodes[node].inputs.empty()) continue;
    bool reads_weights_only = true;
    for (ValueId input : graph.nodes[node].inputs) {
      if (input == kNoValue) continue;
      const Value& value = graph.values[input];
      const bool weight = value.producer == kNoNode && value.is_initializer &&
                          value.written_by == kNoNode && !value.is_graph_input;
      if (!weight && (value.producer == kNoNode || !prep[value.producer])) {
        reads_weights_only = false;
        break;
      }
    }
    prep[node] = reads_weights_only ? 1 : 0;
  }
  return prep;
}

// The waits: device nodes reading a host node's output.
bool IsWait(const Graph& graph, const std::vector<ComputeUnit>& node_unit, NodeId node) {
  if (OnHost(node_unit, node)) return false;
  for (ValueId input : graph.nodes[node].inputs) {
    if (input == kNoValue) continue;
    const NodeId producer = graph.values[input].producer;
    if (producer != kNoNode && OnHost(node_unit, producer)) return true;
  }
  return false;
}

// By position: the wait each prep node moves before (kNone: it stays).
std::vector<size_t> MoveTargets(const Graph& graph, const std::vector<NodeId>& order,
                                const std::vector<ComputeUnit>& node_unit) {
  const std::vector<uint8_t> prep = PrepNodes(graph, order, node_unit);
  std::vector<size_t> target(order.size(), kNone);
  // Backwards: whether a host node comes before the next wait.
  bool host_follows = false;
  for (size_t k = order.size(); k-- > 0;) {
    const NodeId node = order[k];
    if (OnHost(node_unit, node)) host_follows = true;
    if (IsWait(graph, node_unit, node)) host_follows = false;
    if (prep[node] && host_follows) target[k] = 0;  // marked; the wait is found below
  }
  size_t last_wait = kNone;
  for (size_t k = 0; k < order.size(); ++k) {
    if (target[k] != kNone) target[k] = last_wait;
    if (IsWait(graph, node_unit, order[k])) last_wait = k;
  }
  return target;
}

}  // namespace

std::vector<NodeId> PrepEarlyOrder(const Graph& graph, const std::vector<NodeId>& order,
                                   const std::vector<ComputeUnit>& node_unit) {
  if (node_unit.size() != graph.nodes.size()) return order;
  const std::vector<size_t> target = MoveTargets(graph, order, node_unit);
  std::vector<std::vector<NodeId>> before(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    if (target[k] != kNone) before[target[k]].push_back(order[k]);
  }
  std::vector<NodeId> moved;
  moved.reserve(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    if (target[k] != kNone) continue;
    moved.insert(moved.end(), before[k].begin(), before[k].end());
    moved.push_back(order[k]);
  }
  return moved;
}

}  // namespace hyperplan::planner
