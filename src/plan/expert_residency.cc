// Resident experts per MoE layer (see expert_residency.h).
#include "hyperplan/plan/expert_residency.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "hyperplan/layers.h"
#include "hyperplan/routed_fetch.h"
#include "hyperplan/routing_samples.h"

namespace hyperplan {
namespace {

// What the plan does with each value's device copy: routed, Prefetched whole, or neither.
struct DeviceFetches {
  std::set<ValueId> routed;
  std::set<ValueId> whole;
  std::set<NodeId> on_host;
};

DeviceFetches FindDeviceFetches(const HardwareProfile& profile, const Plan& plan) {
  DeviceFetches fetches;
  for (const PlanStep& step : plan.steps) {
    if (step.kind == StepKind::kCompute && step.unit == ComputeUnit::kHost) {
      fetches.on_host.insert(step.node);
    }
    if (step.kind != StepKind::kPrefetch || step.dst_tier != profile.device_tier) continue;
    (step.routed_by != kNoNode ? fetches.routed : fetches.whole).insert(step.value);
  }
  return fetches;
}

// A routed layer being counted: the stacked tensors of one MoE node, or of the expert Gathers
// of one router (gate, up, down and their scales pick the same experts).
struct RouterTally {
  MoeLayerExperts entry;
  std::vector<int64_t> held;  // by expert: how many of the tensors hold it the whole iteration
  int64_t tensors = 0;
  bool routed = false;
};

// Adds `node`'s stacked expert tensors to `tally`.
void CountNodeExperts(const Graph& graph, const Plan& plan, const DeviceFetches& fetches,
                      const WeightLayers& layers, NodeId node, RouterTally& tally) {
  for (ValueId input : graph.nodes[node].inputs) {
    const std::optional<RoutedOperand> operand = RoutedOperandOf(graph, node, input);
    if (!operand) continue;
    tally.held.resize(operand->routing.experts, 0);
    tally.entry.experts = operand->routing.experts;
    ++tally.tensors;
    if (layers.rank_of_value[input] >= 0 && tally.entry.layer < 0) {
      tally.entry.layer = layers.number_of_rank[layers.rank_of_value[input]];
    }
    tally.routed = tally.routed || fetches.routed.count(input) > 0;
    if (fetches.routed.count(input) == 0 && fetches.whole.count(input) == 0) {
      for (int64_t& count : tally.held) ++count;  // whole resident
      continue;
    }
    for (const ResidentInterval& block : plan.residency) {
      if (block.value != input) continue;
      for (int32_t e : block.experts) {
        if (e >= 0 && e < tally.entry.experts) ++tally.held[e];
      }
    }
  }
}

// "3 of 8 resident in MoE layers 1-2" for a run of layers with the same count.
std::string DescribeRun(const MoeLayerExperts& first, const MoeLayerExperts& last, int32_t nodes,
                        bool lead) {
  std::string where;
  if (first.layer < 0) {
    where = fmt::format("{} MoE node{} without a layer", nodes, nodes == 1 ? "" : "s");
  } else if (first.layer == last.layer) {
    where = fmt::format("{}layer {}", lead ? "MoE " : "", first.layer);
  } else {
    where = fmt::format("{}layers {}-{}", lead ? "MoE " : "", first.layer, last.layer);
  }
  return fmt::format("{} of {}{} in {}", first.resident, first.experts, lead ? " resident" : "",
                     where);
}

}  // namespace

std::vector<MoeLayerExperts> FindResidentExperts(const Graph& graph, const HardwareProfile& profile,
                                                 const Plan& plan) {
  const DeviceFetches fetches = FindDeviceFetches(profile, plan);
  const WeightLayers layers = FindWeightLayers(graph, plan.order);
  std::vector<RouterTally> tallies;
  std::map<NodeId, size_t> tally_of_draw;
  for (NodeId node : plan.order) {
    const std::optional<MoeRouting> routing = MoeRoutingOf(graph, node);
    if (!routing || fetches.on_host.count(node) > 0) continue;
    const auto [at, added] = tally_of_draw.emplace(routing->draw, tallies.size());
    if (added) {
      tallies.emplace_back();
      tallies.back().entry.node = node;
    }
    CountNodeExperts(graph, plan, fetches, layers, node, tallies[at->second]);
  }
  std::vector<MoeLayerExperts> found;
  for (RouterTally& tally : tallies) {
    if (!tally.routed) continue;
    for (int64_t count : tally.held) tally.entry.resident += count == tally.tensors ? 1 : 0;
    found.push_back(tally.entry);
  }
  return found;
}

std::string DescribeResidentExperts(const std::vector<MoeLayerExperts>& layers) {
  if (layers.empty()) return "";
  std::vector<std::string> runs;
  size_t first = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const bool run_ends = i + 1 == layers.size() || layers[i + 1].resident != layers[i].resident ||
                          layers[i + 1].experts != layers[i].experts ||
                          (layers[i].layer < 0) != (layers[i + 1].layer < 0) ||
                          (layers[i].layer >= 0 && layers[i + 1].layer != layers[i].layer + 1);
    if (!run_ends) continue;
    runs.push_back(
        DescribeRun(layers[first], layers[i], static_cast<int32_t>(i + 1 - first), runs.empty()));
    first = i + 1;
  }
  return fmt::format("experts: {}, the rest fetched after route", fmt::join(runs, ", "));
}

}  // namespace hyperplan
