// --expert-stats (see expert_stats_flag.h).
#include "expert_stats_flag.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "core/expert_gather.h"
#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/error.h"
#include "hyperplan/layers.h"
#include "hyperplan/text_file.h"
#include "schemas/expert_stats.pb.h"

namespace hyperplan::cli {

namespace {

namespace pb = hyperplan::expert_stats::v1;

constexpr double kSumTolerance = 0.01;  // measured counts sum to k exactly; rounding in a file

[[noreturn]] void Fail(const std::string& path, const std::string& message) {
  throw Error(ErrorKind::kInputFile, fmt::format("{}: {}", path, message));
}

// The routed nodes of one layer a profile's entry applies to: its com.microsoft MoE/QMoE
// nodes (found by their fc1 weight's "layers.N."), or the gather form's expert Gathers (by
// their table's), with the experts and picks per token each reads.
struct RoutedLayer {
  std::vector<NodeId> moe_nodes;
  int64_t moe_experts = 0;  // the last MoE node's E and k (used when it is the only one)
  int64_t moe_experts_per_token = 1;
  std::vector<NodeId> gathers;
  std::set<int64_t> gather_experts;            // E of each Gather (one value when they agree)
  std::set<int64_t> gather_experts_per_token;  // k of each
};

// What one entry of the file applies to: the nodes, and the experts and picks they share.
struct LayerTarget {
  const std::vector<NodeId>* nodes = nullptr;
  int64_t experts = 0;
  int64_t experts_per_token = 1;
  const char* reads = "";  // "MoE node stacks" or "expert Gathers pick from", for messages
};

void AddMoeNode(const Graph& graph, NodeId id, std::map<int64_t, RoutedLayer>& layers) {
  const Node& node = graph.nodes[id];
  if (node.domain != "com.microsoft" || (node.op_type != "MoE" && node.op_type != "QMoE") ||
      node.inputs.size() < 3) {
    return;
  }
  const Value& fc1 = graph.values[node.inputs[2]];
  const int layer = LayerOfWeight(fc1.name);
  if (layer < 0 || fc1.shape.empty()) return;
  RoutedLayer& entry = layers[layer];
  entry.moe_nodes.push_back(id);
  entry.moe_experts = fc1.shape[0];
  const auto k = node.int_attributes.find("k");
  entry.moe_experts_per_token = k == node.int_attributes.end() ? 1 : k->second;
}

// An expert Gather (core/expert_gather.h: its indices' size must be known, the dims bound).
void AddExpertGather(const Graph& graph, NodeId id, std::map<int64_t, RoutedLayer>& layers) {
  const std::optional<cost_rules::ExpertGatherShape> shape =
      cost_rules::DescribeExpertGather(graph, graph.nodes[id]);
  if (!shape) return;
  const int layer = LayerOfWeight(graph.values[shape->table].name);
  if (layer < 0) return;
  RoutedLayer& entry = layers[layer];
  entry.gathers.push_back(id);
  entry.gather_experts.insert(shape->experts);
  entry.gather_experts_per_token.insert(shape->experts_per_token);
}

std::map<int64_t, RoutedLayer> RoutedLayers(const Graph& graph) {
  std::map<int64_t, RoutedLayer> layers;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    AddMoeNode(graph, static_cast<NodeId>(n), layers);
    AddExpertGather(graph, static_cast<NodeId>(n), layers);
  }
  return layers;
}

std::string Count(size_t count, const char* noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

// protobuf's parse errors span lines (the text, a caret); an error here is one line.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '^')) text.pop_back();
  return text;
}

pb::ExpertStats ReadStats(const std::string& path) {
  const std::string text = ReadTextFile(path);
  pb::ExpertStats stats;
  const auto status = google::protobuf::util::JsonStringToMessage(text, &stats);
  if (!status.ok())
    Fail(path, fmt::format("not an expert-stats JSON file (schemas/expert_stats.proto): {}",
                           OneLine(std::string(status.message()))));
  if (stats.source().empty())
    Fail(path, "field 'source': missing (say where the frequencies come from)");
  return stats;
}

// The nodes `layers[index]` applies to: the layer's one MoE/QMoE node (as before the gather
// form was matched, whatever Gathers sit beside it), else every expert Gather of the layer,
// these picking from tables of one expert count by one k.
// An expert Gather is recognised by its indices' size (expert_gather.h), so in a model whose
// dims are unbound (inspect without --dim) no Gather is found: a refusal says so.
LayerTarget TargetOf(const std::string& path, int index, const pb::LayerStats& layer,
                     const RoutedLayer* found, const Graph& graph) {
  const std::string field = fmt::format("layers[{}].layer", index);
  const size_t moe = found == nullptr ? 0 : found->moe_nodes.size();
  const size_t gathers = found == nullptr ? 0 : found->gathers.size();
  const std::string unbound =
      graph.unbound_dims.empty() ? ""
                                 : "; expert Gathers are found only with the model's dims bound: " +
                                       UnboundDimsProblem(graph.unbound_dims);
  if (moe != 1 && !(moe == 0 && gathers > 0))
    Fail(path, fmt::format("field '{}': layer {} has {} and {} (expert stats apply to one "
                           "fused MoE node per layer, or to the expert Gathers of the gather "
                           "form){}",
                           field, layer.layer(), Count(moe, "com.microsoft MoE/QMoE node"),
                           Count(gathers, "expert Gather"), unbound));
  if (moe == 1) {
    return {&found->moe_nodes, found->moe_experts, found->moe_experts_per_token, "MoE node stacks"};
  }
  if (found->gather_experts.size() != 1 || found->gather_experts_per_token.size() != 1)
    Fail(path, fmt::format("field '{}': layer {}'s expert Gathers disagree: tables of {} "
                           "experts, {} picks per token",
                           field, layer.layer(), fmt::join(found->gather_experts, " and "),
                           fmt::join(found->gather_experts_per_token, " and ")));
  return {&found->gathers, *found->gather_experts.begin(), *found->gather_experts_per_token.begin(),
          "expert Gathers pick from"};
}

// The frequencies of `layers[index]`, checked against the nodes they apply to.
void CheckLayer(const std::string& path, int index, const pb::LayerStats& layer,
                const LayerTarget& target) {
  const std::string field = fmt::format("layers[{}].frequency", index);
  const int64_t experts = target.experts;
  const int64_t experts_per_token = target.experts_per_token;
  if (layer.frequency_size() != experts)
    Fail(path, fmt::format("field '{}': {} values, but layer {}'s {} {} experts", field,
                           layer.frequency_size(), layer.layer(), target.reads, experts));
  double sum = 0.0;
  for (int e = 0; e < layer.frequency_size(); ++e) {
    const double f = layer.frequency(e);
    if (!(f >= 0.0 && f <= 1.0))
      Fail(path,
           fmt::format("field '{}[{}]': {} is not a fraction of tokens in [0, 1]", field, e, f));
    sum += f;
  }
  const double k = static_cast<double>(experts_per_token);
  if (std::abs(sum - k) > kSumTolerance * k)
    Fail(path, fmt::format("field '{}': sums to {:.4f}, but each token selects k = {} experts, "
                           "so the fractions sum to {}",
                           field, sum, experts_per_token, experts_per_token));
}

}  // namespace

