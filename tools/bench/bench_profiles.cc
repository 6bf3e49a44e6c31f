// Shipped profiles for the benchmarks (see bench_profiles.h).
#include "bench_profiles.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "format.h"
#include "hyperplan/adapters/profile_yaml.h"

namespace hyperplan::bench {

std::vector<NamedProfile> ShippedProfiles() {
  return ShippedProfiles({"h100-sxm.yaml", "gh200.yaml", "a100-pcie4.yaml", "supernode.yaml"});
}

std::vector<NamedProfile> ShippedProfiles(const std::vector<std::string>& files) {
  std::vector<NamedProfile> profiles;
  for (const std::string& file : files) {
    profiles.push_back(
        {file, LoadProfileFile(std::string(HYPERPLAN_SOURCE_DIR) + "/configs/" + file)});
  }
  return profiles;
}

void SetTierCapacity(NamedProfile& named, const std::string& tier, int64_t bytes) {
  for (Tier& candidate : named.profile.tiers) {
    if (candidate.name != tier) continue;
    candidate.capacity_bytes = bytes;
    named.file += fmt::format(", {} {}", tier, Gigabytes(bytes));
    return;
  }
  throw std::runtime_error(fmt::format("{}: no tier named '{}'", named.file, tier));
}

std::string SpillNote(const HardwareProfile& profile, const ValueHomes& homes) {
  if (homes.SpilledBytes() == 0) return "";
  int64_t homed_bytes = 0;
  for (int64_t bytes : homes.homed_bytes_per_tier) homed_bytes += bytes;
  std::vector<std::string> spills;
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    if (homes.spilled_in_bytes_per_tier[tier] == 0) continue;
    spills.push_back(fmt::format("{} spilled to {}",
                                 Gigabytes(homes.spilled_in_bytes_per_tier[tier]),
                                 profile.tiers[tier].name));
  }
  if (profile.weight_home_tier == kNoTier) {
    return fmt::format("home copies spilled: {}", fmt::join(spills, ", "));
  }
  const Tier& home = profile.tiers[profile.weight_home_tier];
  return fmt::format(
      "weights, KV cache and optimizer state fed in ({}) exceed {} ({} less its {} "
      "staging reserve): {}",
      Gigabytes(homed_bytes), home.name, Gigabytes(home.capacity_bytes),
      Gigabytes(homes.staging_reserve_bytes_per_tier[profile.weight_home_tier]),
      fmt::join(spills, ", "));
}

}  // namespace hyperplan::bench
