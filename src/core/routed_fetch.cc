// Fetch-after-route bytes (see routed_fetch.h).
#include "hyperplan/routed_fetch.h"

#include <algorithm>
#include <cmath>

namespace hyperplan {

namespace {

constexpr size_t kFirstExpertOperand = 2;  // MoE/QMoE: input, router_probs, then the experts

// By expert: its touch probability, 0 for a resident one (`resident` ascending).
std::vector<double> FetchableTouch(const RoutedOperand& operand,
                                   const std::vector<int32_t>& resident) {
  std::vector<double> touch = TouchProbabilities(operand.routing);
  for (int32_t e : resident) {
    if (e >= 0 && static_cast<size_t>(e) < touch.size()) touch[e] = 0.0;
  }
  return touch;
}

}  // namespace

std::optional<RoutedOperand> RoutedOperandOf(const Graph& graph, NodeId node, ValueId value) {
  std::optional<MoeRouting> routing = MoeRoutingOf(graph, node);
  if (!routing || value < 0 || static_cast<size_t>(value) >= graph.values.size()) {
    return std::nullopt;
  }
  const Node& moe = graph.nodes[node];
  const Value& operand = graph.values[value];
  const auto position = std::find(moe.inputs.begin(), moe.inputs.end(), value);
  if (position == moe.inputs.end() ||
      static_cast<size_t>(position - moe.inputs.begin()) < kFirstExpertOperand ||
      !operand.size_known || operand.shape.empty() || operand.shape[0] != routing->experts ||
      operand.bytes <= 0 || operand.bytes % routing->experts != 0 ||
      operand.consumers != std::vector<NodeId>{node}) {
    return std::nullopt;
  }
  RoutedOperand routed;
  routed.slice_bytes = operand.bytes / routing->experts;
  routed.value = value;
  routed.router = graph.values[moe.inputs[1]].producer;
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
  return ExpectedRoutedBytesIn(operand, resident,
                               {0, static_cast<int32_t>(operand.routing.experts)});
}

int64_t ExpectedRoutedBytesIn(const RoutedOperand& operand, const std::vector<int32_t>& resident,
                              ExpertRange range) {
  const std::vector<double> touch = FetchableTouch(operand, resident);
  const int32_t begin = std::max<int32_t>(0, range.begin);
  const int32_t end = std::min<int32_t>(static_cast<int32_t>(touch.size()), range.end);
  double experts = 0.0;
  for (int32_t e = begin; e < end; ++e) experts += touch[e];
  // long double keeps a multi-GB operand's product exact to the byte before rounding.
  return std::llround(static_cast<long double>(operand.slice_bytes) * experts);
}

std::vector<ExpertRange> SplitExpertsByExpectedBytes(const RoutedOperand& operand,
                                                     const std::vector<int32_t>& resident,
                                                     int32_t parts) {
  const std::vector<double> touch = FetchableTouch(operand, resident);
  double total = 0.0;
  for (double p : touch) total += p;
  const int32_t experts = static_cast<int32_t>(touch.size());
  std::vector<ExpertRange> ranges;
  ExpertRange open{0, 0};
  double running = 0.0;
  double open_share = 0.0;  // the open range's expected experts
  int32_t cuts = 1;
  for (int32_t e = 0; e < experts; ++e) {
    running += touch[e];
    open_share += touch[e];
    open.end = e + 1;
    const bool reaches = cuts < parts && running * parts >= total * cuts;
    if (reaches && open_share > 0.0) {
      ranges.push_back(open);
      open = {e + 1, e + 1};
      open_share = 0.0;
      while (cuts < parts && running * parts >= total * cuts) ++cuts;
    }
  }
  open.end = experts;
  if (open_share > 0.0 || ranges.empty()) {
    ranges.push_back(open);
  } else {
    ranges.back().end = experts;  // a tail of resident or never-touched experts only
  }
  return ranges;
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
