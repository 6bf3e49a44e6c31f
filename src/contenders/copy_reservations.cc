// Off-device copy reservations (see copy_reservations.h).
#include "contenders/copy_reservations.h"

#include <algorithm>
#include <limits>

namespace hyperplan::contenders {

CopyReservations::CopyReservations(const ContenderContext& context)
    : context_(context),
      used_bytes_(context.profile->tiers.size(), 0),
      reserved_(context.graph->values.size(), 0) {
  const HardwareProfile& profile = *context.profile;
  std::vector<int64_t> largest(profile.tiers.size(), 0);
  std::vector<int32_t> channels_in(profile.tiers.size(), 0);
  auto stage = [&](const std::optional<Route>& route, int64_t bytes) {
    if (!route) return;
    for (size_t h = 0; h + 1 < route->size(); ++h) {
      const Link& link = profile.links[(*route)[h]];
      largest[link.to] = std::max(largest[link.to], bytes);
      channels_in[link.to] = std::max(channels_in[link.to], link.channels);
    }
  };
  for (size_t id = 0; id < context.graph->values.size(); ++id) {
    const auto value = static_cast<ValueId>(id);
    const TierId tier = context.homes.OffTier(value);
    if (tier == kNoTier) continue;
    const int64_t bytes = context.graph->values[id].bytes;
    stage(context.routes.to_device[tier], bytes);
    if (!context.homes.Homed(value)) stage(context.routes.from_device[tier], bytes);
  }
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    used_bytes_[tier] = (channels_in[tier] + 1) * largest[tier];
  }
}

bool CopyReservations::Reserve(ValueId value) {
  if (reserved_[value]) return true;
  const TierId tier = context_.homes.OffTier(value);
  if (tier == kNoTier) return false;
  const int64_t bytes = context_.graph->values[value].bytes;
  const int64_t capacity = context_.profile->tiers[tier].capacity_bytes;
  if (capacity > 0 && used_bytes_[tier] + bytes > capacity) return false;
  used_bytes_[tier] += bytes;
  reserved_[value] = 1;
  return true;
}

int64_t CopyReservations::FreeBytes(TierId tier) const {
  const int64_t capacity = context_.profile->tiers[tier].capacity_bytes;
  if (capacity <= 0) return std::numeric_limits<int64_t>::max();
  return std::max<int64_t>(0, capacity - used_bytes_[tier]);
}

}  // namespace hyperplan::contenders
