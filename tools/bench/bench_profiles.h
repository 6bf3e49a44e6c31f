// The shipped hardware profiles (configs/*.yaml) the comparison runs on, and the one
// adjustment a workload may need: when the weights, with the KV cache and optimizer state fed
// in, outgrow the profile's weight home tier (405B or DeepSeek-V3 weights, or 70B weights
// beside a batch-16 32k KV cache, against 256-512 GB of host memory), the weight home moves to
// the largest other tier that holds the weights (NVMe behind DDR), as ZeRO-Infinity and
// FlexGen do; the note says so in the table.
// Cost: one YAML load per profile. Limits: the profiles are read from the source tree.
#pragma once

#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan::bench {

struct NamedProfile {
  std::string file;  // e.g. "h100-sxm.yaml"
  HardwareProfile profile;
};

// configs/h100-sxm.yaml, gh200.yaml, a100-pcie4.yaml, supernode.yaml, in that order.
std::vector<NamedProfile> ShippedProfiles();

// Moves the weight home when what it must hold does not fit; returns a note ("" if none).
std::string FitWeightHome(const Graph& graph, HardwareProfile& profile);

}  // namespace hyperplan::bench
