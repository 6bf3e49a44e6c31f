// Shared residency rules (see residency_rules.h).
#include "contenders/residency_rules.h"

namespace hyperplan::contenders {

void OpenOwnedAtStart(const ContenderContext& context, PlanBuilder& builder,
                      const std::function<bool(ValueId)>& starts_resident) {
  const Graph& graph = *context.graph;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (value.producer != kNoNode || !value.size_known || value.bytes <= 0) continue;
    if (starts_resident(static_cast<ValueId>(id))) builder.OpenAtStart(static_cast<ValueId>(id));
  }
}

void FetchMissingInputs(const ContenderContext& context, PlanBuilder& builder, Step k) {
  const Graph& graph = *context.graph;
  for (ValueId input : graph.nodes[context.order[k]].inputs) {
    const Value& value = graph.values[input];
    if (value.size_known && value.bytes > 0 && !builder.Resident(input)) {
      builder.Fetch(input, k);
    }
  }
}

bool DiesAfter(const ContenderContext& context, ValueId value, Step k) {
  const Value& info = context.graph->values[value];
  if (info.producer == kNoNode || info.is_graph_output) return false;
  return context.lifetimes.lifetimes[value].baseline_last_step == k;
}

void ReleaseAfterLastUse(const ContenderContext& context, PlanBuilder& builder, Step k) {
  const Node& node = context.graph->nodes[context.order[k]];
  auto release = [&](ValueId value) {
    if (builder.Resident(value) && DiesAfter(context, value, k)) {
      builder.CloseAfterCompute(value, k);
    }
  };
  for (ValueId input : node.inputs) release(input);
  for (ValueId output : node.outputs) release(output);
}

void RunComputeStep(const ContenderContext& context, PlanBuilder& builder, Step k) {
  FetchMissingInputs(context, builder, k);
  builder.Compute(k);
  ReleaseAfterLastUse(context, builder, k);
}

}  // namespace hyperplan::contenders
