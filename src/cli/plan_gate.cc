// The plan command's CI gate (see plan_gate.h).
#include "plan_gate.h"

#include <stdexcept>

#include "hyperplan/units.h"

namespace hyperplan::cli {
namespace {

// Exact percent from ppm ("1%", "0.5%", "1.0001%"): 1% is 10'000 ppm.
std::string PercentText(int64_t ppm) {
  std::string fraction = std::to_string(ppm % 10'000);
  fraction.insert(0, 4 - fraction.size(), '0');
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  return std::to_string(ppm / 10'000) + (fraction.empty() ? "" : "." + fraction) + "%";
}

}  // namespace

int64_t ParseOverheadPpm(const std::string& text) {
  std::string number = text;
  if (!number.empty() && number.back() == '%') number.pop_back();
  // Percent with up to four decimals is a whole number of ppm: 1% = 10'000 ppm.
  return ParseFixedPoint(number, 4);
}

int64_t OverheadPpm(int64_t makespan_ns, int64_t baseline_makespan_ns) {
  if (baseline_makespan_ns <= 0 || makespan_ns <= baseline_makespan_ns) return 0;
  const __int128 scaled = static_cast<__int128>(makespan_ns - baseline_makespan_ns) * 1'000'000;
  return static_cast<int64_t>((scaled + baseline_makespan_ns - 1) / baseline_makespan_ns);
}

GateOutcome EvaluateGate(const std::string& model_path, const PlanResult& result,
                         int64_t max_overhead_ppm, bool overhead_is_target) {
  GateOutcome gate;
  const PlanSummary& summary = result.plan.summary;
  gate.overhead_ppm = OverheadPpm(summary.makespan_ns, summary.baseline_makespan_ns);
  if (result.status == PlanStatus::kInfeasible) {
    gate.passed = false;
    gate.kind = ErrorKind::kInfeasible;
    gate.result = "over_budget";
    gate.message = model_path + ": " + result.infeasibility.message;
    return gate;
  }
  if (overhead_is_target && gate.overhead_ppm > max_overhead_ppm) {
    gate.passed = false;
    gate.kind = ErrorKind::kGateFailed;
    gate.result = "over_overhead";
    gate.message = model_path + ": the plan runs in " + FormatDuration(summary.makespan_ns) + ", " +
                   PercentText(gate.overhead_ppm) + " over the no-offload " +
                   FormatDuration(summary.baseline_makespan_ns) +
                   ", above the overhead target of " + PercentText(max_overhead_ppm);
  }
  return gate;
}

plan::v1::RunSummary BuildRunSummary(const plan::v1::Plan& plan, const GateOutcome& gate,
                                     const std::string& plan_sha256, const std::string& plan_file,
                                     const std::string& onnx_file) {
  const plan::v1::Summary& summary = plan.summary();
  plan::v1::RunSummary out;
  out.set_model(plan.provenance().model_path());
  out.set_profile(plan.provenance().profile().name());
  out.set_result(gate.result);
  out.set_exit_code(gate.passed ? 0 : ExitCode(gate.kind));
  out.set_message(gate.message);
  if (plan.has_budget_bytes()) out.set_budget_bytes(plan.budget_bytes());
  out.set_arena_bytes(summary.arena_bytes());
  out.set_peak_bytes(summary.peak_bytes());
  out.set_baseline_peak_bytes(summary.baseline_peak_bytes());
  out.set_makespan_ns(summary.makespan_ns());
  out.set_baseline_makespan_ns(summary.baseline_makespan_ns());
  out.set_overhead_ppm(gate.overhead_ppm);
  out.set_max_overhead_ppm(plan.provenance().options().max_overhead_ppm());
  out.set_stall_ns(summary.stall_ns());
  out.set_prefetch_steps(summary.prefetch_steps());
  out.set_store_steps(summary.store_steps());
  out.set_detach_steps(summary.detach_steps());
  int64_t moved = 0;
  for (const plan::v1::LinkTraffic& link : summary.links()) moved += link.bytes_moved();
  out.set_bytes_moved(moved);
  out.set_plan_sha256(plan_sha256);
  out.set_plan_file(plan_file);
  out.set_onnx_file(onnx_file);
  out.set_periodic(plan.periodic());
  out.set_produced_by(plan.produced_by());
  out.set_cold_start_ns(plan.cold_start().time_ns());
  for (const plan::v1::TierBytes& entry : plan.cold_start().tiers()) {
    if (entry.tier() >= 0 && entry.tier() < plan.tiers_size() &&
        plan.tiers(entry.tier()).is_device()) {
      out.set_cold_start_device_bytes(entry.bytes());
    }
  }
  return out;
}

}  // namespace hyperplan::cli
