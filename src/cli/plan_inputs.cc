// Plan inputs for verify and simulate (see plan_inputs.h).
#include "plan_inputs.h"

#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/adapters/profile_yaml.h"
#include "planio/plan_file.h"
#include "planio/plan_from_proto.h"
#include "planio/profile_proto.h"
#include "planio/sha256.h"
#include "verbosity.h"

namespace hyperplan::cli {

void AddPlanInputFlags(CLI::App& command, PlanInputFlags& flags, bool hw_required) {
  command.add_option("plan", flags.plan_path, "plan file (.pb or .json)")->required();
  command.add_option("--model", flags.model_path, "the ONNX model the plan was made for")
      ->required();
  CLI::Option* hw = command.add_option(
      "--hw", flags.profile_path,
      hw_required ? "hardware profile to replay on: a shipped profile's name or a YAML file"
                  : "hardware profile: a shipped profile's name or a YAML file (default: the "
                    "profile recorded in the plan)");
  if (hw_required) hw->required();
  AddVerbosityFlags(command);
}

PlanInputs LoadPlanInputs(const PlanInputFlags& flags, bool fold_channels) {
  PlanInputs inputs;
  inputs.message = planio::ReadPlanFile(flags.plan_path);
  planio::CheckModelDigest(inputs.message, flags.plan_path, flags.model_path,
                           planio::Sha256FileHex(flags.model_path));
  inputs.profile = flags.profile_path.empty()
                       ? planio::ProfileFromProto(inputs.message, flags.plan_path)
                       : LoadProfile(flags.profile_path);
  inputs.graph = ImportOnnxModel(flags.model_path,
                                 planio::ImportOptionsFromProto(inputs.message, flags.plan_path));
  LogDiagnostics(flags.model_path, inputs.graph.warnings, inputs.graph.notes);
  const planio::ProfileMapping mapping =
      planio::MapProfile(inputs.message, flags.plan_path, inputs.profile);
  planio::FromProtoOptions options;
  options.fold_channels = fold_channels;
  inputs.plan = planio::PlanFromProto(inputs.message, flags.plan_path, inputs.graph, inputs.profile,
                                      mapping, options);
  return inputs;
}

}  // namespace hyperplan::cli
