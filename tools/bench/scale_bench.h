// `hyperplan-bench scale`: how the planner's time and memory grow, and what it plans at
// real scale (issues 3 and 5).
//
// Series: a Llama-3-8B decoder (decode form, 1k KV) stacked to about 1k, 10k, 100k and 1M
// nodes, planned at 50% of its no-offload peak on the H100 profile with the weights homed on
// NVMe (no host tier holds a million-node model's 3.5 TB of weights; profile files cannot
// home weights behind another tier, so this runs in the planning-only child, which moves the
// home in process). Per size: the child's import time, planning time, time / (n log2 n) and
// peak RSS (import included). Table: Llama-3-8B prefill 8k, Llama-3-70B decode
// 32k and the DeepSeek-V3-sized MoE on every shipped profile at the standard budgets: live
// peak, arena, simulated makespan, overhead, bytes moved, planning time and the child's RSS.
// Cost: generation of the stacked models once (cached; the 1M-node file is ~200 MB), then
// one child per row. Limits: wall times on a shared machine vary run to run.
#pragma once

#include <string>

namespace hyperplan::bench {

struct ScaleOptions {
  std::string models_dir;
  bool quick = false;  // series up to 100k nodes, table on one workload and profile
  bool series = true;
  bool table = true;
};

int RunScaleBench(const ScaleOptions& options);

}  // namespace hyperplan::bench
