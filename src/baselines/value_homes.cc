// Value homes and routes (see value_homes.h).
#include "baselines/value_homes.h"


namespace hyperplan::baselines {
namespace {

bool HomedClass(ValueClass value_class) {
  return value_class == ValueClass::kWeight || value_class == ValueClass::kKvCache ||
         value_class == ValueClass::kOptimizerState;
}

// The non-device tier with routes both ways and the cheapest round trip for `bytes`.
TierId OffloadTier(const HardwareProfile& profile, const Routes& routes, int64_t bytes) {
  TierId best = kNoTier;
  int64_t best_ns = 0;
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    if (static_cast<TierId>(tier) == profile.device_tier) continue;
    if (!routes.to_device[tier] || !routes.from_device[tier]) continue;
    const int64_t round_trip_ns = RouteTimeNs(profile, *routes.from_device[tier], bytes) +
                                  RouteTimeNs(profile, *routes.to_device[tier], bytes);
    if (best == kNoTier || round_trip_ns < best_ns) {
      best = static_cast<TierId>(tier);
      best_ns = round_trip_ns;
    }
  }
  return best;
}

}  // namespace

Routes FindRoutes(const HardwareProfile& profile) {
  Routes routes;
  routes.to_device.resize(profile.tiers.size());
  routes.from_device.resize(profile.tiers.size());
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    if (static_cast<TierId>(tier) == profile.device_tier) continue;
    routes.to_device[tier] = FindRoute(profile, static_cast<TierId>(tier), profile.device_tier);
    routes.from_device[tier] = FindRoute(profile, profile.device_tier, static_cast<TierId>(tier));
  }
  return routes;
}

ValueHomes DecideHomes(const Graph& graph, const HardwareProfile& profile, const Routes& routes,
                       const std::vector<uint8_t>& persistent) {
  ValueHomes homes;
  homes.home_tier.assign(graph.values.size(), kNoTier);
  homes.store_tier.assign(graph.values.size(), kNoTier);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (!value.size_known || value.bytes <= 0) continue;
    const bool produced = value.producer != kNoNode;
    if (!produced && value.value_class == ValueClass::kWeight) {
      const TierId home = profile.weight_home_tier;
      if (home != kNoTier && home != profile.device_tier && routes.to_device[home]) {
        homes.home_tier[id] = home;
      }
      continue;
    }
    const TierId tier = OffloadTier(profile, routes, value.bytes);
    if (tier == kNoTier) continue;
    const bool persists = !persistent.empty() && persistent[id];
    if (!produced && (HomedClass(value.value_class) || persists)) {
      homes.home_tier[id] = tier;
    } else {
      homes.store_tier[id] = tier;
    }
  }
  return homes;
}

}  // namespace hyperplan::baselines
