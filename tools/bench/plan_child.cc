// Planning-only child (see plan_child.h).
#include "plan_child.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <exception>

#include "bench_profiles.h"
#include "budgets.h"
#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::bench {
namespace {

int64_t Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start)
      .count();
}

}  // namespace

int RunPlanOnce(const PlanOnceOptions& options) {
  try {
    HardwareProfile profile = LoadProfileFile(options.profile_path);
    ImportOptions import;
    for (const std::string& dim : options.dims) {
      const size_t eq = dim.find('=');
      import.dims[dim.substr(0, eq)] = std::stoll(dim.substr(eq + 1));
    }
    import.class_rules = profile.class_rules;
    auto start = std::chrono::steady_clock::now();
    const Graph graph = ImportOnnxModel(options.model_path, import);
    const int64_t import_ns = Since(start);

    std::vector<Budget> budgets;
    const int64_t peak = AnalyzeLifetimes(graph, ModelOrder(graph)).timeline.peak_bytes;
    const int64_t capacity = profile.tiers[profile.device_tier].capacity_bytes;
    if (options.standard_budgets) {
      PlanOptions off;
      off.offload = false;
      off.aliases = FindAliases(graph, {});
      const int64_t arena = PlanOffload(graph, profile, off).plan.layout.arena_bytes;
      budgets = StandardBudgets(peak, arena, capacity);
    }
    for (int percent : options.budget_percents) {
      budgets.push_back({fmt::format("{}%", percent), peak * percent / 100});
    }
    for (const Budget& budget : budgets) {
      PlanOptions plan_options;
      plan_options.budget_bytes = budget.bytes;
      plan_options.aliases = FindAliases(graph, {});  // one loop iteration, as the CLI plans
      start = std::chrono::steady_clock::now();
      const PlanResult result = PlanOffload(graph, profile, plan_options);
      const int64_t plan_ns = Since(start);
      const Plan& plan = result.plan;
      const PlanEvaluation& evaluation = result.evaluation;
      fmt::print(
          "{{\"budget_label\": \"{}\", \"budget\": {}, \"nodes\": {}, \"import_ns\": {}, "
          "\"plan_ns\": {}, \"planned\": {}, \"fits\": {}, \"live_peak\": {}, \"arena\": {}, "
          "\"baseline_peak\": {}, \"baseline_arena\": {}, \"makespan\": {}, "
          "\"baseline_makespan\": {}, \"bytes_moved\": {}, \"reordered\": {}}}\n",
          budget.label, budget.bytes, graph.nodes.size(), import_ns, plan_ns,
          result.status == PlanStatus::kPlanned ? 1 : 0, evaluation.fits ? 1 : 0,
          plan.layout.live_peak_bytes, plan.layout.arena_bytes,
          evaluation.summary.baseline_peak_bytes, evaluation.summary.baseline_arena_bytes,
          evaluation.timeline.makespan_ns, evaluation.timeline.baseline_makespan_ns,
          evaluation.timeline.total_bytes_moved(), plan.reordered ? 1 : 0);
      std::fflush(stdout);
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "hyperplan-bench plan-once: %s\n", error.what());
    return 1;
  }
}

}  // namespace hyperplan::bench
