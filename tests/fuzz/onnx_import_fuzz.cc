// Fuzz entry: the bytes of a ModelProto, imported as `hyperplan inspect` imports a model file
// (with the dims hyperplan-gen's models declare bound, so seeds reach shape inference and
// sizing), then the inspect report in both renderings.
// Cost per input: one import (linear in the model plus ONNX shape inference) and one report.
#include "cli/inspect_json.h"
#include "cli/inspect_text.h"
#include "fuzz_support.h"
#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/inspect.h"

int FuzzOne(const uint8_t* data, size_t size) {
  using namespace hyperplan;
  static const HardwareProfile profile = DefaultProfile();
  return fuzz::RunGuarded([&] {
    const std::string path = fuzz::WriteScratchFile(fuzz::AsText(data, size), ".onnx");
    const Graph graph = ImportOnnxModel(path, fuzz::FixedModelOptions());
    const InspectReport report = BuildInspectReport(graph, profile);
    cli::FormatInspectText(path, graph, profile, report);
    cli::FormatInspectJson(path, graph, profile, report);
  });
}
