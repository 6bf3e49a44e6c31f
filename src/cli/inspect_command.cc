// `hyperplan inspect` (see inspect_command.h).
#include "inspect_command.h"

#include <cstdio>
#include <memory>

#include "expert_stats_flag.h"
#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/error.h"
#include "hyperplan/inspect.h"
#include "inspect_json.h"
#include "inspect_text.h"
#include "model_inputs.h"
#include "verbosity.h"

namespace hyperplan::cli {

void AddInspectCommand(CLI::App& app) {
  struct Flags {
    ModelInputFlags inputs;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* command = app.add_subcommand(
      "inspect", "Show a model's values by class, its no-offload memory peak and compute time");
  AddModelInputFlags(*command, flags->inputs);
  AddExpertStatsFlag(*command, flags->inputs.expert_stats_path);
  command->add_flag("--json", flags->json, "print the report as JSON (schemas/inspect.proto)");
  AddVerbosityFlags(*command);
  command->callback([flags] {
    // With dims unbound, the report shows what is known and lists every dim to bind; the run
    // still fails (exit 4), after printing it.
    const ModelInputs inputs = LoadModelInputs(flags->inputs, /*allow_unbound_dims=*/true);
    const InspectReport report = BuildInspectReport(inputs.graph, inputs.profile);
    const std::string text =
        flags->json
            ? FormatInspectJson(flags->inputs.model_path, inputs.graph, inputs.profile, report)
            : FormatInspectText(flags->inputs.model_path, inputs.graph, inputs.profile, report);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    if (!inputs.graph.unbound_dims.empty()) {
      throw Error(ErrorKind::kModel,
                  flags->inputs.model_path + ": " + UnboundDimsProblem(inputs.graph.unbound_dims));
    }
  });
}

}  // namespace hyperplan::cli
