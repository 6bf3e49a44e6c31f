// The generated workloads benchmarks run on: which generator preset, form, op set and layer
// count, and the dims that bind their symbolic shapes.
#pragma once

#include <string>
#include <vector>

namespace hyperplan::bench {

struct Workload {
  std::string label;              // as printed in tables
  std::string preset;             // hyperplan-gen preset
  std::string form;               // prefill | decode | train
  int layers = 0;                 // 0: the preset's own
  std::vector<std::string> dims;  // --dim arguments
  std::string ops = "standard";   // standard | contrib
};

// Real-scale models from the foundation issue: Llama-3 8B/70B/405B and the DeepSeek-V3-sized
// MoE.
std::vector<Workload> RealScaleWorkloads();

// One model stacked to growing depth, for the nodes-vs-time series.
std::vector<Workload> ScaleSeriesWorkloads();

// The contenders comparison (issue 5): Llama-3-8B prefill 8k and 32k, Llama-3-70B decode with
// a 32k KV cache at batch 1 and 16, Llama-3-405B prefill, the DeepSeek-V3-sized MoE, and a
// Llama-3-8B training step. `quick`: the two smallest.
std::vector<Workload> CompareWorkloads(bool quick);

// argv for hyperplan-gen writing `workload` to `path`.
std::vector<std::string> GeneratorArgs(const std::string& generator_path, const Workload& workload,
                                       const std::string& path);

// The cached model file name for `workload` (without the directory).
std::string ModelFileName(const Workload& workload);

}  // namespace hyperplan::bench
