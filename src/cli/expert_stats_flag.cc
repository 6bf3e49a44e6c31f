// --expert-stats (see expert_stats_flag.h).
#include "expert_stats_flag.h"

#include <fmt/format.h>
#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <map>

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

struct MoeNode {
  NodeId id = kNoNode;
  int64_t experts = 0;
  int64_t experts_per_token = 1;
  int count = 0;  // MoE nodes found in the layer
};

// The MoE/QMoE nodes by layer number (their fc1 weight's "layers.N.").
std::map<int64_t, MoeNode> MoeNodesByLayer(const Graph& graph) {
  std::map<int64_t, MoeNode> nodes;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (node.domain != "com.microsoft" || (node.op_type != "MoE" && node.op_type != "QMoE") ||
        node.inputs.size() < 3) {
      continue;
    }
    const Value& fc1 = graph.values[node.inputs[2]];
    const int layer = LayerOfWeight(fc1.name);
    if (layer < 0 || fc1.shape.empty()) continue;
    MoeNode& entry = nodes[layer];
    entry.id = static_cast<NodeId>(n);
    entry.experts = fc1.shape[0];
    const auto k = node.int_attributes.find("k");
    entry.experts_per_token = k == node.int_attributes.end() ? 1 : k->second;
    ++entry.count;
  }
  return nodes;
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

// The frequencies of `layers[index]`, checked against the node they apply to.
void CheckLayer(const std::string& path, int index, const pb::LayerStats& layer,
                const MoeNode& node) {
  const std::string field = fmt::format("layers[{}].frequency", index);
  if (layer.frequency_size() != node.experts)
    Fail(path, fmt::format("field '{}': {} values, but layer {}'s MoE node stacks {} experts",
                           field, layer.frequency_size(), layer.layer(), node.experts));
  double sum = 0.0;
  for (int e = 0; e < layer.frequency_size(); ++e) {
    const double f = layer.frequency(e);
    if (!(f >= 0.0 && f <= 1.0))
      Fail(path,
           fmt::format("field '{}[{}]': {} is not a fraction of tokens in [0, 1]", field, e, f));
    sum += f;
  }
  const double k = static_cast<double>(node.experts_per_token);
  if (std::abs(sum - k) > kSumTolerance * k)
    Fail(path, fmt::format("field '{}': sums to {:.4f}, but each token selects k = {} experts, "
                           "so the fractions sum to {}",
                           field, sum, node.experts_per_token, node.experts_per_token));
}

}  // namespace

void AddExpertStatsFlag(CLI::App& command, std::string& path) {
  command.add_option("--expert-stats", path,
                     "MoE routing profile, JSON (schemas/expert_stats.proto): per layer, each "
                     "expert's selection frequency; MoE/QMoE nodes read the experts it makes "
                     "likely instead of assuming uniform routing");
}

int ApplyExpertStats(const std::string& path, Graph& graph) {
  if (path.empty()) return 0;
  const pb::ExpertStats stats = ReadStats(path);
  const std::map<int64_t, MoeNode> nodes = MoeNodesByLayer(graph);
  for (int i = 0; i < stats.layers_size(); ++i) {
    const pb::LayerStats& layer = stats.layers(i);
    const auto found = nodes.find(layer.layer());
    if (found == nodes.end() || found->second.count != 1)
      Fail(path, fmt::format("field 'layers[{}].layer': layer {} has {} com.microsoft MoE/QMoE "
                             "node{} (expert stats apply to one fused MoE node per layer)",
                             i, layer.layer(), found == nodes.end() ? 0 : found->second.count,
                             found == nodes.end() || found->second.count != 1 ? "s" : ""));
    CheckLayer(path, i, layer, found->second);
    const std::string& name = graph.nodes[found->second.id].name;
    if (graph.expert_selection.count(name) != 0)
      Fail(path,
           fmt::format("field 'layers[{}].layer': layer {} is listed twice", i, layer.layer()));
    graph.expert_selection[name].assign(layer.frequency().begin(), layer.frequency().end());
  }
  return stats.layers_size();
}

}  // namespace hyperplan::cli
