// Layers of weights by name, and their visits in an order (see layers.h).
#include "hyperplan/layers.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <utility>

namespace hyperplan {

namespace {

// Layer numbers stop growing here, so a long run of digits cannot overflow.
constexpr long kLayerNumberLimit = 1000L * 1000 * 1000;

struct LayerKey {
  int layer = -1;
  size_t rest = 0;  // where the name continues after "layers.N."
};

LayerKey FindLayerKey(std::string_view name) {
  constexpr std::string_view kKey = "layers.";
  for (size_t at = name.find(kKey); at != std::string_view::npos; at = name.find(kKey, at + 1)) {
    if (at > 0 && name[at - 1] != '.' && name[at - 1] != '/') continue;
    size_t end = at + kKey.size();
    long layer = 0;
    while (end < name.size() && name[end] >= '0' && name[end] <= '9' && layer < kLayerNumberLimit) {
      layer = layer * 10 + (name[end] - '0');
      ++end;
    }
    if (end > at + kKey.size() && end < name.size() && name[end] == '.') {
      return {static_cast<int>(layer), end + 1};
    }
  }
  return {};
}

bool Contains(std::string_view text, std::string_view token) {
  return text.find(token) != std::string_view::npos;
}

bool IsAnyOf(std::string_view text, std::initializer_list<std::string_view> words) {
  return std::find(words.begin(), words.end(), text) != words.end();
}

// The module right after "layers.N." ("mlp", "self_attn", "ffn_up", "input_layernorm") and
// the rest of the name from there.
WeightPart LayerPartOfModule(std::string_view module, std::string_view rest) {
  const bool norm = Contains(module, "norm");
  if (IsAnyOf(module, {"mlp", "feed_forward", "ffn", "block_sparse_moe", "moe", "experts"}) ||
      (module.starts_with("ffn_") && !norm) || Contains(rest, ".experts.")) {
    return WeightPart::kLayerMlp;
  }
  if (IsAnyOf(module, {"self_attn", "attention", "attn", "self_attention"}) ||
      (module.starts_with("attn_") && !norm)) {
    return WeightPart::kLayerAttention;
  }
  return WeightPart::kLayerOther;
}

}  // namespace

int LayerOfWeight(std::string_view name) { return FindLayerKey(name).layer; }

WeightPart WeightPartOfName(std::string_view name) {
  const LayerKey key = FindLayerKey(name);
  if (key.layer >= 0) {
    const std::string_view rest = name.substr(key.rest);
    return LayerPartOfModule(rest.substr(0, rest.find_first_of("./")), rest);
  }
  if (Contains(name, "lm_head") || Contains(name, "embed_out") || name == "output.weight") {
    return WeightPart::kLmHead;
  }
  for (std::string_view token :
       {"embed_tokens", "wte", "tok_embeddings", "embed_in", "word_embeddings"}) {
    if (Contains(name, token)) return WeightPart::kEmbedding;
  }
  return WeightPart::kNone;
}

namespace {

// Layer number by ValueId for weights of a layer that `order` reads; -1 for every other value.
// `first_use` gets each number's first reading step.
std::vector<int> NumberWeights(const Graph& graph, const std::vector<NodeId>& order,
                               std::map<int, Step>& first_use) {
  std::vector<Step> first_read(graph.values.size(), -1);
  for (Step k = static_cast<Step>(order.size()) - 1; k >= 0; --k) {
    for (ValueId input : graph.nodes[order[k]].inputs) first_read[input] = k;
  }
  std::vector<int> number_of_value(graph.values.size(), -1);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (value.producer != kNoNode || value.value_class != ValueClass::kWeight ||
        !value.size_known || value.bytes <= 0 || first_read[id] < 0) {
      continue;
    }
    const int number = LayerOfWeight(value.name);
    if (number < 0) continue;
    number_of_value[id] = number;
    auto [it, inserted] = first_use.emplace(number, first_read[id]);
    if (!inserted) it->second = std::min(it->second, first_read[id]);
  }
  return number_of_value;
}

// Ranks layer numbers by first use (ties: the lower number).
std::map<int, int> RankByFirstUse(const std::map<int, Step>& first_use,
                                  std::vector<int>& number_of_rank) {
  std::vector<std::pair<Step, int>> by_first_use;
  for (const auto& [number, step] : first_use) by_first_use.push_back({step, number});
  std::sort(by_first_use.begin(), by_first_use.end());
  std::map<int, int> rank_of_number;
  for (size_t r = 0; r < by_first_use.size(); ++r) {
    rank_of_number[by_first_use[r].second] = static_cast<int>(r);
    number_of_rank.push_back(by_first_use[r].second);
  }
  return rank_of_number;
}

std::vector<LayerVisit> FindVisits(const Graph& graph, const std::vector<NodeId>& order,
                                   const std::vector<int>& rank_of_value) {
  std::vector<LayerVisit> visits;
  for (Step k = 0; k < static_cast<Step>(order.size()); ++k) {
    for (ValueId input : graph.nodes[order[k]].inputs) {
      const int rank = rank_of_value[input];
      if (rank < 0) continue;
      if (visits.empty() || visits.back().rank != rank) visits.push_back({rank, k, k, {}});
      LayerVisit& visit = visits.back();
      visit.last = k;
      visit.weights.push_back(input);
    }
  }
  for (LayerVisit& visit : visits) {
    std::sort(visit.weights.begin(), visit.weights.end());
    visit.weights.erase(std::unique(visit.weights.begin(), visit.weights.end()),
                        visit.weights.end());
  }
  return visits;
}

}  // namespace

WeightLayers FindWeightLayers(const Graph& graph, const std::vector<NodeId>& order) {
  WeightLayers layers;
  std::map<int, Step> first_use;  // layer number -> first step reading it
  const std::vector<int> number_of_value = NumberWeights(graph, order, first_use);
  const std::map<int, int> rank_of_number = RankByFirstUse(first_use, layers.number_of_rank);
  layers.rank_of_value.assign(graph.values.size(), -1);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    if (number_of_value[id] >= 0) layers.rank_of_value[id] = rank_of_number.at(number_of_value[id]);
  }
  layers.visits = FindVisits(graph, order, layers.rank_of_value);
  return layers;
}

}  // namespace hyperplan
