// Printable names for tier, value and node ids (see names.h).
#include "hyperplan/names.h"

namespace hyperplan {
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

std::string QuotedValueName(const Graph& graph, ValueId value) {
  return InRange(graph.values, value) ? "'" + graph.values[value].name + "'" : "?";
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

}  // namespace hyperplan
