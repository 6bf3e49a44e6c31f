// Import + inspect benchmark (see inspect_bench.h).
#include "inspect_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>

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

std::string EnsureModel(const Workload& workload, const std::string& models_dir) {
  std::string file = workload.preset + "-" + workload.form;
  if (workload.layers > 0) file += "-l" + std::to_string(workload.layers);
  const std::string path = models_dir + "/" + file + ".onnx";
  if (!std::filesystem::exists(path)) {
    std::filesystem::create_directories(models_dir);
    const ProcessStats stats = RunMeasured(GeneratorArgs(HYPERPLAN_GEN_PATH, workload, path));
    if (stats.exit_code != 0) throw std::runtime_error("generating " + path + " failed");
  }
  return path;
}

int64_t JsonInteger(const std::string& json, const std::string& key) {
  const std::regex pattern("\"" + key + "\": \"?(\\d+)");
  std::smatch match;
  return std::regex_search(json, match, pattern) ? std::stoll(match[1]) : -1;
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
