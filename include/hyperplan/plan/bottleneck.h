// Bottleneck: what bounds an iteration of a plan, as shares of its simulated time.
//
// The compute stream's work (the sum of its node times) is split node by node by the roofline
// term that sets each node's time (cost.h): the kernel launch overhead is "launches"; the rest
// is "FLOPs" where the node's FLOPs at attainable peak outlast its bytes at sustained HBM
// bandwidth, else "HBM traffic" (ties go to HBM traffic). A node time measured rather than
// estimated (--node-times) is split the same way: launch overhead first, the remainder to the
// node's estimated bound. The compute stream's waits (the makespan less its work: stalls on
// transfers and any tail after its last step) are "compute waits". A link's busy time is the
// time its transfers run, summed over its channels and divided by the channel count (a link of
// c channels gives each 1/c of its bandwidth, so c transfers at once keep it busy once; on a
// one-channel link this is exactly the time it is transferring).
// Host compute steps (issue 30) are the host lane's work, split by the host roofline term that
// sets their time (host_cost.h): "host memory" (the host's DDR reads) or "host FLOPs"; the
// compute stream's waits count the device's alone.
// The bottleneck is the largest of FLOPs, HBM traffic, launches, host memory, host FLOPs and
// each link (ties: that order, then the lower link index); waits are not a resource, so never the
// bottleneck (the link they wait on is). "bottleneck: " is printed as "HBM traffic 71% of the 2.26
// s iteration (launches 9%, FLOPs 6%, ddr->hbm 2%; compute waits 12%)": the compute shares and the
// waits add up to the makespan; links overlap them. Cost: O(nodes + steps). Limits: a resource that
// is busy is not always the one that stalls; a link's latency counts as busy time; a measured node
// time keeps its estimated bound.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

enum class BoundKind : uint8_t { kFlops, kHbmTraffic, kLaunches, kHostMemory, kHostFlops, kLink };

struct Bottleneck {
  BoundKind kind = BoundKind::kHbmTraffic;
  int32_t link = -1;  // kLink: the link's index
  int64_t busy_ns = 0;
  int64_t makespan_ns = 0;
  bool periodic = false;  // an iteration, not a run: how the text names the makespan
  // The compute stream: its work split three ways (the parts sum to compute_busy_ns), and its
  // waits (makespan_ns - compute_busy_ns, never below 0).
  int64_t flops_ns = 0;
  int64_t hbm_traffic_ns = 0;
  int64_t launch_ns = 0;
  int64_t compute_busy_ns = 0;
  int64_t compute_wait_ns = 0;
  // The host lane's work (host compute steps), by the host roofline term that sets each.
  int64_t host_memory_ns = 0;
  int64_t host_flops_ns = 0;
  std::vector<int64_t> link_busy_ns;  // by link index
};

// Busy time of each link in `timeline` (parallel to plan.steps), by link index.
std::vector<int64_t> LinkBusyNs(const HardwareProfile& profile, const Plan& plan,
                                const SimulationResult& timeline);

// `timeline` is the plan's simulation (Simulate or EvaluatePlan).
Bottleneck FindBottleneck(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                          const SimulationResult& timeline);

// Nothing offloaded: the compute stream alone, each node taking `node_time_ns` (by NodeId), one
// after another (so no waits and no link busy).
Bottleneck NoOffloadBottleneck(const Graph& graph, const HardwareProfile& profile,
                               const std::vector<int64_t>& node_time_ns, bool periodic);

// "HBM traffic", "FLOPs", "launches", or the link as "ddr->hbm".
std::string BottleneckName(const HardwareProfile& profile, const Bottleneck& bottleneck);

// "HBM traffic 71% of the 2.26 s iteration (launches 9%, FLOPs 6%, ddr->hbm 2%; compute waits
// 12%)": the bottleneck, then every other share that rounds to at least 1%, largest first.
std::string DescribeBottleneck(const HardwareProfile& profile, const Bottleneck& bottleneck);

// Whole percent of `part_ns` in `whole_ns`, rounded half up; 0 when `whole_ns` is 0.
int64_t SharePercent(int64_t part_ns, int64_t whole_ns);

}  // namespace hyperplan
