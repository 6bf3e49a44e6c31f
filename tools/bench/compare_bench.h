// `hyperplan-bench compare`: every contender and hyperplan, through the same simulator and
// profile, on the issue-5 workloads and the shipped profiles, as Markdown.
//
// Per workload and profile: the no-offload reference (peak, arena, makespan), then per budget
// (the device capacity when the reference does not fit it; 90%, 74% and 50% of the reference
// live peak when within the capacity) a row per contender: fits, live peak, arena, makespan,
// overhead against no offloading, ratio to the makespan lower bound, bytes per link; and the
// lower bound's own row. Also hyperplan's no-budget mode (the largest cut within 1% overhead).
// On a profile with a host unit (issue 30), llama.cpp's -ot FFN placement joins the contenders,
// and the bound with host compute (host_lower_bound.h) gets a row beside the device-only one
// ("PCIe streaming"): "× bound" is then over it, and its row gives the relaxation's placement,
// hyperplan's speed-up over the device-only bound and its busy time per lane (device, host,
// each link). The host-compute workloads name their own profiles (workloads.h).
// At the end, the goals (2x faster than reactive at equal budget; within 10% of the lower
// bound where the links can hide the traffic; >= 26% lower peak at < 1% overhead on the
// supernode and GH200 profiles), each met or missed with its numbers.
// Cost: the models are generated once (cached); each plan is built and verified in process.
// Limits: simulated time from the roofline cost model, not measured kernels.
#pragma once

#include <string>
#include <vector>

namespace hyperplan::bench {

struct CompareOptions {
  std::string models_dir;
  bool quick = false;                  // two workloads, two profiles
  std::vector<std::string> workloads;  // substrings of labels to keep (empty: all)
  std::vector<std::string> profiles;   // substrings of profile files to keep (empty: all)
  // Instead of the tables: one line per planned cell, "workload | profile | budget | policy |
  // sha256", the digest of the plan as `hyperplan plan -o` writes it (planio::PlanSha256), so a
  // change that must not move any plan can be checked cell by cell.
  bool plan_digests = false;
};

int RunCompareBench(const CompareOptions& options);

}  // namespace hyperplan::bench
