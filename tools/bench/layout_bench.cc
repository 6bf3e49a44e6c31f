// The layout benchmark (see layout_bench.h).
#include "layout_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

#include "bench_profiles.h"
#include "contenders/context.h"
#include "format.h"
#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/layout/layout.h"
#include "hyperplan/plan/verify.h"
#include "hyperplan/planner/planner.h"
#include "layout/tier_layout.h"
#include "model_cache.h"
#include "workloads.h"

namespace hyperplan::bench {
namespace {

void Emit(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

bool Selected(const std::string& text, const std::vector<std::string>& filters,
              const std::vector<std::string>& defaults) {
  const std::vector<std::string>& wanted = filters.empty() ? defaults : filters;
  return std::any_of(wanted.begin(), wanted.end(),
                     [&](const std::string& f) { return text.find(f) != std::string::npos; });
}

ImportOptions DimsOf(const Workload& workload, const HardwareProfile& profile) {
  ImportOptions options;
  for (const std::string& dim : workload.dims) {
    const size_t eq = dim.find('=');
    options.dims[dim.substr(0, eq)] = std::stoll(dim.substr(eq + 1));
  }
  options.class_rules = profile.class_rules;
  return options;
}

// Best of three wall times of `run`, in seconds.
double BestSeconds(const std::function<void()>& run) {
  double best = 1e30;
  for (int trial = 0; trial < 3; ++trial) {
    const auto start = std::chrono::steady_clock::now();
    run();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

struct Planned {
  PlanResult result;
  double seconds = 0;
  bool verified = false;
};

Planned PlanAtCapacity(const Graph& graph, const HardwareProfile& profile,
                       const contenders::ContenderContext& context, const LayoutOptions& layout) {
  PlanOptions options;
  options.budget_bytes = context.device_capacity_bytes();
  options.node_time_ns = context.node_time_ns;
  options.layout = layout;
  Planned planned;
  const auto start = std::chrono::steady_clock::now();
  planned.result = PlanOffload(graph, profile, options);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  planned.seconds = took.count();
  planned.verified = VerifyPlan(graph, profile, planned.result.plan, planned.result.evaluation).ok;
  return planned;
}

std::string PlanRow(const std::string& layout, const Planned& planned) {
  const Plan& plan = planned.result.plan;
  const PlanEvaluation& evaluation = planned.result.evaluation;
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} | {:.2f} s |\n", layout,
                     plan.residency.size(), evaluation.fits ? "yes" : "**no**",
                     Gigabytes(plan.layout.live_peak_bytes), Gigabytes(plan.layout.arena_bytes),
                     plan.layout.algorithm, Duration(evaluation.timeline.makespan_ns),
                     planned.seconds);
}

std::string AlgorithmRows(const Plan& plan, const HardwareProfile& profile) {
  const int64_t alignment = profile.tiers[profile.device_tier].alignment_bytes;
  const auto steps = static_cast<Step>(plan.order.size());
  struct Variant {
    const char* name;
    LayoutOptions options;
  };
  LayoutOptions sweep;
  sweep.greedy = false;
  LayoutOptions by_size;
  by_size.all_orders_limit = 0;
  const Variant variants[] = {{"sweep best-fit alone", sweep},
                              {"greedy by size + sweep", by_size},
                              {"default (every order up to 1024 blocks)", LayoutOptions{}}};
  std::string text = fmt::format(
      "\nDevice arena of that plan: {} intervals over {} steps, live peak {}, alignment {} B.\n\n"
      "| algorithms | arena | over live peak | kept | time (best of 3) |\n"
      "|---|---:|---:|---|---:|\n",
      plan.residency.size(), steps, Gigabytes(plan.layout.live_peak_bytes), alignment);
  for (const Variant& variant : variants) {
    ArenaLayout layout;
    const double seconds = BestSeconds([&] {
      layout = LayoutArena(plan.residency, steps, alignment, variant.options, plan.periodic);
    });
    text += fmt::format(
        "| {} | {} | {} | {} | {:.3f} s |\n", variant.name, Gigabytes(layout.arena_bytes),
        Gigabytes(layout.arena_bytes - layout.live_peak_bytes), layout.algorithm, seconds);
  }
  return text;
}

std::string TierRows(const Plan& plan, const HardwareProfile& profile) {
  Plan copy = plan;
  std::vector<TierBuffer> buffers;
  const double seconds =
      BestSeconds([&] { buffers = planner::LayoutTierBuffers(profile, LayoutOptions{}, copy); });
  std::string text = fmt::format(
      "\nTier buffers ({} copies, laid out in {:.3f} s):\n\n"
      "| tier | copies | live peak | buffer | capacity | algorithm "
      "|\n|---|---:|---:|---:|---:|---|\n",
      plan.tier_copies.size(), seconds);
  for (const TierBuffer& buffer : buffers) {
    const auto copies = std::count_if(plan.tier_copies.begin(), plan.tier_copies.end(),
                                      [&](const TierCopy& c) { return c.tier == buffer.tier; });
    text += fmt::format("| {} | {} | {} | {} | {} | {} |\n", profile.tiers[buffer.tier].name,
                        copies, Gigabytes(buffer.live_peak_bytes), Gigabytes(buffer.size_bytes),
                        Gigabytes(profile.tiers[buffer.tier].capacity_bytes), buffer.algorithm);
  }
  return text;
}

}  // namespace

int RunLayoutBench(const LayoutBenchOptions& options) {
  const std::vector<std::string> default_workloads = {"405B prefill", "DeepSeek", "training"};
  const std::vector<std::string> default_profiles = {"h100-sxm"};
  for (const Workload& workload : CompareWorkloads(false)) {
    if (!Selected(workload.label, options.workloads, default_workloads)) continue;
    const std::string path = EnsureModel(workload, options.models_dir);
    for (NamedProfile& named : ShippedProfiles()) {
      if (!Selected(named.file, options.profiles, default_profiles)) continue;
      const Graph graph = ImportOnnxModel(path, DimsOf(workload, named.profile));
      const HardwareProfile& profile = named.profile;
      const contenders::ContenderContext context =
          contenders::BuildContenderContext(graph, profile);
      const std::string home_note = SpillNote(profile, context.homes);
      Emit(fmt::format("\n## {} on {}\n\n{} nodes; budget: the device, {}.{}\n\n", workload.label,
                       named.file, graph.nodes.size(), Gigabytes(context.device_capacity_bytes()),
                       home_note.empty() ? "" : " Note: " + home_note + "."));
      LayoutOptions sweep_only;
      sweep_only.greedy = false;
      const Planned before = PlanAtCapacity(graph, profile, context, sweep_only);
      const Planned after = PlanAtCapacity(graph, profile, context, LayoutOptions{});
      Emit(fmt::format(
          "| planner layout | intervals | fits | live peak | arena | kept | makespan | planner "
          "time |\n|---|---:|---|---:|---:|---|---:|---:|\n{}{}",
          PlanRow("sweep alone (before)", before), PlanRow("default (after)", after)));
      if (!before.verified || !after.verified) Emit("\n**a plan failed VerifyPlan**\n");
      Emit(AlgorithmRows(after.result.plan, profile));
      Emit(TierRows(after.result.plan, profile));
    }
  }
  return 0;
}

}  // namespace hyperplan::bench
