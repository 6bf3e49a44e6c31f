// Fuzz entry: the bytes of a ModelProto, imported as `hyperplan inspect` imports a model file
// (with the dims hyperplan-gen's models declare bound, so seeds reach shape inference and
// sizing), then the inspect report in both renderings, then, for a graph of at most
// kMaxPlannedNodes nodes, `hyperplan plan --budget` on the default profile at half the
// no-offload peak: the planner and every contender (issue 32: a graph of no nodes made every
// contender throw an internal error, which import and inspect never reached).
// Cost per input: one import (linear in the model plus ONNX shape inference) and one report;
// for a small graph, one PlanBest (milliseconds at this size).
#include "cli/inspect_json.h"
#include "cli/inspect_text.h"
#include "contenders/portfolio.h"
#include "fuzz_support.h"
#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/inspect.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/loop.h"

namespace {

// The seeds' decode graphs are 27-60 nodes; a mutation rarely grows one past this.
constexpr size_t kMaxPlannedNodes = 128;

}  // namespace

int FuzzOne(const uint8_t* data, size_t size) {
  using namespace hyperplan;
  static const HardwareProfile profile = DefaultProfile();
  return fuzz::RunGuarded([&] {
    const std::string path = fuzz::WriteScratchFile(fuzz::AsText(data, size), ".onnx");
    const Graph graph = ImportOnnxModel(path, fuzz::FixedModelOptions());
    const InspectReport report = BuildInspectReport(graph, profile);
    cli::FormatInspectText(path, graph, profile, report);
    cli::FormatInspectJson(path, graph, profile, report);
    if (graph.nodes.size() > kMaxPlannedNodes) return;
    PlanOptions options;
    options.budget_bytes = AnalyzeLifetimes(graph, ModelOrder(graph)).timeline.peak_bytes / 2;
    options.aliases = FindAliases(graph, {});
    contenders::PlanBest(graph, profile, options);
  });
}
