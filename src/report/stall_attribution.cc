// Stall attribution (see stall_attribution.h).
#include "report/stall_attribution.h"

#include <algorithm>
#include <map>

#include "hyperplan/layers.h"

namespace hyperplan::report {
namespace {

bool IsTransfer(const PlanStep& step) {
  return step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore;
}

int64_t StallOf(const PlanEvaluation& evaluation, const PlanStep& step) {
  const auto& stalls = evaluation.timeline.stall_ns_per_node;
  if (step.kind != StepKind::kCompute || step.node < 0 ||
      static_cast<size_t>(step.node) >= stalls.size()) {
    return 0;
  }
  return stalls[step.node];
}

// The wait that ended last (ties: the lowest index), or -1.
int32_t BindingWait(const PlanEvaluation& evaluation, const PlanStep& step) {
  int32_t binding = -1;
  int64_t binding_end_ns = 0;
  for (int32_t wait : step.waits_for) {
    if (wait < 0 || static_cast<size_t>(wait) >= evaluation.timeline.steps.size()) continue;
    const int64_t end_ns = evaluation.timeline.steps[wait].end_ns;
    if (binding < 0 || end_ns > binding_end_ns) {
      binding = wait;
      binding_end_ns = end_ns;
    }
  }
  return binding;
}

// Whether a cache op issued at `boundary` belongs to the decision's gap: (after, before], or,
// for a gap that wraps around a periodic plan's iteration end (after >= before), the part
// after `after` or the part up to `before`.
bool GapHolds(const Decision& decision, Step boundary) {
  if (decision.gap_after_step < decision.gap_before_step) {
    return decision.gap_after_step < boundary && boundary <= decision.gap_before_step;
  }
  return boundary > decision.gap_after_step || boundary <= decision.gap_before_step;
}

// Each transfer's offloaded decision (see the header), by plan step.
std::vector<int32_t> DecisionOfSteps(const Plan& plan) {
  std::map<ValueId, std::vector<int32_t>> offloaded;  // value -> decisions, in plan order
  for (size_t d = 0; d < plan.decisions.size(); ++d) {
    if (plan.decisions[d].reason != DecisionReason::kOffloaded) continue;
    offloaded[plan.decisions[d].value].push_back(static_cast<int32_t>(d));
  }
  std::vector<int32_t> decision_of_step(plan.steps.size(), -1);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const PlanStep& step = plan.steps[s];
    if (!IsTransfer(step)) continue;
    const auto found = offloaded.find(step.value);
    if (found == offloaded.end()) continue;
    for (int32_t d : found->second) {
      const Decision& decision = plan.decisions[d];
      if (GapHolds(decision, step.boundary)) {
        decision_of_step[s] = d;
        break;
      }
    }
    if (decision_of_step[s] < 0 && found->second.size() == 1) {
      decision_of_step[s] = found->second.front();
    }
  }
  return decision_of_step;
}

}  // namespace

StallAttribution AttributeStalls(const HardwareProfile& profile, const Plan& plan,
                                 const PlanEvaluation& evaluation) {
  StallAttribution result;
  result.binding_wait.assign(plan.steps.size(), -1);
  result.stall_ns_per_step.assign(plan.steps.size(), 0);
  result.decision_of_step = DecisionOfSteps(plan);
  result.stall_ns_per_decision.assign(plan.decisions.size(), 0);
  result.stall_ns_per_link.assign(profile.links.size(), 0);
  result.queued_ns_per_step.assign(plan.steps.size(), 0);
  for (size_t s = 0; s < plan.steps.size() && s < evaluation.timeline.steps.size(); ++s) {
    if (!IsTransfer(plan.steps[s])) continue;
    const int32_t wait = BindingWait(evaluation, plan.steps[s]);
    const int64_t ready_ns = wait >= 0 ? evaluation.timeline.steps[wait].end_ns : 0;
    result.queued_ns_per_step[s] =
        std::max<int64_t>(0, evaluation.timeline.steps[s].start_ns - ready_ns);
  }
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const int64_t stall_ns = StallOf(evaluation, plan.steps[s]);
    if (stall_ns <= 0) continue;
    result.total_ns += stall_ns;
    const int32_t wait = BindingWait(evaluation, plan.steps[s]);
    result.binding_wait[s] = wait;
    if (wait < 0 || !IsTransfer(plan.steps[wait])) {
      result.unattributed_ns += stall_ns;
      continue;
    }
    result.stall_ns_per_step[wait] += stall_ns;
    const int32_t link = plan.steps[wait].link;
    if (link >= 0 && static_cast<size_t>(link) < result.stall_ns_per_link.size()) {
      result.stall_ns_per_link[link] += stall_ns;
    }
    const int32_t decision = result.decision_of_step[wait];
    if (decision >= 0) result.stall_ns_per_decision[decision] += stall_ns;
  }
  return result;
}

std::vector<LayerStall> StallsByLayer(const Graph& graph, const Plan& plan,
                                      const PlanEvaluation& evaluation,
                                      const StallAttribution& attribution) {
  const WeightLayers layers = FindWeightLayers(graph, plan.order);
  // Visits are in step order; the visit holding a step is the last one starting at or before it.
  auto visit_layer = [&](Step step) {
    auto after = std::upper_bound(layers.visits.begin(), layers.visits.end(), step,
                                  [](Step s, const LayerVisit& visit) { return s < visit.first; });
    if (after == layers.visits.begin()) return -1;
    const LayerVisit& visit = *(after - 1);
    return step <= visit.last ? layers.number_of_rank[static_cast<size_t>(visit.rank)] : -1;
  };
  std::map<int, LayerStall> by_layer;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const int64_t stall_ns = StallOf(evaluation, plan.steps[s]);
    if (stall_ns <= 0) continue;
    int layer = visit_layer(plan.steps[s].boundary);
    const int32_t wait = attribution.binding_wait[s];
    if (layer < 0 && wait >= 0) {
      const ValueId value = plan.steps[wait].value;
      if (value >= 0 && static_cast<size_t>(value) < graph.values.size()) {
        layer = LayerOfWeight(graph.values[value].name);
      }
    }
    LayerStall& entry = by_layer[layer];
    entry.layer = layer;
    entry.stall_ns += stall_ns;
    ++entry.stalled_steps;
  }
  std::vector<LayerStall> ordered;
  for (const auto& [layer, entry] : by_layer) ordered.push_back(entry);
  std::stable_sort(ordered.begin(), ordered.end(), [](const LayerStall& a, const LayerStall& b) {
    return a.stall_ns > b.stall_ns;
  });
  return ordered;
}

}  // namespace hyperplan::report
