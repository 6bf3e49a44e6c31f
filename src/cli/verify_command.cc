// `hyperplan verify` (see verify_command.h).
#include "verify_command.h"

#include <cstdio>
#include <memory>

#include "hyperplan/error.h"
#include "hyperplan/units.h"
#include "plan_inputs.h"
#include "planio/plan_check.h"
#include "subcommand.h"

namespace hyperplan::cli {
namespace {

void RunVerify(const PlanInputFlags& flags) {
  const PlanInputs inputs = LoadPlanInputs(flags, /*fold_channels=*/false);
  const planio::LoadedPlanCheck check =
      planio::CheckLoadedPlan(inputs.graph, inputs.profile, inputs.plan, inputs.recorded);
  if (!check.ok) throw Error(ErrorKind::kPlanFile, flags.plan_path + ": " + check.message);
  int64_t cache_ops = 0;
  for (const PlanStep& step : inputs.plan.steps) cache_ops += step.kind != StepKind::kCompute;
  const std::string line =
      flags.plan_path + ": ok: invariants 1-6 hold, every dependency is an explicit wait, and " +
      "the predictions match a replay on '" + inputs.profile.name + "' (" +
      std::to_string(inputs.plan.steps.size()) + " steps, " + std::to_string(cache_ops) +
      " cache ops, makespan " + FormatDuration(check.replay.makespan_ns) + ", arena " +
      FormatBytes(inputs.plan.layout.arena_bytes) + ")\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
  SayRecordedProfile(inputs);
}

}  // namespace

void AddVerifyCommand(CLI::App& app) {
  const auto [command, flags] = AddSubcommand<PlanInputFlags>(
      app, "verify", "Re-check every invariant of a plan file against its model and a profile",
      RunVerify);
  AddPlanInputFlags(*command, *flags);
}

}  // namespace hyperplan::cli
