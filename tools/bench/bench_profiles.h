// The shipped hardware profiles (configs/*.yaml) the comparison runs on, as shipped: when the
// weights, with the KV cache and optimizer state fed in, outgrow the profile's weight home
// tier (405B or DeepSeek-V3 weights, or 70B weights beside a batch-16 32k KV cache, against
// 256-512 GB of host memory), the shared home policy (hyperplan/homes.h) spills the
// earliest-used of them to the next tier (NVMe behind DDR) for every contender alike, so each
// row is what `hyperplan plan` gives with the same profile file; the note says what spilled.
// Cost: one YAML load per profile. Limits: the profiles are read from the source tree.
#pragma once

#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/homes.h"

namespace hyperplan::bench {

struct NamedProfile {
  std::string file;  // e.g. "h100-sxm.yaml"
  HardwareProfile profile;
};

// configs/h100-sxm.yaml, gh200.yaml, a100-pcie4.yaml, supernode.yaml, in that order.
std::vector<NamedProfile> ShippedProfiles();

// Those of `files` (names under configs/, e.g. "rtx-4090.yaml"), in that order: a workload
// that names its own profiles (workloads.h) runs on them instead.
std::vector<NamedProfile> ShippedProfiles(const std::vector<std::string>& files);

// Sets tier `tier`'s capacity to `bytes` and says so in `file` ("rtx-4090.yaml, ddr 128 GB"):
// a row that runs a shipped profile with more memory (workloads.h). Throws std::runtime_error
// when the profile has no such tier.
void SetTierCapacity(NamedProfile& named, const std::string& tier, int64_t bytes);

// What the home policy spilled, per tier it spilled into ("" when nothing did): e.g. "homes
// (381 GB) exceed ddr (256 GB less its 4.6 GB staging reserve): 131 GB spilled to nvme".
std::string SpillNote(const HardwareProfile& profile, const ValueHomes& homes);

}  // namespace hyperplan::bench
