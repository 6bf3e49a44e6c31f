// Shipped profiles for the benchmarks (see bench_profiles.h).
#include "bench_profiles.h"

#include <fmt/format.h>

#include "format.h"
#include "hyperplan/adapters/profile_yaml.h"

namespace hyperplan::bench {

std::vector<NamedProfile> ShippedProfiles() {
  std::vector<NamedProfile> profiles;
  for (const char* file : {"h100-sxm.yaml", "gh200.yaml", "a100-pcie4.yaml", "supernode.yaml"}) {
    profiles.push_back(
        {file, LoadProfileFile(std::string(HYPERPLAN_SOURCE_DIR) + "/configs/" + file)});
  }
  return profiles;
}

std::string FitWeightHome(const Graph& graph, HardwareProfile& profile) {
  // What lives in the weight home: the weights, and the KV cache and optimizer state fed in
  // (homed in the offload tier, which is the weight home on every shipped profile).
  int64_t weight_bytes = 0;
  int64_t state_bytes = 0;
  for (const Value& value : graph.values) {
    if (value.producer != kNoNode) continue;
    if (value.value_class == ValueClass::kWeight) weight_bytes += value.bytes;
    if (value.value_class == ValueClass::kKvCache ||
        value.value_class == ValueClass::kOptimizerState) {
      state_bytes += value.bytes;
    }
  }
  const TierId home = profile.weight_home_tier;
  if (home == kNoTier || profile.tiers[home].capacity_bytes <= 0 ||
      weight_bytes + state_bytes <= profile.tiers[home].capacity_bytes) {
    return "";
  }
  TierId best = kNoTier;
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    const Tier& candidate = profile.tiers[tier];
    if (static_cast<TierId>(tier) == profile.device_tier || static_cast<TierId>(tier) == home) {
      continue;
    }
    if (candidate.capacity_bytes > 0 && candidate.capacity_bytes < weight_bytes) continue;
    if (best == kNoTier || candidate.capacity_bytes > profile.tiers[best].capacity_bytes) {
      best = static_cast<TierId>(tier);
    }
  }
  const std::string held = state_bytes > 0
                               ? fmt::format("weights ({}) and KV cache / optimizer state ({})",
                                             Gigabytes(weight_bytes), Gigabytes(state_bytes))
                               : fmt::format("weights ({})", Gigabytes(weight_bytes));
  if (best == kNoTier) {
    return fmt::format("{} exceed {} ({}) and no other tier holds the weights", held,
                       profile.tiers[home].name, Gigabytes(profile.tiers[home].capacity_bytes));
  }
  profile.weight_home_tier = best;
  return fmt::format("{} exceed {} ({}): weight home moved to {}", held, profile.tiers[home].name,
                     Gigabytes(profile.tiers[home].capacity_bytes), profile.tiers[best].name);
}

}  // namespace hyperplan::bench
