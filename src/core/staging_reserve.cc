// The staging reserve of each tier (see hyperplan/staging_reserve.h).
#include "hyperplan/staging_reserve.h"

#include <algorithm>

namespace hyperplan {
namespace {

// By TierId: whether a route to or from the device has a hop that lands in the tier and is not
// the route's last (a staging copy lives there between the two hops).
std::vector<uint8_t> StagingTiers(const HardwareProfile& profile, const DeviceRoutes& routes) {
  std::vector<uint8_t> stages(profile.tiers.size(), 0);
  auto mark = [&](const std::optional<Route>& route) {
    if (!route) return;
    for (size_t h = 0; h + 1 < route->size(); ++h) stages[profile.links[(*route)[h]].to] = 1;
  };
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    mark(routes.to_device[tier]);
    mark(routes.from_device[tier]);
  }
  return stages;
}

// By TierId: the bytes of the copies that may be stored in the tier at once: each value stored
// to it, and each produced value when the host computes from it (a host step writes its output
// there), counted once.
std::vector<int64_t> StoredBytes(const Graph& graph, const HardwareProfile& profile,
                                 const std::vector<TierId>& store_tier) {
  std::vector<int64_t> stored(profile.tiers.size(), 0);
  const TierId host_tier =
      profile.host_compute.present() ? profile.host_compute.memory_tier : kNoTier;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (!value.size_known || value.bytes <= 0) continue;
    const TierId tier = store_tier[id];
    if (tier != kNoTier) stored[tier] += value.bytes;
    if (host_tier != kNoTier && tier != host_tier && value.producer != kNoNode) {
      stored[host_tier] += value.bytes;
    }
  }
  return stored;
}

// The largest value with a copy off the device (homed or stored): the most one staged transfer
// can carry, wherever the spill sends it.
int64_t LargestMovableBytes(const Graph& graph, const std::vector<TierId>& home_tier,
                            const std::vector<TierId>& store_tier) {
  int64_t largest = 0;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (!value.size_known || (home_tier[id] == kNoTier && store_tier[id] == kNoTier)) continue;
    largest = std::max(largest, value.bytes);
  }
  return largest;
}

}  // namespace

std::vector<int64_t> StagingReserveBytes(const Graph& graph, const HardwareProfile& profile,
                                         const DeviceRoutes& routes,
                                         const std::vector<TierId>& home_tier,
                                         const std::vector<TierId>& store_tier) {
  const std::vector<uint8_t> stages = StagingTiers(profile, routes);
  const std::vector<int64_t> stored = StoredBytes(graph, profile, store_tier);
  const int64_t largest = LargestMovableBytes(graph, home_tier, store_tier);
  std::vector<int64_t> reserve(profile.tiers.size(), 0);
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    const int64_t capacity = profile.tiers[tier].capacity_bytes;
    if (capacity <= 0) continue;
    const int64_t needed = stored[tier] + (stages[tier] ? largest : 0);
    reserve[tier] = std::min(capacity / kStagingReserveDivisor, needed);
  }
  return reserve;
}

}  // namespace hyperplan
