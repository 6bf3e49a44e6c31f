// The layout benchmark: arena and tier-buffer layouts of real-scale plans, before and after
// greedy by size at any size, and how long each layout algorithm takes on them.
//
// For each selected workload x profile (default: the three that planner-findings.md measured:
// 405B prefill 8k, the DeepSeek-V3-sized decode and the 8B training step, on h100-sxm with the
// weight home moved to NVMe where DDR is too small): the planner at the device capacity with
// the sweep alone (what ran above 4096 intervals before) and with the default layout; then, on
// the default plan's residency, each algorithm timed alone (best of three) and the tier
// buffers against their live peaks and capacities. Markdown on stdout.
// Cost: two plans per pair (seconds to a minute each at this scale) plus the timed layouts.
#pragma once

#include <string>
#include <vector>

namespace hyperplan::bench {

struct LayoutBenchOptions {
  std::string models_dir;
  std::vector<std::string> workloads;  // label substrings; empty: the default three
  std::vector<std::string> profiles;   // file name substrings; empty: h100-sxm.yaml
};

int RunLayoutBench(const LayoutBenchOptions& options);

}  // namespace hyperplan::bench
