// Routes: fewest-hop chains of links between two tiers, and their transfer time.
//
// Shared by the planner and the contenders so that every contender moves bytes over the same
// routes (NVMe behind DDR is two hops). Breadth-first over tiers with links scanned in index
// order, so ties resolve the same way every run. Links with no bandwidth or no channel are
// never used. Cost: O(tiers + links) per route.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hyperplan/hardware.h"

namespace hyperplan {

using Route = std::vector<int32_t>;  // link indices, first hop first; empty: same tier

// The fewest-hop route from -> to, or nullopt when there is none.
std::optional<Route> FindRoute(const HardwareProfile& profile, TierId from, TierId to);

// Sum of the hops' transfer times for `bytes`, each at one channel's share of its link.
int64_t RouteTimeNs(const HardwareProfile& profile, const Route& route, int64_t bytes);

// The routes between the device and every other tier, by TierId (the device's own: nullopt).
struct DeviceRoutes {
  std::vector<std::optional<Route>> to_device;
  std::vector<std::optional<Route>> from_device;

  // Whether a copy on `tier` reaches the device through another tier (NVMe behind DDR): a
  // staging hop that can run ahead of the device hop.
  bool BehindStagingTier(TierId tier) const {
    return tier != kNoTier && static_cast<size_t>(tier) < to_device.size() && to_device[tier] &&
           to_device[tier]->size() >= 2;
  }
};

DeviceRoutes FindDeviceRoutes(const HardwareProfile& profile);

// The bandwidths of the links into and out of the device, each summed over its links: every
// byte that enters or leaves the device crosses one of them, so bytes over these rates bound
// how soon they can all have moved.
struct DeviceLinkRates {
  int64_t into_device_bytes_per_s = 0;
  int64_t out_of_device_bytes_per_s = 0;
};
DeviceLinkRates SumDeviceLinkRates(const HardwareProfile& profile);

}  // namespace hyperplan