void AddExpertStatsFlag(CLI::App& command, std::string& path) {
  command.add_option("--expert-stats", path,
                     "MoE routing profile, JSON (schemas/expert_stats.proto): per layer, each "
                     "expert's selection frequency; MoE/QMoE nodes and the gather form's expert "
                     "Gathers read the experts it makes likely instead of assuming uniform "
                     "routing");
}

int ApplyExpertStats(const std::string& path, Graph& graph) {
  if (path.empty()) return 0;
  const pb::ExpertStats stats = ReadStats(path);
  const std::map<int64_t, RoutedLayer> layers = RoutedLayers(graph);
  for (int i = 0; i < stats.layers_size(); ++i) {
    const pb::LayerStats& layer = stats.layers(i);
    const auto found = layers.find(layer.layer());
    const LayerTarget target =
        TargetOf(path, i, layer, found == layers.end() ? nullptr : &found->second, graph);
    CheckLayer(path, i, layer, target);
    if (graph.expert_selection.count(graph.nodes[target.nodes->front()].name) != 0)
      Fail(path,
           fmt::format("field 'layers[{}].layer': layer {} is listed twice", i, layer.layer()));
    for (NodeId node : *target.nodes) {
      graph.expert_selection[graph.nodes[node].name].assign(layer.frequency().begin(),
                                                            layer.frequency().end());
    }
  }
  return stats.layers_size();
}

}  // namespace hyperplan::cli
