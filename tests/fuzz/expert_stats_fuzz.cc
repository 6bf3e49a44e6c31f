// Fuzz entry: an `--expert-stats FILE` routing profile (JSON, schemas/expert_stats.proto) as
// plan, fit and inspect read it: protobuf's JSON parse, then each layer's frequencies checked
// against and applied to a graph of two com.microsoft MoE nodes (layers 0 and 1, 8 experts,
// top 2) and a gather-form layer 2 (two expert Gathers of 8-expert tables by one top-2
// indices), so both the parser and the checks against the model run on every input.
// Cost per input: one scratch-file write, one JSON parse, O(listed frequencies).
#include "cli/expert_stats_flag.h"
#include "fuzz_support.h"

namespace {

hyperplan::ValueId NamedValue(hyperplan::Graph& graph, std::string name,
                              std::vector<int64_t> shape) {
  hyperplan::Value value;
  value.name = std::move(name);
  value.shape = std::move(shape);
  value.size_known = true;
  return hyperplan::AddValue(graph, std::move(value));
}

// Two MoE layers whose fc1 weights stack 8 experts, and a gather-form one of 8; each token
// picks k = 2.
hyperplan::Graph ThreeRoutedLayers() {
  using hyperplan::Graph;
  Graph graph;
  for (int layer = 0; layer < 2; ++layer) {
    const std::string prefix = "model.layers." + std::to_string(layer) + ".moe.";
    const hyperplan::ValueId input = NamedValue(graph, prefix + "input", {1, 16});
    const hyperplan::ValueId router = NamedValue(graph, prefix + "router_probs", {1, 8});
    const hyperplan::ValueId fc1 = NamedValue(graph, prefix + "fc1_experts_weights", {8, 32, 16});
    hyperplan::Node moe;
    moe.name = prefix + "MoE";
    moe.op_type = "MoE";
    moe.domain = "com.microsoft";
    moe.inputs = {input, router, fc1};
    moe.int_attributes["k"] = 2;
    hyperplan::AddNode(graph, moe);
  }
  // Layer 2 in the gather form: gate and up tables picked by the same [1, 1, 2] indices.
  const hyperplan::ValueId indices = NamedValue(graph, "topk_indices", {1, 1, 2});
  for (const char* table : {"gate_proj", "up_proj"}) {
    const std::string prefix = std::string("model.layers.2.mlp.experts.") + table;
    hyperplan::Node gather;
    gather.name = prefix + "/Gather";
    gather.op_type = "Gather";
    gather.inputs = {NamedValue(graph, prefix + ".weight", {8, 32, 16}), indices};
    gather.outputs = {NamedValue(graph, prefix + "/picked", {1, 1, 2, 32, 16})};
    hyperplan::AddNode(graph, gather);
  }
  return graph;
}

}  // namespace

int FuzzOne(const uint8_t* data, size_t size) {
  return hyperplan::fuzz::RunGuarded([&] {
    hyperplan::Graph graph = ThreeRoutedLayers();
    const std::string path =
        hyperplan::fuzz::WriteScratchFile(hyperplan::fuzz::AsText(data, size), ".json");
    hyperplan::cli::ApplyExpertStats(path, graph);
  });
}
