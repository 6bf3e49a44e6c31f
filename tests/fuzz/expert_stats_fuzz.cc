// Fuzz entry: an `--expert-stats FILE` routing profile (JSON, schemas/expert_stats.proto) as
// plan, fit and inspect read it: protobuf's JSON parse, then each layer's frequencies checked
// against and applied to a graph of two com.microsoft MoE nodes (layers 0 and 1, 8 experts,
// top 2), so both the parser and the checks against the model run on every input.
// Cost per input: one scratch-file write, one JSON parse, O(listed frequencies).
#include "cli/expert_stats_flag.h"
#include "fuzz_support.h"

namespace {

hyperplan::ValueId NamedValue(hyperplan::Graph& graph, std::string name,
                              std::vector<int64_t> shape) {
  hyperplan::Value value;
  value.name = std::move(name);
  value.shape = std::move(shape);
  return hyperplan::AddValue(graph, std::move(value));
}

// Two MoE layers whose fc1 weights stack 8 experts; each token picks k = 2.
hyperplan::Graph TwoMoeLayers() {
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
  return graph;
}

}  // namespace

int FuzzOne(const uint8_t* data, size_t size) {
  return hyperplan::fuzz::RunGuarded([&] {
    hyperplan::Graph graph = TwoMoeLayers();
    const std::string path =
        hyperplan::fuzz::WriteScratchFile(hyperplan::fuzz::AsText(data, size), ".json");
    hyperplan::cli::ApplyExpertStats(path, graph);
  });
}
