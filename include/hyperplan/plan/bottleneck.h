// Bottleneck: the resource an iteration of a plan is bound by, from its simulated timeline.
//
// Busy time per resource: compute is the sum of node times (the compute stream's work; its
// waits are stalls, not work); a link is the time its transfers run, summed over its channels
// and divided by the channel count (a link of c channels gives each 1/c of its bandwidth, so c
// transfers at once keep it busy once; on a one-channel link this is exactly the time it is
// transferring). The bottleneck is the busiest resource (ties: compute, then the lower link
// index); a link at 90% of the makespan while compute sits at 5% is what decode from host
// memory looks like. Cost: O(steps). Limits: a resource that is busy is not always the one that
// stalls; a link's latency counts as busy time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

struct Bottleneck {
  int32_t link = -1;  // the busiest link's index; -1: compute
  int64_t busy_ns = 0;
  int64_t compute_busy_ns = 0;
  std::vector<int64_t> link_busy_ns;  // by link index
};

Bottleneck FindBottleneck(const HardwareProfile& profile, const Plan& plan);

// "compute", or the link as "ddr->hbm".
std::string BottleneckName(const HardwareProfile& profile, const Bottleneck& bottleneck);

// "ddr->hbm, busy 1.90 s of the 2.26 s iteration (84%)".
std::string DescribeBottleneck(const HardwareProfile& profile, const Plan& plan,
                               const Bottleneck& bottleneck);

}  // namespace hyperplan
