// Planner scale series and the issue-3 table (see scale_bench.h).
#include "scale_bench.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "format.h"
#include "json_fields.h"
#include "model_cache.h"
#include "process_stats.h"
#include "workloads.h"

namespace hyperplan::bench {
namespace {

void Emit(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

std::string Config(const std::string& file) {
  return std::string(HYPERPLAN_SOURCE_DIR) + "/configs/" + file;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream stream(text);
  for (std::string line; std::getline(stream, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> WithDims(std::vector<std::string> argv, const Workload& workload) {
  for (const std::string& dim : workload.dims) {
    argv.push_back("--dim");
    argv.push_back(dim);
  }
  return argv;
}

double MiB(int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }
double Seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }

void RunSeries(const ScaleOptions& options) {
  Emit(
      "\n### Planner scale: Llama-3-8B decode (1k KV) stacked, budget 50% of its peak, "
      "h100-sxm with the weights homed on NVMe\n\n"
      "| layers | nodes | import s | plan s | plan ns / (n log2 n) | child peak RSS MiB |\n"
      "|---:|---:|---:|---:|---:|---:|\n");
  std::vector<int> layer_counts = {16, 162, 1623, 16230};
  if (options.quick) layer_counts.pop_back();
  for (int layers : layer_counts) {
    Workload workload{
        "", "llama3-8b", "decode", layers, {"batch=1", "sequence=1", "past_sequence=1024"}};
    const std::string path = EnsureModel(workload, options.models_dir);
    const ProcessStats child =
        RunMeasured(WithDims({HYPERPLAN_BENCH_PATH, "plan-once", path, "--hw",
                              Config("h100-sxm.yaml"), "--budget-percent", "50"},
                             workload));
    if (child.exit_code != 0) {
      Emit(fmt::format("| {} | plan-once exited with {} | | | | |\n", layers, child.exit_code));
      continue;
    }
    const std::string& line = child.stdout_text;
    const int64_t nodes = JsonInteger(line, "nodes");
    const int64_t plan_ns = JsonInteger(line, "plan_ns");
    const double n = static_cast<double>(nodes);
    Emit(fmt::format("| {} | {} | {:.2f} | {:.2f} | {:.1f} | {:.0f} |\n", layers, nodes,
                     Seconds(JsonInteger(line, "import_ns")), Seconds(plan_ns),
                     static_cast<double>(plan_ns) / (n * std::log2(n)), MiB(child.peak_rss_bytes)));
  }
}

void RunTable(const ScaleOptions& options) {
  Emit(
      "\n### hyperplan at real scale: every shipped profile, standard budgets\n\n"
      "| workload | profile | budget | fits | live peak | arena | makespan | vs no offload | "
      "bytes moved | plan s | RSS MiB |\n"
      "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  std::vector<Workload> workloads = {
      {"Llama-3-8B prefill 8k", "llama3-8b", "prefill", 0, {"batch=1", "sequence=8192"}},
      {"Llama-3-70B decode 32k",
       "llama3-70b",
       "decode",
       0,
       {"batch=1", "sequence=1", "past_sequence=32768"}},
      {"DeepSeek-V3 MoE decode 4k",
       "deepseek-v3",
       "decode",
       0,
       {"batch=1", "sequence=1", "past_sequence=4096"}},
  };
  std::vector<std::string> profiles = {"h100-sxm.yaml", "gh200.yaml", "a100-pcie4.yaml",
                                       "supernode.yaml"};
  if (options.quick) {
    workloads.resize(1);
    profiles.resize(1);
  }
  for (const Workload& workload : workloads) {
    const std::string path = EnsureModel(workload, options.models_dir);
    for (const std::string& profile : profiles) {
      const ProcessStats child = RunMeasured(WithDims(
          {HYPERPLAN_BENCH_PATH, "plan-once", path, "--hw", Config(profile), "--standard-budgets"},
          workload));
      if (child.exit_code != 0) {
        Emit(fmt::format("| {} | {} | plan-once exited with {} | | | | | | | | |\n", workload.label,
                         profile, child.exit_code));
        continue;
      }
      for (const std::string& line : Lines(child.stdout_text)) {
        const int64_t makespan = JsonInteger(line, "makespan");
        const int64_t reference = JsonInteger(line, "baseline_makespan");
        Emit(fmt::format(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2f} | {:.0f} |\n", workload.label,
            profile, JsonString(line, "budget_label"),
            JsonInteger(line, "fits") == 1 ? "yes" : "**no**",
            Gigabytes(JsonInteger(line, "live_peak")), Gigabytes(JsonInteger(line, "arena")),
            Duration(makespan),
            SignedPercent(100.0 * (static_cast<double>(makespan) /
                                       static_cast<double>(std::max<int64_t>(1, reference)) -
                                   1.0)),
            Gigabytes(JsonInteger(line, "bytes_moved")), Seconds(JsonInteger(line, "plan_ns")),
            MiB(child.peak_rss_bytes)));
      }
    }
  }
}

}  // namespace

int RunScaleBench(const ScaleOptions& options) {
  if (options.series) RunSeries(options);
  if (options.table) RunTable(options);
  return 0;
}

}  // namespace hyperplan::bench
