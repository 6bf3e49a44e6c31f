// Which parts of the model run on the host (see host_placement.h).
#include "hyperplan/plan/host_placement.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "hyperplan/layers.h"

namespace hyperplan {
namespace {

constexpr size_t kMaxHostRuns = 8;

uint8_t LayerPartOfWeight(std::string_view name) {
  switch (WeightPartOfName(name)) {
    case WeightPart::kLayerMlp:
      return kHostMlp;
    case WeightPart::kLayerAttention:
      return kHostAttention;
    default:
      return kHostOtherLayerPart;
  }
}

bool IsWeightRead(const Value& value) {
  return value.producer == kNoNode && value.value_class == ValueClass::kWeight;
}

// A weight outside every layer, read by `node` on the host: the embedding's Gather, or a
// matmul over the (possibly tied) vocabulary matrix (WeightPartOfName, layers.h).
void AddOutsideWeight(const Node& node, const std::string& name, HostPlacement& placement) {
  const WeightPart part = WeightPartOfName(name);
  if (part == WeightPart::kEmbedding || part == WeightPart::kLmHead) {
    (node.op_type == "Gather" ? placement.embedding : placement.lm_head) = true;
  } else {
    placement.other_weights.push_back(name);
  }
}

void AddHostNode(const Graph& graph, NodeId id, HostPlacement& placement) {
  const Node& node = graph.nodes[id];
  for (ValueId input : node.inputs) {
    if (input < 0 || !IsWeightRead(graph.values[input])) continue;
    const std::string& name = graph.values[input].name;
    const int layer = LayerOfWeight(name);
    if (layer >= 0) {
      placement.layer_parts[layer] |= LayerPartOfWeight(name);
    } else {
      AddOutsideWeight(node, name, placement);
    }
  }
}

// "0-31 MLP" runs over consecutive layer numbers with the same parts.
std::vector<std::string> LayerRuns(const std::map<int, uint8_t>& layer_parts) {
  std::vector<std::string> runs;
  for (auto it = layer_parts.begin(); it != layer_parts.end();) {
    auto last = it;
    auto next = std::next(it);
    while (next != layer_parts.end() && next->first == last->first + 1 &&
           next->second == it->second) {
      last = next++;
    }
    runs.push_back(
        it->first == last->first
            ? fmt::format("{} {}", it->first, HostLayerPartNames(it->second))
            : fmt::format("{}-{} {}", it->first, last->first, HostLayerPartNames(it->second)));
    it = next;
  }
  return runs;
}

// "40 layers: 30 MLP, 10 attention", parts in order of first appearance.
std::string CountLayerParts(const std::map<int, uint8_t>& layer_parts) {
  std::vector<std::pair<uint8_t, int>> counts;
  for (const auto& [layer, parts] : layer_parts) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [parts = parts](const auto& entry) { return entry.first == parts; });
    if (it == counts.end()) it = counts.insert(counts.end(), {parts, 0});
    ++it->second;
  }
  std::vector<std::string> items;
  for (const auto& [parts, count] : counts) {
    items.push_back(fmt::format("{} {}", count, HostLayerPartNames(parts)));
  }
  return fmt::format("{} layers: {}", layer_parts.size(), fmt::join(items, ", "));
}

std::string DescribeLayers(const std::map<int, uint8_t>& layer_parts) {
  const std::vector<std::string> runs = LayerRuns(layer_parts);
  if (runs.size() > kMaxHostRuns) return CountLayerParts(layer_parts);
  return fmt::format("{} {}", layer_parts.size() == 1 ? "layer" : "layers", fmt::join(runs, ", "));
}

// "norm", "a, b and c", "a, b, c and 2 more".
std::string DescribeOtherWeights(const std::vector<std::string>& names) {
  constexpr size_t kNamesShown = 3;
  if (names.size() == 1) return names[0];
  if (names.size() <= kNamesShown) {
    return fmt::format("{} and {}", fmt::join(names.begin(), names.end() - 1, ", "), names.back());
  }
  return fmt::format("{} and {} more", fmt::join(names.begin(), names.begin() + kNamesShown, ", "),
                     names.size() - kNamesShown);
}

}  // namespace

