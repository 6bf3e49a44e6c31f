// Fetch-after-route bytes (see routed_fetch.h).
#include "hyperplan/routed_fetch.h"

#include <algorithm>
#include <cmath>

#include "moe_shape.h"

namespace hyperplan {

namespace {

constexpr size_t kFirstExpertOperand = 2;  // MoE/QMoE: input, router_probs, then the experts

// Where `value` must sit among `node`'s inputs to be routed: a MoE/QMoE node's from its
// first expert operand on, an expert Gather's table only (input 0).
bool RoutedPosition(const Graph& graph, NodeId node, ValueId value) {
  const Node& reader = graph.nodes[node];
  const auto position = std::find(reader.inputs.begin(), reader.inputs.end(), value);
  if (position == reader.inputs.end()) return false;
  const auto index = static_cast<size_t>(position - reader.inputs.begin());
  return cost_rules::IsMoeOp(reader) ? index >= kFirstExpertOperand : index == 0;
}

}  // namespace

std::optional<RoutedOperand> RoutedOperandOf(const Graph& graph, NodeId node, ValueId value) {
  std::optional<MoeRouting> routing = MoeRoutingOf(graph, node);
  if (!routing || value < 0 || static_cast<size_t>(value) >= graph.values.size()) {
    return std::nullopt;
  }
  const Value& operand = graph.values[value];
  if (!RoutedPosition(graph, node, value) || !operand.size_known || operand.shape.empty() ||
      operand.shape[0] != routing->experts || operand.bytes <= 0 ||
      operand.bytes % routing->experts != 0 || operand.consumers != std::vector<NodeId>{node}) {
    return std::nullopt;
  }
  RoutedOperand routed;
  routed.slice_bytes = operand.bytes / routing->experts;
  routed.value = value;
  routed.router = graph.values[RoutingInputOf(graph, node)].producer;
  routed.routing = std::move(*routing);
  return routed;
}

std::vector<double> TouchProbabilities(const MoeRouting& routing) {
  std::vector<double> touch = SelectionProbabilities(routing);
  for (double& p : touch) {
    p = p >= 1.0 ? 1.0 : -std::expm1(static_cast<double>(routing.tokens) * std::log1p(-p));
  }
  return touch;
}

int64_t ExpectedRoutedBytes(const RoutedOperand& operand, const std::vector<int32_t>& resident) {
  const std::vector<double> touch = TouchProbabilities(operand.routing);
  double experts = 0.0;
  size_t next_resident = 0;
  for (size_t e = 0; e < touch.size(); ++e) {
    if (next_resident < resident.size() && resident[next_resident] == static_cast<int32_t>(e)) {
      ++next_resident;
      continue;
    }
    experts += touch[e];
  }
  // long double keeps a multi-GB operand's product exact to the byte before rounding.
  return std::llround(static_cast<long double>(operand.slice_bytes) * experts);
}

int64_t ReservedRoutedBytes(const RoutedOperand& operand, int64_t resident_count) {
  const MoeRouting& routing = operand.routing;
  const int64_t fetchable = std::max<int64_t>(0, routing.experts - resident_count);
  const int64_t picks = routing.tokens > fetchable / std::max<int64_t>(1, routing.experts_per_token)
                            ? fetchable
                            : routing.experts_per_token * routing.tokens;
  return std::min(fetchable, picks) * operand.slice_bytes;
}

}  // namespace hyperplan
