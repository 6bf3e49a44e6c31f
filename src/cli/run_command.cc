// `hyperplan run` (see run_command.h).
//
// Output (deterministic unless --timed): the plan, profile and iteration count; the buffers;
// what was checked per iteration; then "ok". With --timed, the measured makespan per
// iteration (the fastest of the iterations, and their mean) next to the simulated one and
// their ratio. --backend cuda (src/cuda/device.h) runs the same executor on a GPU's memory
// and copy engines; with --timed it then issues the plan again as CUDA streams and events
// (executor/cuda_schedule.h) and compares that timeline with the simulated one
// (executor/timed_report.h), ending with one `timed:` line of integers for scripts.
#include "run_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>

#include "cuda/device.h"
#include "executor/cuda_schedule.h"
#include "executor/executor.h"
#include "executor/host_backend.h"
#include "executor/plan_view.h"
#include "executor/timed_report.h"
#include "hyperplan/cost.h"
#include "hyperplan/error.h"
#include "hyperplan/loop.h"
#include "hyperplan/plan/simulate.h"
#include "hyperplan/units.h"
#include "model_inputs.h"
#include "plan_inputs.h"
#include "subcommand.h"

namespace hyperplan::cli {
namespace {

struct RunFlags {
  PlanInputFlags inputs;
  int32_t iterations = 1;
  bool timed = false;
  double time_scale = 1.0;
  std::string check = "full";
  std::string max_memory = "4GiB";
  std::string backend = "host";
  bool gemm = false;
  uint64_t routing_seed = 1;
};

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

// The CUDA timed pass: the plan as streams and events on the GPU, against the simulation.
std::string CudaTimingLines(const RunFlags& flags, const PlanInputs& inputs,
                            const SimulationResult& replay) {
  const Plan& plan = inputs.plan;
  const Graph loop = plan.periodic ? LoopGraph(inputs.graph, plan.aliases) : inputs.graph;
  const executor::PlanView view = executor::BuildPlanView(loop, inputs.profile, plan);
  const executor::DeviceSchedule schedule =
      executor::BuildDeviceSchedule(view, loop, inputs.profile, plan);
  const cuda::TimedRun timed =
      cuda::TimeOnDevice(schedule, loop, plan, {flags.iterations, flags.gemm});
  const executor::TimedComparison comparison =
      executor::CompareTimings(plan, inputs.profile, replay.steps, timed.iterations);
  std::string out = fmt::format(
      "  timed on the GPU: {} streams, compute as {}; issue {} per iteration behind a {} gate\n",
      schedule.stream_count,
      flags.gemm
          ? fmt::format("spin kernels, {} MatMul nodes as cuBLASLt GEMMs{}", timed.gemm_nodes,
                        timed.gemm_note.empty() ? "" : " (" + timed.gemm_note + ")")
          : std::string("spin kernels of the planned node times"),
      FormatDuration(timed.max_issue_ns), FormatDuration(timed.gate_ns));
  out += executor::FormatTimedComparison(comparison, inputs.profile);
  out += fmt::format(
      "timed: simulated_makespan_ns={} measured_makespan_ns={} ratio={:.3f} "
      "simulated_stall_ns={} measured_stall_ns={} arena_bytes={} issue_ns={} gate_ns={}\n",
      comparison.simulated_makespan_ns, comparison.measured_makespan_ns, comparison.ratio(),
      comparison.simulated_stall_ns, comparison.measured_stall_ns, plan.layout.arena_bytes,
      timed.max_issue_ns, timed.gate_ns);
  return out;
}

// A routed plan (fetch after route): what its routed Prefetches moved, over the drawn routings.
std::string RoutedLine(const Plan& plan, const executor::ExecutionReport& report, uint64_t seed) {
  const bool routed = std::any_of(plan.steps.begin(), plan.steps.end(),
                                  [](const PlanStep& step) { return step.routed_by != kNoNode; });
  if (!routed) return "";
  return fmt::format(
      "  fetched after route: {} expert slices in {} iteration{} (routings {}..{} of seed {}, "
      "as plan --routing-samples draws them)\n",
      report.experts_fetched, report.iterations_run, report.iterations_run == 1 ? "" : "s", 0,
      std::max(report.iterations_run, 1) - 1, seed);
}

// Flags that only one backend reads, refused on the other (exit 2).
void CheckBackendFlags(const RunFlags& flags) {
  const bool on_gpu = flags.backend == "cuda";
  if (on_gpu && flags.time_scale != 1.0) {
    throw Error(ErrorKind::kUsage,
                "--time-scale applies to the host backend only: on the GPU copies take their "
                "real time");
  }
  if (!on_gpu && flags.gemm) throw Error(ErrorKind::kUsage, "--gemm needs --backend cuda");
}

void RunPlan(const RunFlags& flags) {
  CheckBackendFlags(flags);
  const bool on_gpu = flags.backend == "cuda";
  PlanInputs inputs = LoadPlanInputs(flags.inputs, /*fold_channels=*/true);
  EstimateNodeTimes(inputs);
  CheckMemory(flags, inputs.plan);
  const executor::CheckMode mode =
      flags.check == "sampled" ? executor::CheckMode::kSampled : executor::CheckMode::kFull;
  std::unique_ptr<executor::Backend> backend =
      on_gpu ? cuda::MakeCudaBackend(mode) : std::make_unique<executor::HostBackend>(mode);
  executor::ExecuteOptions options;
  options.iterations = flags.iterations;
  options.timed = flags.timed && !on_gpu;  // on the GPU the timed pass is a pass of its own
  options.time_scale = flags.time_scale;
  options.routing_seed = flags.routing_seed;
  const executor::ExecutionReport report =
      executor::Execute(inputs.graph, inputs.profile, inputs.plan, *backend, options);
  if (const std::optional<std::string> failure = backend->Failure()) {
    throw Error(ErrorKind::kInternal,
                fmt::format("{}: the GPU failed: {}", flags.inputs.plan_path, *failure));
  }

  const Plan& plan = inputs.plan;
  std::string out = fmt::format(
      "run of {} on '{}': {} iteration{} of {} steps on {} streams{}\n", flags.inputs.plan_path,
      inputs.profile.name, flags.iterations, flags.iterations == 1 ? "" : "s", plan.steps.size(),
      report.stream_count, plan.periodic ? ", from the cold start" : " (one-shot plan)");
  out += fmt::format("  buffers: {} in {} (device arena {}, {} tier buffer{})\n",
                     FormatBytes(report.buffer_bytes),
                     on_gpu ? "GPU memory and pinned host memory" : "host memory",
                     FormatBytes(plan.layout.arena_bytes), plan.tier_buffers.size(),
                     plan.tier_buffers.size() == 1 ? "" : "s");
  const int64_t runs = std::max(report.iterations_run, 1);
  const int64_t outputs_read = report.outputs_checked / runs;
  const int64_t host_steps = report.host_computes / runs;
  out += fmt::format(
      "  per iteration: {} inputs checked ({} check){}, {} transfers moving {}, {} detaches, "
      "graph outputs read back from {} block{}\n",
      report.inputs_checked / runs, on_gpu ? "full, on the GPU" : flags.check,
      host_steps > 0 ? fmt::format(", {} compute steps on the host lane", host_steps) : "",
      report.transfers / runs, FormatBytes(report.bytes_copied / runs), report.detaches / runs,
      outputs_read, outputs_read == 1 ? "" : "s");
  out += RoutedLine(plan, report, flags.routing_seed);
  if (report.ok && flags.timed) {
    const SimulationResult replay = Simulate(inputs.graph, inputs.profile, plan);
    out += on_gpu ? CudaTimingLines(flags, inputs, replay)
                  : TimingLines(report, replay.makespan_ns, flags.time_scale);
  }
  if (report.ok) out += "ok: every step ran in an order the waits allow, on the bytes it needed\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (!report.ok) {
    throw Error(ErrorKind::kViolation,
                fmt::format("{}: {}", flags.inputs.plan_path, report.violation));
  }
  SayRecordedProfile(inputs);
}

}  // namespace

void AddRunCommand(CLI::App& app) {
  const auto [command, flags] = AddSubcommand<RunFlags>(
      app, "run",
      "Execute a plan file with the reference executor: real buffers in host memory, one thread "
      "per stream, every input's bytes checked (exit 10 when the plan breaks a rule)",
      RunPlan);
  AddPlanInputFlags(*command, flags->inputs);
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
      ->check(CLI::Validator(ValidateByteSize, "SIZE", "size"));
  command
      ->add_option("--backend", flags->backend,
                   "host (default): buffers in host memory; cuda: the arena on the GPU, tier "
                   "buffers pinned, copies on CUDA streams (exit 11 without a GPU)")
      ->check(CLI::IsMember({"host", "cuda"}));
  command->add_flag("--gemm", flags->gemm,
                    "cuda --timed: run MatMul nodes as cuBLASLt bf16 GEMMs of their shape "
                    "instead of holding the device for their planned time");
  command->add_option("--routing-seed", flags->routing_seed,
                      "routed plans: iteration i draws routing i - 1 of this seed, as plan "
                      "--routing-samples does (default 1)");
}

}  // namespace hyperplan::cli
