// The `placement` section: where weights live when they are not on the device.
//
// An explicit weight_home must be a known tier other than the device with a route of links to
// the device (nvme behind ddr is two hops; weights are fetched, and stored back only when a
// training step updates them, which needs the way back too and is checked where planned).
// Without one, the default is the first non-device tier linked both ways to the device, the
// tier a runtime would also use for spilled activations; a profile with no such tier has no
// weight home (kNoTier: weights stay on the device). Cost: tiers x links.
#include <fmt/format.h>

#include <array>

#include "hyperplan/routes.h"
#include "profile/sections.h"

namespace hyperplan::profile {
namespace {

constexpr std::array<KeySpec, 1> kPlacementKeys = {{{"weight_home", false}}};

TierId DefaultWeightHome(const HardwareProfile& profile) {
  if (profile.device_tier == kNoTier) return kNoTier;
  for (size_t i = 0; i < profile.tiers.size(); ++i) {
    const auto tier = static_cast<TierId>(i);
    if (tier == profile.device_tier) continue;
    if (profile.FindLink(tier, profile.device_tier) != nullptr &&
        profile.FindLink(profile.device_tier, tier) != nullptr) {
      return tier;
    }
  }
  return kNoTier;
}

void ReadWeightHome(const Field& field, bool topology_complete, HardwareProfile& profile,
                    Diagnostics& diagnostics) {
  std::optional<std::string> name = ReadString(field, diagnostics);
  if (!name) return;
  const TierId tier = profile.FindTier(*name);
  if (tier == kNoTier) {
    diagnostics.Report(field.mark(), field.Blame(fmt::format("unknown tier '{}'; tiers are {}",
                                                             *name, TierNameList(profile))));
    return;
  }
  if (tier == profile.device_tier) {
    diagnostics.Report(field.mark(),
                       field.Blame(fmt::format("'{}' is the device tier; weight_home names "
                                               "where weights wait off the device",
                                               *name)));
    return;
  }
  if (topology_complete && profile.device_tier != kNoTier &&
      !FindRoute(profile, tier, profile.device_tier)) {
    diagnostics.Report(field.mark(),
                       field.Blame(fmt::format("no route of links from '{}' to the device tier "
                                               "'{}', so weights kept there could never be "
                                               "fetched",
                                               *name, profile.tiers[profile.device_tier].name)));
    return;
  }
  profile.weight_home_tier = tier;
}

}  // namespace

void ReadPlacement(const Field* field, bool topology_complete, HardwareProfile& profile,
                   Diagnostics& diagnostics) {
  const Field* weight_home = nullptr;
  std::optional<Mapping> mapping;
  if (field != nullptr) {
    mapping = Mapping::Read(*field, kPlacementKeys, diagnostics);
    if (mapping) weight_home = mapping->Find("weight_home");
  }
  if (weight_home != nullptr) {
    ReadWeightHome(*weight_home, topology_complete, profile, diagnostics);
  } else {
    profile.weight_home_tier = DefaultWeightHome(profile);
  }
}

}  // namespace hyperplan::profile
