// Graph construction helpers and lookups (see graph.h).
#include "hyperplan/graph.h"

#include <array>
#include <ostream>

namespace hyperplan {
namespace {

constexpr std::array<std::string_view, kValueClassCount> kValueClassNames = {
    "weight", "graph_input", "graph_output", "activation", "kv_cache", "optimizer_state"};

}  // namespace

std::string_view ValueClassName(ValueClass value_class) {
  return kValueClassNames[static_cast<size_t>(value_class)];
}

std::ostream& operator<<(std::ostream& out, ValueClass value_class) {
  return out << ValueClassName(value_class);
}

std::optional<ValueClass> ParseValueClass(std::string_view name) {
  for (size_t i = 0; i < kValueClassNames.size(); ++i) {
    if (kValueClassNames[i] == name) return static_cast<ValueClass>(i);
  }
  return std::nullopt;
}

ValueId Graph::FindValue(std::string_view name) const {
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].name == name) return static_cast<ValueId>(i);
  }
  return kNoValue;
}

NodeId Graph::FindNode(std::string_view name) const {
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].name == name) return static_cast<NodeId>(i);
  }
  return kNoNode;
}

ValueId AddValue(Graph& graph, Value value) {
  graph.values.push_back(std::move(value));
  return static_cast<ValueId>(graph.values.size() - 1);
}

NodeId AddNode(Graph& graph, Node node) {
  const auto id = static_cast<NodeId>(graph.nodes.size());
  for (ValueId output : node.outputs) graph.values[output].producer = id;
  for (ValueId input : node.inputs) {
    auto& consumers = graph.values[input].consumers;
    // A node reading the same value twice is still one consumer.
    if (consumers.empty() || consumers.back() != id) consumers.push_back(id);
  }
  graph.nodes.push_back(std::move(node));
  return id;
}

}  // namespace hyperplan
