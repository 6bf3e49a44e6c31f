// Benchmark workloads (see workloads.h).
#include "workloads.h"

namespace hyperplan::bench {

std::vector<Workload> RealScaleWorkloads() {
  return {
      {"llama3-8b prefill 8k", "llama3-8b", "prefill", 0, {"batch=1", "sequence=8192"}},
      {"llama3-70b decode 32k",
       "llama3-70b",
       "decode",
       0,
       {"batch=1", "sequence=1", "past_sequence=32768"}},
      {"llama3-405b prefill 8k", "llama3-405b", "prefill", 0, {"batch=1", "sequence=8192"}},
      {"deepseek-v3 prefill 4k", "deepseek-v3", "prefill", 0, {"batch=1", "sequence=4096"}},
  };
}

std::vector<Workload> ScaleSeriesWorkloads() {
  std::vector<Workload> series;
  for (int layers : {40, 80, 160, 320, 640}) {
    series.push_back({"llama3-70b decode, " + std::to_string(layers) + " layers",
                      "llama3-70b",
                      "decode",
                      layers,
                      {"batch=1", "sequence=1", "past_sequence=32768"}});
  }
  return series;
}

std::vector<std::string> GeneratorArgs(const std::string& generator_path, const Workload& workload,
                                       const std::string& path) {
  std::vector<std::string> args = {
      generator_path, "--preset", workload.preset, "--form", workload.form, "-o", path};
  if (workload.layers > 0) {
    args.push_back("--layers");
    args.push_back(std::to_string(workload.layers));
  }
  return args;
}

}  // namespace hyperplan::bench
