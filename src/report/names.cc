// Printable names for ids (see names.h).
#include "report/names.h"

namespace hyperplan::report {
namespace {

template <typename Items>
bool InRange(const Items& items, int64_t index) {
  return index >= 0 && static_cast<size_t>(index) < items.size();
}

}  // namespace

std::string TierName(const HardwareProfile& profile, TierId tier) {
  return InRange(profile.tiers, tier) ? profile.tiers[tier].name : "?";
}

std::string ValueName(const Graph& graph, ValueId value) {
  return InRange(graph.values, value) ? graph.values[value].name : "?";
}

std::string ValueClassText(const Graph& graph, ValueId value) {
  return InRange(graph.values, value) ? std::string(ValueClassName(graph.values[value].value_class))
                                      : "?";
}

std::string NodeName(const Graph& graph, NodeId node) {
  return InRange(graph.nodes, node) ? graph.nodes[node].name : "?";
}

std::string NodeOpType(const Graph& graph, NodeId node) {
  return InRange(graph.nodes, node) ? graph.nodes[node].op_type : "?";
}

std::string BlockName(const Graph& graph, ValueId value, NodeId scratch_node) {
  if (value == kNoValue && scratch_node != kNoNode) {
    return "body scratch of " + NodeName(graph, scratch_node);
  }
  return ValueName(graph, value);
}

}  // namespace hyperplan::report
