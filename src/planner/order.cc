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

// Nodes whose results serve one in-place update alone: a node is labelled with the update it
// serves when every output is read only by nodes with that one label (or is an aliased graph
// output, which becomes next iteration's input), and an in-place writer that nothing else reads
// (the parameter's own update) is labelled with itself. A node serving two updates is not
// update-side: the backward pass's data gradients feed every earlier layer's updates, and
// counting them in would move the whole backward pass (and keep the updates after it). Walked
// backwards in the model's (topological) order, so consumers are decided first.
std::vector<uint8_t> UpdateSideNodes(const Graph& model, const std::vector<ValueAlias>& aliases) {
  constexpr NodeId kNotUpdateSide = -1;
  constexpr NodeId kUnset = -2;
  std::vector<uint8_t> aliased_output(model.values.size(), 0);
  for (const ValueAlias& alias : aliases) aliased_output[alias.out_value] = 1;
  std::vector<NodeId> serves(model.nodes.size(), kNotUpdateSide);
  for (auto n = static_cast<NodeId>(model.nodes.size()); n-- > 0;) {
    NodeId label = kUnset;
    bool writes_alias = false;
    bool update_side = true;
    for (ValueId v : model.nodes[n].outputs) {
      const Value& value = model.values[v];
      if (aliased_output[v]) {
        writes_alias = true;
      } else if (value.is_graph_output) {
        update_side = false;
      }
      for (NodeId reader : value.consumers) {
        if (serves[reader] == kNotUpdateSide || (label != kUnset && label != serves[reader])) {
          update_side = false;
        }
        label = serves[reader];
      }
    }
    if (!update_side) continue;
    if (label != kUnset) {
      serves[n] = label;
    } else if (writes_alias) {
      serves[n] = n;
    }
  }
  std::vector<uint8_t> update_side(model.nodes.size(), 0);
  for (size_t n = 0; n < model.nodes.size(); ++n) update_side[n] = serves[n] != kNotUpdateSide;
  return update_side;
}

// Predecessors of each node: the producers of its inputs and, for an in-place writer, every
// other reader of the input it overwrites (they must run first). Sorted, distinct.
std::vector<std::vector<NodeId>> Predecessors(const Graph& model,
                                              const std::vector<ValueAlias>& aliases) {
  std::vector<std::vector<NodeId>> predecessors(model.nodes.size());
  for (size_t n = 0; n < model.nodes.size(); ++n) {
    for (ValueId v : model.nodes[n].inputs) {
      if (model.values[v].producer != kNoNode) predecessors[n].push_back(model.values[v].producer);
    }
  }
  for (const ValueAlias& alias : aliases) {
    const NodeId writer = model.values[alias.out_value].producer;
    for (NodeId reader : model.values[alias.in_value].consumers) {
      if (reader != writer) predecessors[writer].push_back(reader);
    }
  }
  for (std::vector<NodeId>& list : predecessors) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return predecessors;
}

// The node after which each update-side node runs (see order.h): the latest other node it
// depends on (its anchor), delayed to the latest point before any of its successors runs.
// Anchors go forward in the model's order, the delays backwards.
std::vector<NodeId> UpdateSlots(const std::vector<std::vector<NodeId>>& predecessors,
                                const std::vector<uint8_t>& update_side) {
  const auto node_count = static_cast<NodeId>(predecessors.size());
  constexpr NodeId kNone = -1;
  std::vector<NodeId> anchor(node_count, kNone);
  for (NodeId n = 0; n < node_count; ++n) {
    if (!update_side[n]) continue;
    for (NodeId pred : predecessors[n]) {
      anchor[n] = std::max(anchor[n], update_side[pred] ? anchor[pred] : pred);
    }
  }
  // The latest slot each node may take so that its successors find it run: an update-side
  // successor's slot, or just before a node that keeps its place (an in-place writer that
  // other readers of its input must precede).
  std::vector<NodeId> latest(node_count, node_count);
  std::vector<NodeId> slot(node_count, kNone);
  for (NodeId n = node_count; n-- > 0;) {
    if (update_side[n]) {
      // Successors' slots are never before the anchor (it is theirs too). With neither a
      // successor nor an anchor, the node keeps its own place.
      if (latest[n] < node_count) {
        slot[n] = std::max(anchor[n], latest[n]);
      } else {
        slot[n] = anchor[n] != kNone ? anchor[n] : n;
      }
    }
    const NodeId before_n = update_side[n] ? slot[n] : n - 1;
    for (NodeId pred : predecessors[n]) {
      if (update_side[pred]) latest[pred] = std::min(latest[pred], before_n);
    }
  }
  return slot;
}

