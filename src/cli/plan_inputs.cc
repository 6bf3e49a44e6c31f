// Plan inputs for verify and simulate (see plan_inputs.h).
#include "plan_inputs.h"

#include <fmt/core.h>

#include <cstdio>

#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/cost.h"
#include "hyperplan/error.h"
#include "hyperplan/host_cost.h"
#include "hyperplan/loop.h"
#include "model_inputs.h"
#include "onnx_rewrite/model_binding.h"
#include "planio/plan_digest.h"
#include "planio/plan_file.h"
#include "planio/plan_from_proto.h"
#include "planio/profile_proto.h"
#include "planio/sha256.h"
#include "verbosity.h"

namespace hyperplan::cli {

void AddPlanInputFlags(CLI::App& command, PlanInputFlags& flags) {
  command.add_option("plan", flags.plan_path, "plan file (.pb or .json)")->required();
  command.add_option("--model", flags.model_path, "the ONNX model the plan was made for")
      ->required();
  command.add_option("--hw", flags.profile_path,
                     "hardware profile: a shipped profile's name or a YAML file (default: the "
                     "profile recorded in the plan)");
  AddVerbosityFlags(command);
  command
      .add_option("--dim", flags.dim_flags,
                  "a dim the model will run at, NAME=VALUE (repeatable); refused unless the "
                  "plan was made for it")
      ->check(CLI::Validator(ValidateDim, "NAME=VALUE", "dim"))
      ->take_all()
      ->allow_extra_args(false);
}

namespace {

// --hw, else the profile recorded in the plan; which one is noted for SayRecordedProfile when
// it was not asked for, so a replay on the planning machine is never taken for another.
HardwareProfile LoadProfileOrRecorded(const PlanInputFlags& flags, const plan::v1::Plan& message,
                                      std::string& note) {
  if (!flags.profile_path.empty()) return LoadProfile(flags.profile_path);
  HardwareProfile profile = planio::ProfileFromProto(message, flags.plan_path);
  note = fmt::format("hyperplan: profile '{}' as recorded in {} (--hw picks another)\n",
                     profile.name, flags.plan_path);
  return profile;
}

}  // namespace

PlanInputs LoadPlanInputs(const PlanInputFlags& flags, bool fold_channels) {
  PlanInputs inputs;
  inputs.message = planio::ReadPlanFile(flags.plan_path);
  onnx_rewrite::CheckRunDims(inputs.message, flags.plan_path, ParseDims(flags.dim_flags));
  ImportOptions import = planio::ImportOptionsFromProto(inputs.message, flags.plan_path);
  const std::string model_sha256 = planio::Sha256FileHex(flags.model_path);
  if (model_sha256 != inputs.message.provenance().model_sha256()) {
    onnx_rewrite::ModelBinding binding;
    try {
      binding = onnx_rewrite::ReadModelBinding(flags.model_path);
    } catch (const Error& error) {
      // Not a model at all: "made for another model" below says more than a parse error.
      if (error.kind() != ErrorKind::kModel) throw;
    }
    if (!binding.rewritten) {
      planio::CheckModelDigest(inputs.message, flags.plan_path, flags.model_path, model_sha256);
    }
    const std::string plan_sha256 = planio::PlanSha256(inputs.message);
    onnx_rewrite::CheckRewrittenModel(inputs.message,
                                      {flags.plan_path, plan_sha256, flags.model_path}, binding);
    import.read_through_cache_ops = true;
  }
  inputs.profile = LoadProfileOrRecorded(flags, inputs.message, inputs.recorded_profile_note);
  inputs.graph = ImportOnnxModel(flags.model_path, import);
  LogDiagnostics(flags.model_path, inputs.graph.warnings, inputs.graph.notes);
  const planio::ProfileMapping mapping =
      planio::MapProfile(inputs.message, flags.plan_path, inputs.profile);
  planio::FromProtoOptions options;
  options.fold_channels = fold_channels;
  EvaluatedPlan read = planio::PlanFromProto(inputs.message, flags.plan_path, inputs.graph,
                                             inputs.profile, mapping, options);
  inputs.plan = std::move(read.plan);
  inputs.recorded = std::move(read.evaluation);
  return inputs;
}

void EstimateNodeTimes(PlanInputs& inputs) {
  const Plan& plan = inputs.plan;
  const std::vector<NodeCost> costs =
      plan.periodic
          ? EstimateLoopCosts(inputs.graph, LoopGraph(inputs.graph, plan.aliases), inputs.profile)
          : EstimateCosts(inputs.graph, inputs.profile);
  for (size_t n = 0; n < costs.size(); ++n) inputs.plan.node_time_ns[n] = costs[n].time_ns;
  // A host step takes the host's roofline (the planner's: planner/problem.h PlaceUnits), and
  // its device time is what the no-offload baseline counts.
  for (PlanStep& step : inputs.plan.steps) {
    if (step.kind != StepKind::kCompute || step.unit != ComputeUnit::kHost) continue;
    step.device_time_ns = inputs.plan.node_time_ns[step.node];
    inputs.plan.node_time_ns[step.node] =
        EstimateHostNodeCost(inputs.graph, inputs.graph.nodes[step.node], inputs.profile).time_ns;
  }
}

void SayRecordedProfile(const PlanInputs& inputs) {
  if (inputs.recorded_profile_note.empty() || QuietRequested()) return;
  std::fwrite(inputs.recorded_profile_note.data(), 1, inputs.recorded_profile_note.size(), stderr);
}

}  // namespace hyperplan::cli
