// Routes between tiers (see hyperplan/routes.h).
#include "hyperplan/routes.h"

#include <algorithm>
#include <deque>

#include "hyperplan/cost.h"

namespace hyperplan {

std::optional<Route> FindRoute(const HardwareProfile& profile, TierId from, TierId to) {
  if (from == to) return Route{};
  const size_t tier_count = profile.tiers.size();
  if (from < 0 || to < 0 || static_cast<size_t>(from) >= tier_count ||
      static_cast<size_t>(to) >= tier_count) {
    return std::nullopt;
  }
  // Breadth-first over tiers; links scanned in index order so ties resolve the same way.
  std::vector<int32_t> via_link(tier_count, -1);
  std::vector<bool> seen(tier_count, false);
  std::deque<TierId> queue{from};
  seen[from] = true;
  while (!queue.empty()) {
    const TierId tier = queue.front();
    queue.pop_front();
    for (size_t i = 0; i < profile.links.size(); ++i) {
      const Link& link = profile.links[i];
      if (link.from != tier || link.to < 0 || static_cast<size_t>(link.to) >= tier_count ||
          seen[link.to] || link.bandwidth_bytes_per_s <= 0 || link.channels <= 0) {
        continue;
      }
      seen[link.to] = true;
      via_link[link.to] = static_cast<int32_t>(i);
      queue.push_back(link.to);
    }
  }
  if (!seen[to]) return std::nullopt;
  Route route;
  for (TierId tier = to; tier != from; tier = profile.links[via_link[tier]].from) {
    route.push_back(via_link[tier]);
  }
  std::reverse(route.begin(), route.end());
  return route;
}

int64_t RouteTimeNs(const HardwareProfile& profile, const Route& route, int64_t bytes) {
  int64_t total_ns = 0;
  for (int32_t link : route) total_ns += ChannelTransferTimeNs(profile.links[link], bytes);
  return total_ns;
}

DeviceRoutes FindDeviceRoutes(const HardwareProfile& profile) {
  DeviceRoutes routes;
  routes.to_device.resize(profile.tiers.size());
  routes.from_device.resize(profile.tiers.size());
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    const auto id = static_cast<TierId>(tier);
    if (id == profile.device_tier) continue;
    routes.to_device[tier] = FindRoute(profile, id, profile.device_tier);
    routes.from_device[tier] = FindRoute(profile, profile.device_tier, id);
  }
  return routes;
}

DeviceLinkRates SumDeviceLinkRates(const HardwareProfile& profile) {
  DeviceLinkRates rates;
  for (const Link& link : profile.links) {
    if (link.to == profile.device_tier && link.from != profile.device_tier) {
      rates.into_device_bytes_per_s += link.bandwidth_bytes_per_s;
    }
    if (link.from == profile.device_tier && link.to != profile.device_tier) {
      rates.out_of_device_bytes_per_s += link.bandwidth_bytes_per_s;
    }
  }
  return rates;
}

}  // namespace hyperplan
