// llama.cpp's -ngl placement with fit's dense rule (see llama_cpp_layers.h).
#include "contenders/llama_cpp_layers.h"

#include <fmt/format.h>

#include <map>
#include <utility>
#include <vector>

#include "hyperplan/planner/host_parts.h"

namespace hyperplan::contenders {
namespace {

// What fit places: the layers (those whose attention and MLP parts both can run on the host),
// each layer's attention and FFN parts by layer number, the embedding.
struct LayerSplit {
  std::vector<int> layers;                       // layer numbers, first first
  std::map<int, std::vector<NodeId>> attention;  // by layer number
  std::map<int, std::vector<NodeId>> ffn;
  std::vector<NodeId> always;  // the token embedding, when eligible
};

LayerSplit SplitLayers(const Problem& problem) {
  LayerSplit split;
  for (const HostPart& part : FindHostParts(problem)) {
    if (part.kind == HostPartKind::kAttention) split.attention[part.layer] = part.nodes;
    if (part.kind == HostPartKind::kMlp) split.ffn[part.layer] = part.nodes;
    if (part.kind == HostPartKind::kEmbedding) split.always = part.nodes;
  }
  for (const auto& [layer, nodes] : split.attention) {
    if (split.ffn.count(layer)) split.layers.push_back(layer);
  }
  return split;
}

// Configuration c (see the header): GPU layers and whether the layer before them is partial.
struct Fill {
  int gpu_layers = 0;
  bool partial = false;
};

Fill FillOf(int c) { return {c / 2, c % 2 == 1}; }

std::vector<NodeId> HostNodes(const LayerSplit& split, Fill fill) {
  std::vector<NodeId> nodes = split.always;
  const int cpu_layers = static_cast<int>(split.layers.size()) - fill.gpu_layers;
  for (int i = 0; i < cpu_layers; ++i) {
    const int layer = split.layers[i];
    const std::vector<NodeId>& ffn = split.ffn.at(layer);
    nodes.insert(nodes.end(), ffn.begin(), ffn.end());
    if (fill.partial && i == cpu_layers - 1) continue;  // its attention stays on the GPU
    const std::vector<NodeId>& attention = split.attention.at(layer);
    nodes.insert(nodes.end(), attention.begin(), attention.end());
  }
  return nodes;
}

int64_t PlacedPeak(const ContenderContext& context, const LayerSplit& split, Fill fill) {
  const Problem placed = PlaceUnits(context, HostUnitsFor(*context.graph, HostNodes(split, fill)));
  return placed.lifetimes.timeline.peak_bytes;
}

// The largest c whose placement fits, given that c = 0 does (the peak grows with c).
int MostFitting(const ContenderContext& context, const LayerSplit& split, int64_t budget_bytes) {
  int fits = 0;
  int misses = 2 * static_cast<int>(split.layers.size()) + 1;
  while (misses - fits > 1) {
    const int mid = fits + (misses - fits) / 2;
    if (PlacedPeak(context, split, FillOf(mid)) <= budget_bytes) {
      fits = mid;
    } else {
      misses = mid;
    }
  }
  return fits;
}

std::string Describe(const LayerSplit& split, Fill fill) {
  const int layers = static_cast<int>(split.layers.size());
  const int cpu_whole = layers - fill.gpu_layers - (fill.partial ? 1 : 0);
  std::string note = fmt::format("-ngl {}: {}/{} layers on the CPU",
                                 fill.gpu_layers + (fill.partial ? 1 : 0), cpu_whole, layers);
  if (fill.partial) {
    note += fmt::format(", layer {}'s FFN too", split.layers[cpu_whole]);
  }
  return note;
}

}  // namespace

PlacementResult LlamaCppLayersPlan(const ContenderContext& context, std::optional<int64_t> budget) {
  PlacementResult out;
  if (!context.profile->host_compute.present()) {
    out.note = "the profile has no host unit";
    return out;
  }
  const LayerSplit split = SplitLayers(context);
  out.pieces = static_cast<int>(split.layers.size());
  if (split.layers.empty()) {
    out.note = "not built: no layer whose attention and MLP can both run on the host";
    return out;
  }
  const int64_t budget_bytes = context.EffectiveBudget(budget);
  const int64_t all_cpu_peak = PlacedPeak(context, split, FillOf(0));
  if (all_cpu_peak > budget_bytes) {
    out.note = fmt::format(
        "not built: with every layer on the CPU the device still needs {:.1f} GB over {:.1f} GB",
        static_cast<double>(all_cpu_peak) / 1e9, static_cast<double>(budget_bytes) / 1e9);
    return out;
  }
  const Fill fill = FillOf(MostFitting(context, split, budget_bytes));
  out.host_pieces = out.pieces - fill.gpu_layers - (fill.partial ? 1 : 0);
  out.result = PlanPlacement(context, HostUnitsFor(*context.graph, HostNodes(split, fill)),
                             budget_bytes, "llama.cpp -ngl");
  out.note = Describe(split, fill);
  out.built = true;
  return out;
}

}  // namespace hyperplan::contenders
