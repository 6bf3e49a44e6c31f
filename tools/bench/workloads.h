// The generated workloads benchmarks run on: which generator preset, form and layer count,
// and the dims that bind their symbolic shapes.
#pragma once

#include <string>
#include <vector>

namespace hyperplan::bench {

struct Workload {
  std::string label;              // as printed in tables
  std::string preset;             // hyperplan-gen preset
  std::string form;               // prefill | decode
  int layers = 0;                 // 0: the preset's own
  std::vector<std::string> dims;  // --dim arguments
};

// Real-scale models from the foundation issue: Llama-3 8B/70B/405B and the DeepSeek-V3-sized
// MoE.
std::vector<Workload> RealScaleWorkloads();

// One model stacked to growing depth, for the nodes-vs-time series.
std::vector<Workload> ScaleSeriesWorkloads();

// argv for hyperplan-gen writing `workload` to `path`.
std::vector<std::string> GeneratorArgs(const std::string& generator_path, const Workload& workload,
                                       const std::string& path);

}  // namespace hyperplan::bench
