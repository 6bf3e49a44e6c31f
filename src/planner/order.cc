// Memory-aware list scheduling (see order.h).
#include "planner/order.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <tuple>

namespace hyperplan::planner {
namespace {

std::vector<ValueId> DistinctInputs(const Node& node) {
  std::vector<ValueId> inputs = node.inputs;
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  return inputs;
}

}  // namespace

std::vector<NodeId> MemoryAwareOrder(const Graph& graph) {
  const size_t node_count = graph.nodes.size();
  std::vector<std::vector<ValueId>> inputs(node_count);
  std::vector<int32_t> missing(node_count, 0);  // inputs not produced yet
  for (size_t n = 0; n < node_count; ++n) {
    inputs[n] = DistinctInputs(graph.nodes[n]);
    for (ValueId v : inputs[n]) {
      if (graph.values[v].producer != kNoNode) ++missing[n];
    }
  }
  std::vector<int32_t> unread(graph.values.size(), 0);  // consumers not run yet
  for (size_t v = 0; v < graph.values.size(); ++v) {
    unread[v] = static_cast<int32_t>(graph.values[v].consumers.size());
  }
  auto frees_on_read = [&](ValueId v) {
    const Value& value = graph.values[v];
    return value.producer != kNoNode && !value.is_graph_output;
  };
  std::vector<int64_t> delta(node_count, 0);
  std::vector<bool> done(node_count, false);
  auto compute_delta = [&](NodeId n) {
    int64_t bytes = 0;
    for (ValueId v : graph.nodes[n].outputs) bytes += graph.values[v].bytes;
    for (ValueId v : inputs[n]) {
      if (frees_on_read(v) && unread[v] == 1) bytes -= graph.values[v].bytes;
    }
    return bytes;
  };
  using Entry = std::tuple<int64_t, NodeId>;  // (delta, node): smallest first
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (size_t n = 0; n < node_count; ++n) {
    if (missing[n] == 0) {
      delta[n] = compute_delta(static_cast<NodeId>(n));
      ready.emplace(delta[n], static_cast<NodeId>(n));
    }
  }
  std::vector<NodeId> order;
  order.reserve(node_count);
  while (!ready.empty()) {
    const auto [entry_delta, node] = ready.top();
    ready.pop();
    if (done[node] || entry_delta != delta[node]) continue;  // stale entry
    done[node] = true;
    order.push_back(node);
    for (ValueId v : inputs[node]) {
      if (--unread[v] != 1 || !frees_on_read(v)) continue;
      // The one reader left now frees v: its priority improves if it is waiting.
      for (NodeId reader : graph.values[v].consumers) {
        if (done[reader]) continue;
        if (missing[reader] == 0) {
          delta[reader] = compute_delta(reader);
          ready.emplace(delta[reader], reader);
        }
        break;
      }
    }
    for (ValueId v : graph.nodes[node].outputs) {
      for (NodeId reader : graph.values[v].consumers) {
        if (--missing[reader] == 0) {
          delta[reader] = compute_delta(reader);
          ready.emplace(delta[reader], reader);
        }
      }
    }
  }
  return order;  // shorter than the graph only for a cyclic graph; lifetimes then rejects it
}

}  // namespace hyperplan::planner
