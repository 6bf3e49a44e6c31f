// `hyperplan inspect` (see inspect_command.h).
#include "inspect_command.h"

#include <cstdio>
#include <memory>

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
  command->add_flag("--json", flags->json, "print the report as JSON (schemas/inspect.proto)");
  AddVerbosityFlags(*command);
  command->callback([flags] {
    const ModelInputs inputs = LoadModelInputs(flags->inputs);
    const InspectReport report = BuildInspectReport(inputs.graph, inputs.profile);
    const std::string text =
        flags->json
            ? FormatInspectJson(flags->inputs.model_path, inputs.graph, inputs.profile, report)
            : FormatInspectText(flags->inputs.model_path, inputs.graph, inputs.profile, report);
    std::fwrite(text.data(), 1, text.size(), stdout);
  });
}

}  // namespace hyperplan::cli
