// Cold start of a periodic plan (see cold_start.h).
#include "hyperplan/plan/cold_start.h"

#include <algorithm>

#include "hyperplan/cost.h"
#include "hyperplan/routes.h"

namespace hyperplan {
namespace {

// By ValueId: the tier a persistent value's device copy is first brought from: its home
// copy's tier in the plan (the first copy open at the start), else the home the shared policy
// gives it (homes.h; spilled weights wait on NVMe). One pass over the copies, last to first,
// so the first such copy of a value is the one that stays.
std::vector<TierId> SourceTiers(const Graph& loop_graph, const ValueHomes& homes,
                                const Plan& plan) {
  std::vector<TierId> source = homes.home_tier;
  source.resize(loop_graph.values.size(), kNoTier);
  for (auto copy = plan.tier_copies.rbegin(); copy != plan.tier_copies.rend(); ++copy) {
    if (copy->opened_by < 0) source[copy->value] = copy->tier;
  }
  return source;
}

// The tier with the fastest route to the device for `bytes` (ties: lower id), or kNoTier.
TierId FastestSource(const HardwareProfile& profile, int64_t bytes) {
  TierId best = kNoTier;
  int64_t best_ns = 0;
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    if (static_cast<TierId>(tier) == profile.device_tier) continue;
    const std::optional<Route> route =
        FindRoute(profile, static_cast<TierId>(tier), profile.device_tier);
    if (!route) continue;
    const int64_t time_ns = RouteTimeNs(profile, *route, bytes);
    if (best == kNoTier || time_ns < best_ns) {
      best = static_cast<TierId>(tier);
      best_ns = time_ns;
    }
  }
  return best;
}

}  // namespace

ColdStart ComputeColdStart(const Graph& loop_graph, const HardwareProfile& profile,
                           const ValueHomes& homes, const Plan& plan) {
  ColdStart cold;
  cold.bytes_per_tier.assign(profile.tiers.size(), 0);
  if (!plan.periodic) return cold;
  const std::vector<uint8_t> persistent = PersistentValues(loop_graph, plan.aliases);
  for (const TierCopy& copy : plan.tier_copies) {
    if (copy.opened_by < 0 && persistent[copy.value]) cold.bytes_per_tier[copy.tier] += copy.bytes;
  }
  const std::vector<TierId> source_tier = SourceTiers(loop_graph, homes, plan);
  std::vector<int64_t> bytes_per_link(profile.links.size(), 0);
  std::vector<uint8_t> link_used(profile.links.size(), 0);
  for (const ResidentInterval& interval : plan.residency) {
    if (interval.value == kNoValue || interval.opened_by >= 0 || !persistent[interval.value]) {
      continue;
    }
    cold.bytes_per_tier[profile.device_tier] += interval.bytes;
    TierId source = source_tier[interval.value];
    std::optional<Route> route;
    if (source != kNoTier && source != profile.device_tier) {
      route = FindRoute(profile, source, profile.device_tier);
    }
    if (!route) {
      source = FastestSource(profile, interval.bytes);
      if (source == kNoTier) continue;
      route = FindRoute(profile, source, profile.device_tier);
    }
    for (int32_t link : *route) {
      bytes_per_link[link] += interval.bytes;
      link_used[link] = 1;
    }
  }
  for (size_t l = 0; l < profile.links.size(); ++l) {
    const Link& link = profile.links[l];
    if (!link_used[l] || link.bandwidth_bytes_per_s <= 0) continue;
    cold.time_ns = std::max(cold.time_ns, TransferTimeNs(link, bytes_per_link[l]));
  }
  return cold;
}

}  // namespace hyperplan
