// The plan command's CI gate (see plan_gate.h).
#include "plan_gate.h"

#include <stdexcept>

#include "hyperplan/units.h"
#include "model_inputs.h"

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

std::string ValidateOverheadText(const std::string& text) {
  try {
    ParseOverheadPpm(text);
    return "";
  } catch (const std::invalid_argument& error) {
    return std::string("expected a percent such as 1 or 0.5%: ") + error.what();
  }
}

int64_t OverheadPpm(int64_t makespan_ns, int64_t baseline_makespan_ns) {
  if (baseline_makespan_ns <= 0 || makespan_ns <= baseline_makespan_ns) return 0;
  const __int128 scaled = static_cast<__int128>(makespan_ns - baseline_makespan_ns) * 1'000'000;
  return static_cast<int64_t>((scaled + baseline_makespan_ns - 1) / baseline_makespan_ns);
}

GateOutcome EvaluateOverhead(const std::string& subject, int64_t makespan_ns,
                             int64_t baseline_makespan_ns, int64_t max_overhead_ppm,
                             bool overhead_is_target) {
  GateOutcome gate;
  gate.overhead_ppm = OverheadPpm(makespan_ns, baseline_makespan_ns);
  if (overhead_is_target && gate.overhead_ppm > max_overhead_ppm) {
    gate.passed = false;
    gate.kind = ErrorKind::kGateFailed;
    gate.result = "over_overhead";
    gate.message = subject + " runs in " + FormatDuration(makespan_ns) + ", " +
                   PercentText(gate.overhead_ppm) + " over the no-offload " +
                   FormatDuration(baseline_makespan_ns) + ", above the overhead target of " +
                   PercentText(max_overhead_ppm);
  }
  return gate;
}

GateOutcome EvaluateGate(const std::string& model_path, const PlanResult& result,
                         int64_t max_overhead_ppm, bool overhead_is_target) {
  const PlanSummary& summary = result.evaluation.summary;
  if (result.status == PlanStatus::kInfeasible) {
    GateOutcome gate;
    gate.overhead_ppm = OverheadPpm(summary.makespan_ns, summary.baseline_makespan_ns);
    gate.passed = false;
    gate.kind = ErrorKind::kInfeasible;
    gate.result = "over_budget";
    gate.message = model_path + ": " + result.infeasibility.message;
    return gate;
  }
  return EvaluateOverhead(model_path + ": the plan", summary.makespan_ns,
                          summary.baseline_makespan_ns, max_overhead_ppm, overhead_is_target);
}

void AddBudgetFlags(CLI::App& command, std::string& budget, std::string& max_overhead,
                    const std::string& budget_help, const std::string& max_overhead_help) {
  command.add_option("--budget", budget, budget_help)
      ->check(CLI::Validator(ValidateByteSize, "SIZE", "budget"));
  command.add_option("--max-overhead", max_overhead, max_overhead_help)
      ->check(CLI::Validator(ValidateOverheadText, "PCT", "overhead"));
}

}  // namespace hyperplan::cli
