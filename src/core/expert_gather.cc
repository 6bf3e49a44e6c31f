// Expert Gathers of the gather form (see expert_gather.h).
#include "expert_gather.h"

#include <algorithm>

#include "cost_rules.h"
#include "hyperplan/routing.h"

namespace hyperplan::cost_rules {

std::optional<ExpertGatherShape> DescribeExpertGather(const Graph& graph, const Node& node) {
  if (node.op_type != "Gather") return std::nullopt;
  const Value* table = InputValue(graph, node, 0);
  const Value* indices = InputValue(graph, node, 1);
  const auto axis = node.int_attributes.find("axis");
  if (table == nullptr || indices == nullptr ||
      (axis != node.int_attributes.end() && axis->second != 0) || table->producer != kNoNode ||
      table->shape.size() < 3 || indices->shape.size() < 2 || table->shape[0] < 1) {
    return std::nullopt;
  }
  const int64_t picks = indices->shape.back();
  const int64_t lookups = Elements(*indices);
  if (picks < 1 || lookups < picks) return std::nullopt;
  ExpertGatherShape shape;
  shape.experts = table->shape[0];
  shape.experts_per_token = std::min(picks, shape.experts);
  shape.tokens = lookups / picks;
  shape.table = node.inputs[0];
  shape.indices = node.inputs[1];
  const auto measured = graph.expert_selection.find(node.name);
  if (measured != graph.expert_selection.end() &&
      static_cast<int64_t>(measured->second.size()) == shape.experts) {
    shape.selection = &measured->second;
  }
  return shape;
}

int64_t ExpectedTableReadBytes(const Graph& graph, const ExpertGatherShape& shape) {
  const double distinct =
      shape.selection == nullptr
          ? ExpectedDistinctExperts(shape.experts, shape.experts_per_token, shape.tokens)
          : ExpectedDistinctExperts(ScaledSelection(*shape.selection, shape.experts_per_token),
                                    shape.tokens);
  return RoutedBytes(graph.values[shape.table].bytes, shape.experts, distinct);
}

}  // namespace hyperplan::cost_rules