HostPlacement FindHostPlacement(const Graph& graph, const Plan& plan) {
  HostPlacement placement;
  for (const PlanStep& step : plan.steps) {
    if (step.kind != StepKind::kCompute || step.unit != ComputeUnit::kHost) continue;
    if (step.node < 0 || static_cast<size_t>(step.node) >= graph.nodes.size()) continue;
    ++placement.host_nodes;
    AddHostNode(graph, step.node, placement);
  }
  std::vector<std::string>& others = placement.other_weights;
  std::sort(others.begin(), others.end());
  others.erase(std::unique(others.begin(), others.end()), others.end());
  return placement;
}

std::vector<std::string> HostLayerPartList(uint8_t parts) {
  std::vector<std::string> names;
  if (parts & kHostMlp) names.emplace_back("MLP");
  if (parts & kHostAttention) names.emplace_back("attention");
  if (parts & kHostOtherLayerPart) names.emplace_back("norms");
  return names;
}

std::string HostLayerPartNames(uint8_t parts) {
  std::vector<std::string> names = HostLayerPartList(parts);
  if (names.empty()) return "";
  if (names.size() == 1) return names[0];
  const std::string last = names.back();
  names.pop_back();
  return fmt::format("{} and {}", fmt::join(names, ", "), last);
}

std::string DescribeHostPlacement(const HostPlacement& placement) {
  if (placement.empty()) return "";
  std::vector<std::string> items;
  if (!placement.layer_parts.empty()) items.push_back(DescribeLayers(placement.layer_parts));
  if (placement.embedding) items.emplace_back("embedding");
  if (placement.lm_head) items.emplace_back("LM head");
  if (!placement.other_weights.empty()) {
    items.push_back(DescribeOtherWeights(placement.other_weights));
  }
  if (items.empty()) {
    return fmt::format("{} node{} on the host", placement.host_nodes,
                       placement.host_nodes == 1 ? "" : "s");
  }
  return fmt::format("{} on the host", fmt::join(items, ", "));
}

std::array<UnitTimes, 2> TimesPerUnit(const Plan& plan, const SimulationResult& timeline) {
  std::array<UnitTimes, 2> units{};
  for (const PlanStep& step : plan.steps) {
    if (step.kind != StepKind::kCompute || step.node < 0 ||
        static_cast<size_t>(step.node) >= timeline.stall_ns_per_node.size() ||
        static_cast<size_t>(step.node) >= plan.node_time_ns.size()) {
      continue;
    }
    UnitTimes& unit = units[step.unit == ComputeUnit::kHost ? 1 : 0];
    ++unit.nodes;
    unit.compute_ns += plan.node_time_ns[step.node];
    unit.stall_ns += timeline.stall_ns_per_node[step.node];
  }
  return units;
}

std::vector<bool> HostOnlyValues(const Graph& graph, const Plan& plan) {
  std::vector<bool> host_read(graph.values.size(), false);
  std::vector<bool> device_read(graph.values.size(), false);
  for (const PlanStep& step : plan.steps) {
    if (step.kind != StepKind::kCompute || step.node < 0 ||
        static_cast<size_t>(step.node) >= graph.nodes.size()) {
      continue;
    }
    std::vector<bool>& read = step.unit == ComputeUnit::kHost ? host_read : device_read;
    for (ValueId input : graph.nodes[step.node].inputs) {
      if (input >= 0 && static_cast<size_t>(input) < read.size()) read[input] = true;
    }
  }
  for (size_t v = 0; v < host_read.size(); ++v) host_read[v] = host_read[v] && !device_read[v];
  return host_read;
}

}  // namespace hyperplan
