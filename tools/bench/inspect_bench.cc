// Import + inspect benchmark (see inspect_bench.h).
#include "inspect_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "json_fields.h"
#include "model_cache.h"
#include "process_stats.h"
#include "workloads.h"

namespace hyperplan::bench {
namespace {

struct Measurement {
  int64_t best_wall_ns = INT64_MAX;
  int64_t peak_rss_bytes = 0;
  std::string stdout_text;
};

Measurement MeasureBest(const std::vector<std::string>& argv, int repeat) {
  Measurement measurement;
  for (int i = 0; i < repeat; ++i) {
    ProcessStats stats = RunMeasured(argv);
    if (stats.exit_code != 0) {
      throw std::runtime_error(
          fmt::format("{} exited with {}", fmt::join(argv, " "), stats.exit_code));
    }
    measurement.best_wall_ns = std::min(measurement.best_wall_ns, stats.wall_ns);
    measurement.peak_rss_bytes = std::max(measurement.peak_rss_bytes, stats.peak_rss_bytes);
    measurement.stdout_text = std::move(stats.stdout_text);
  }
  return measurement;
}

double Seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }
double MiB(int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

void PrintRow(const Workload& workload, const std::string& models_dir, int repeat) {
  const std::string path = EnsureModel(workload, models_dir);
  std::vector<std::string> inspect = {HYPERPLAN_CLI_PATH, "inspect", "--json", path};
  for (const std::string& dim : workload.dims) {
    inspect.push_back("--dim");
    inspect.push_back(dim);
  }
  const Measurement parse = MeasureBest({HYPERPLAN_BENCH_PATH, "parse", path}, repeat);
  const Measurement run = MeasureBest(inspect, repeat);
  fmt::print("| {} | {:.1f} | {} | {:.3f} | {:.3f} | {:.2f} | {:.0f} | {:.0f} |\n", workload.label,
             MiB(static_cast<int64_t>(std::filesystem::file_size(path))),
             JsonInteger(run.stdout_text, "node_count"), Seconds(parse.best_wall_ns),
             Seconds(run.best_wall_ns),
             static_cast<double>(run.best_wall_ns) / static_cast<double>(parse.best_wall_ns),
             MiB(parse.peak_rss_bytes), MiB(run.peak_rss_bytes));
  std::fflush(stdout);
}

}  // namespace

int RunInspectBench(const InspectBenchOptions& options) {
  fmt::print(
      "| workload | file MiB | nodes | protobuf parse s | import+inspect s | ratio | parse RSS MiB "
      "| inspect RSS MiB |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
  std::vector<Workload> workloads = RealScaleWorkloads();
  if (options.series) {
    for (Workload& workload : ScaleSeriesWorkloads()) workloads.push_back(std::move(workload));
  }
  for (const Workload& workload : workloads) PrintRow(workload, options.models_dir, options.repeat);
  return 0;
}

}  // namespace hyperplan::bench
