// `hyperplan run` (see run_command.h).
//
// Output (deterministic unless --timed): the plan, profile and iteration count; the buffers;
// what was checked per iteration; then "ok". With --timed, the measured makespan per
// iteration (the fastest of the iterations, and their mean) next to the simulated one and
// their ratio.
#include "run_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>

#include "executor/executor.h"
#include "executor/host_backend.h"
#include "hyperplan/cost.h"
#include "hyperplan/error.h"
#include "hyperplan/plan/simulate.h"
#include "hyperplan/units.h"
#include "plan_inputs.h"

namespace hyperplan::cli {
namespace {

struct RunFlags {
  PlanInputFlags inputs;
  int32_t iterations = 1;
  bool timed = false;
  double time_scale = 1.0;
  std::string check = "full";
  std::string max_memory = "4GiB";
};

std::string ValidateSize(const std::string& text) {
  try {
    ParseQuantity(text, Quantity::kBytes);
    return "";
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
}

// Refuses, before allocating anything, buffers larger than --max-memory.
void CheckMemory(const RunFlags& flags, const Plan& plan) {
  const int64_t limit_bytes = ParseQuantity(flags.max_memory, Quantity::kBytes);
  const int64_t needed_bytes = executor::PlanBufferBytes(plan);
  if (needed_bytes <= limit_bytes) return;
  throw Error(ErrorKind::kUsage,
              fmt::format("{}: running it needs {} of buffers (arena {} plus the tier buffers), "
                          "over --max-memory {}; raise --max-memory to run it anyway",
                          flags.inputs.plan_path, FormatBytes(needed_bytes),
                          FormatBytes(plan.layout.arena_bytes), FormatBytes(limit_bytes)));
}

std::string TimingLines(const executor::ExecutionReport& report, int64_t simulated_ns,
                        double time_scale) {
  const std::vector<int64_t>& measured = report.iteration_ns;
  const int64_t fastest_ns = *std::min_element(measured.begin(), measured.end());
  const int64_t mean_ns = std::accumulate(measured.begin(), measured.end(), int64_t{0}) /
                          static_cast<int64_t>(measured.size());
  const double ratio = simulated_ns > 0 ? static_cast<double>(fastest_ns) / simulated_ns : 0.0;
  return fmt::format(
      "  timed (x{} wall time per planned ns): measured makespan {} per iteration (fastest of "
      "{}; mean {}), simulated {}, measured/simulated {:.3f}\n",
      time_scale, FormatDuration(fastest_ns), measured.size(), FormatDuration(mean_ns),
      FormatDuration(simulated_ns), ratio);
}

void RunPlan(const RunFlags& flags) {
  PlanInputs inputs = LoadPlanInputs(flags.inputs, /*fold_channels=*/true);
  // Node times on this profile, as `simulate` replays them: what timing mode holds steps for.
  const std::vector<NodeCost> costs = EstimateCosts(inputs.graph, inputs.profile);
  for (size_t n = 0; n < costs.size(); ++n) inputs.plan.node_time_ns[n] = costs[n].time_ns;
  CheckMemory(flags, inputs.plan);
  executor::HostBackend backend(flags.check == "sampled" ? executor::CheckMode::kSampled
                                                         : executor::CheckMode::kFull);
  executor::ExecuteOptions options;
  options.iterations = flags.iterations;
  options.timed = flags.timed;
  options.time_scale = flags.time_scale;
  const executor::ExecutionReport report =
      executor::Execute(inputs.graph, inputs.profile, inputs.plan, backend, options);

  const Plan& plan = inputs.plan;
  std::string out = fmt::format(
      "run of {} on '{}': {} iteration{} of {} steps on {} streams{}\n", flags.inputs.plan_path,
      inputs.profile.name, flags.iterations, flags.iterations == 1 ? "" : "s", plan.steps.size(),
      report.stream_count, plan.periodic ? ", from the cold start" : " (one-shot plan)");
  out += fmt::format("  buffers: {} in host memory (device arena {}, {} tier buffer{})\n",
                     FormatBytes(report.buffer_bytes), FormatBytes(plan.layout.arena_bytes),
                     plan.tier_buffers.size(), plan.tier_buffers.size() == 1 ? "" : "s");
  const int64_t runs = std::max(report.iterations_run, 1);
  const int64_t outputs_read = report.outputs_checked / runs;
  out += fmt::format(
      "  per iteration: {} inputs checked ({} check), {} transfers moving {}, {} detaches, "
      "graph outputs read back from {} block{}\n",
      report.inputs_checked / runs, flags.check, report.transfers / runs,
      FormatBytes(report.bytes_copied / runs), report.detaches / runs, outputs_read,
      outputs_read == 1 ? "" : "s");
  if (report.ok && flags.timed) {
    const SimulationResult replay = Simulate(inputs.graph, inputs.profile, plan);
    out += TimingLines(report, replay.makespan_ns, flags.time_scale);
  }
  if (report.ok) out += "ok: every step ran in an order the waits allow, on the bytes it needed\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (!report.ok) {
    throw Error(ErrorKind::kViolation,
                fmt::format("{}: {}", flags.inputs.plan_path, report.violation));
  }
}

}  // namespace

void AddRunCommand(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* command = app.add_subcommand(
      "run",
      "Execute a plan file with the reference executor: real buffers in host memory, one thread "
      "per stream, every input's bytes checked (exit 10 when the plan breaks a rule)");
  AddPlanInputFlags(*command, flags->inputs, /*hw_required=*/true);
  command->add_option("--iterations", flags->iterations, "run the loop N times (default 1)")
      ->check(CLI::Range(1, 1'000'000));
  command->add_flag("--timed", flags->timed,
                    "hold each step for its planned time and report the measured makespan next "
                    "to the simulated one");
  command
      ->add_option("--time-scale", flags->time_scale,
                   "timed: wall-clock ns per planned ns (default 1; 1000 runs a 5 us step in "
                   "5 ms)")
      ->check(CLI::Range(1e-3, 1e9));
  command->add_option("--check", flags->check, "input bytes checked: full (default) or sampled")
      ->check(CLI::IsMember({"full", "sampled"}));
  command
      ->add_option("--max-memory", flags->max_memory,
                   "refuse (exit 2) a plan whose buffers exceed SIZE (default 4GiB)")
      ->check(CLI::Validator(ValidateSize, "SIZE", "size"));
  command->callback([flags] { RunPlan(*flags); });
}

}  // namespace hyperplan::cli