// The list scheduler behind MemoryAwareOrder (order.h): a heap of ready nodes by the change
// in resident bytes their step makes, refreshed as inputs lose readers.
class MemoryAwareScheduler {
 public:
  explicit MemoryAwareScheduler(const Graph& graph)
      : graph_(graph),
        inputs_(graph.nodes.size()),
        missing_(graph.nodes.size(), 0),
        unread_(graph.values.size(), 0),
        delta_(graph.nodes.size(), 0),
        done_(graph.nodes.size(), false) {
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
      inputs_[n] = DistinctInputs(graph.nodes[n]);
      for (ValueId v : inputs_[n]) {
        if (graph.values[v].producer != kNoNode) ++missing_[n];
      }
    }
    for (size_t v = 0; v < graph.values.size(); ++v) {
      unread_[v] = static_cast<int32_t>(graph.values[v].consumers.size());
    }
  }

  // Shorter than the graph only for a cyclic graph; lifetimes then rejects it.
  std::vector<NodeId> Run() {
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      if (missing_[n] == 0) MakeReady(static_cast<NodeId>(n));
    }
    std::vector<NodeId> order;
    order.reserve(graph_.nodes.size());
    while (!ready_.empty()) {
      const auto [entry_delta, node] = ready_.top();
      ready_.pop();
      if (done_[node] || entry_delta != delta_[node]) continue;  // stale entry
      done_[node] = true;
      order.push_back(node);
      AfterRunning(node);
    }
    return order;
  }

 private:
  // Whether reading `v` last frees it (weights and graph inputs and outputs stay resident).
  bool FreesOnRead(ValueId v) const {
    const Value& value = graph_.values[v];
    return value.producer != kNoNode && !value.is_graph_output;
  }

  // Bytes node `n`'s step adds: its outputs, less the inputs it is the last reader of.
  int64_t Delta(NodeId n) const {
    int64_t bytes = 0;
    for (ValueId v : graph_.nodes[n].outputs) bytes += graph_.values[v].bytes;
    for (ValueId v : inputs_[n]) {
      if (FreesOnRead(v) && unread_[v] == 1) bytes -= graph_.values[v].bytes;
    }
    return bytes;
  }

  void MakeReady(NodeId n) {
    delta_[n] = Delta(n);
    ready_.emplace(delta_[n], n);
  }

  // After `node` runs: an input with one reader left now frees on that read (its priority
  // improves if it is waiting), and the readers of its outputs may become ready.
  void AfterRunning(NodeId node) {
    for (ValueId v : inputs_[node]) {
      if (--unread_[v] != 1 || !FreesOnRead(v)) continue;
      for (NodeId reader : graph_.values[v].consumers) {
        if (done_[reader]) continue;
        if (missing_[reader] == 0) MakeReady(reader);
        break;
      }
    }
    for (ValueId v : graph_.nodes[node].outputs) {
      for (NodeId reader : graph_.values[v].consumers) {
        if (--missing_[reader] == 0) MakeReady(reader);
      }
    }
  }

  using Entry = std::tuple<int64_t, NodeId>;  // (delta, node): smallest first

  const Graph& graph_;
  std::vector<std::vector<ValueId>> inputs_;  // by node, each input once
  std::vector<int32_t> missing_;              // by node: inputs not produced yet
  std::vector<int32_t> unread_;               // by value: consumers not run yet
  std::vector<int64_t> delta_;                // by node: its latest heap priority
  std::vector<bool> done_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready_;
};

}  // namespace

std::vector<NodeId> EagerUpdateOrder(const Graph& model, const std::vector<ValueAlias>& aliases) {
  const std::vector<uint8_t> update_side = UpdateSideNodes(model, aliases);
  const std::vector<NodeId> slot = UpdateSlots(Predecessors(model, aliases), update_side);
  // Update-side nodes grouped by slot, each group in the model's order (topological: a
  // predecessor's slot is never after its successor's).
  std::vector<std::vector<NodeId>> runs_after(model.nodes.size());
  for (size_t n = 0; n < model.nodes.size(); ++n) {
    if (update_side[n]) runs_after[slot[n]].push_back(static_cast<NodeId>(n));
  }
  std::vector<NodeId> order;
  order.reserve(model.nodes.size());
  for (size_t n = 0; n < model.nodes.size(); ++n) {
    if (!update_side[n]) order.push_back(static_cast<NodeId>(n));
    order.insert(order.end(), runs_after[n].begin(), runs_after[n].end());
  }
  return order;
}

std::vector<NodeId> MemoryAwareOrder(const Graph& graph) {
  return MemoryAwareScheduler(graph).Run();
}

}  // namespace hyperplan::planner
