// Host nodes that read nothing computed, moved to the order's start (see host_early_order.h).
#include "planner/host_early_order.h"

#include <cstddef>
#include <cstdint>

namespace hyperplan::planner {
namespace {

// By NodeId: the node's position in `order`.
std::vector<size_t> Positions(const Graph& graph, const std::vector<NodeId>& order) {
  std::vector<size_t> position(graph.nodes.size(), 0);
  for (size_t k = 0; k < order.size(); ++k) position[order[k]] = k;
  return position;
}

// By NodeId: whether the node writes a value in place (`Value::written_by`).
std::vector<uint8_t> InPlaceWriters(const Graph& graph) {
  std::vector<uint8_t> writer(graph.nodes.size(), 0);
  for (const Value& value : graph.values) {
    if (value.written_by != kNoNode) writer[value.written_by] = 1;
  }
  return writer;
}

// The position after the order's last device node: the host's tail starts there.
size_t TailStart(const std::vector<NodeId>& order, const std::vector<ComputeUnit>& node_unit) {
  for (size_t k = order.size(); k-- > 0;) {
    if (node_unit[order[k]] != ComputeUnit::kHost) return k + 1;
  }
  return 0;
}

// By NodeId: whether the node moves (see host_early_order.h). An input written in place holds
// this iteration's update for a reader after its writer in `order`: computed, as a produced
// value is.
std::vector<uint8_t> EarlyHostNodes(const Graph& graph, const std::vector<NodeId>& order,
                                    const std::vector<ComputeUnit>& node_unit) {
  const std::vector<size_t> position = Positions(graph, order);
  const std::vector<uint8_t> writer = InPlaceWriters(graph);
  const size_t tail = TailStart(order, node_unit);
  std::vector<uint8_t> early(graph.nodes.size(), 0);
  for (NodeId node : order) {
    if (node_unit[node] != ComputeUnit::kHost || writer[node] || position[node] < tail) continue;
    bool reads_nothing_computed = true;
    for (ValueId input : graph.nodes[node].inputs) {
      if (input == kNoValue) continue;
      const Value& value = graph.values[input];
      const bool produced = value.producer != kNoNode && !early[value.producer];
      const bool updated =
          value.written_by != kNoNode && position[value.written_by] < position[node];
      if (produced || updated) {
        reads_nothing_computed = false;
        break;
      }
    }
    early[node] = reads_nothing_computed ? 1 : 0;
  }
  return early;
}

}  // namespace

std::vector<NodeId> HostEarlyOrder(const Graph& graph, const std::vector<NodeId>& order,
                                   const std::vector<ComputeUnit>& node_unit) {
  if (node_unit.size() != graph.nodes.size()) return order;
  const std::vector<uint8_t> early = EarlyHostNodes(graph, order, node_unit);
  std::vector<NodeId> moved;
  moved.reserve(order.size());
  for (NodeId node : order) {
    if (early[node]) moved.push_back(node);
  }
  for (NodeId node : order) {
    if (!early[node]) moved.push_back(node);
  }
  return moved;
}

}  // namespace hyperplan::planner
