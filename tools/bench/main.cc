// hyperplan-bench: benchmark commands whose tables go into README.md and docs/benchmarks.md.
//   hyperplan-bench inspect [--series]   import + inspect vs bare protobuf parse
//   hyperplan-bench compare [--quick]    contenders vs hyperplan, simulated, per profile
//   hyperplan-bench scale [--quick]      planner time and RSS vs nodes; plans at real scale
//   hyperplan-bench layout               arena and tier-buffer layouts at real scale, timed
//   hyperplan-bench fidelity [--check]   predictions against published measurements
//   hyperplan-bench parse FILE           (internal) the bare parse, run as a child process
//   hyperplan-bench plan-once FILE ...   (internal) import and plan, run as a child process
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "compare_bench.h"
#include "fidelity_bench.h"
#include "inspect_bench.h"
#include "layout_bench.h"
#include "parse_only.h"
#include "plan_child.h"
#include "scale_bench.h"

// `fidelity`: the data file defaults to the source tree's tools/bench/fidelity.yaml.
CLI::App* AddFidelityCommand(CLI::App& app, hyperplan::bench::FidelityOptions& options,
                             const std::string& models_dir) {
  options.models_dir = models_dir;
  options.data_path = std::string(HYPERPLAN_SOURCE_DIR) + "/tools/bench/fidelity.yaml";
  CLI::App* fidelity = app.add_subcommand(
      "fidelity", "predictions against published measurements (Markdown, docs/fidelity.md)");
  fidelity->add_option("--models-dir", options.models_dir, "generated model cache");
  fidelity->add_option("--data", options.data_path, "the measurements (YAML)");
  fidelity->add_option("--row", options.rows, "keep rows whose id contains this (repeatable)");
  fidelity->add_flag("--check", options.check, "exit 1 when a row outside 0.8-1.25x names no gap");
  return fidelity;
}

int main(int argc, char** argv) {
  CLI::App app{"hyperplan-bench: benchmark tables for README.md and docs/benchmarks.md"};
  app.require_subcommand(1);
  const std::string default_models = "build/bench-models";

  std::string parse_path;
  CLI::App* parse = app.add_subcommand("parse", "parse an ONNX file with protobuf and exit");
  parse->add_option("file", parse_path)->required();

  hyperplan::bench::InspectBenchOptions inspect_options;
  inspect_options.models_dir = default_models;
  CLI::App* inspect = app.add_subcommand("inspect", "import + inspect vs bare protobuf parse");
  inspect->add_option("--models-dir", inspect_options.models_dir, "generated model cache");
  inspect->add_option("--repeat", inspect_options.repeat, "runs per command (best kept)")
      ->check(CLI::Range(1, 100));
  inspect->add_flag("--series", inspect_options.series, "add the nodes-vs-time series");

  hyperplan::bench::CompareOptions compare_options;
  compare_options.models_dir = default_models;
  CLI::App* compare =
      app.add_subcommand("compare", "contenders and hyperplan through one simulator (Markdown)");
  compare->add_option("--models-dir", compare_options.models_dir, "generated model cache");
  compare->add_flag("--quick", compare_options.quick, "two workloads on two profiles");
  compare->add_flag("--plan-digests", compare_options.plan_digests,
                    "print each cell's plan sha256 instead of the tables");
  compare->add_option("--workload", compare_options.workloads,
                      "keep workloads whose label contains this (repeatable)");
  compare->add_option("--profile", compare_options.profiles,
                      "keep profiles whose file name contains this (repeatable)");

  hyperplan::bench::ScaleOptions scale_options;
  scale_options.models_dir = default_models;
  bool series_only = false;
  bool table_only = false;
  CLI::App* scale = app.add_subcommand("scale", "planner time and RSS vs nodes; real-scale plans");
  scale->add_option("--models-dir", scale_options.models_dir, "generated model cache");
  scale->add_flag("--quick", scale_options.quick, "series to 100k nodes, one table row group");
  scale->add_flag("--series-only", series_only, "only the nodes-vs-time series");
  scale->add_flag("--table-only", table_only, "only the real-scale table");

  hyperplan::bench::LayoutBenchOptions layout_options;
  layout_options.models_dir = default_models;
  CLI::App* layout =
      app.add_subcommand("layout", "arena and tier-buffer layouts of real-scale plans, timed");
  layout->add_option("--models-dir", layout_options.models_dir, "generated model cache");
  layout->add_option("--workload", layout_options.workloads,
                     "keep workloads whose label contains this (repeatable)");
  layout->add_option("--profile", layout_options.profiles,
                     "keep profiles whose file name contains this (repeatable)");

  hyperplan::bench::FidelityOptions fidelity_options;
  CLI::App* fidelity = AddFidelityCommand(app, fidelity_options, default_models);

  hyperplan::bench::PlanOnceOptions plan_once_options;
  CLI::App* plan_once =
      app.add_subcommand("plan-once", "(internal) import and plan, one JSON line per budget");
  plan_once->add_option("file", plan_once_options.model_path)->required();
  plan_once->add_option("--hw", plan_once_options.profile_path)->required();
  plan_once->add_option("--dim", plan_once_options.dims);
  plan_once->add_option("--budget-percent", plan_once_options.budget_percents)
      ->check(CLI::Range(1, 100));
  plan_once->add_flag("--standard-budgets", plan_once_options.standard_budgets);

  CLI11_PARSE(app, argc, argv);
  try {
    if (*parse) return hyperplan::bench::ParseOnly(parse_path);
    if (*plan_once) return hyperplan::bench::RunPlanOnce(plan_once_options);
    if (*compare) return hyperplan::bench::RunCompareBench(compare_options);
    if (*layout) return hyperplan::bench::RunLayoutBench(layout_options);
    if (*fidelity) return hyperplan::bench::RunFidelityBench(fidelity_options);
    if (*scale) {
      scale_options.series = !table_only;
      scale_options.table = !series_only;
      return hyperplan::bench::RunScaleBench(scale_options);
    }
    return hyperplan::bench::RunInspectBench(inspect_options);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "hyperplan-bench: %s\n", error.what());
    return 1;
  }
}
