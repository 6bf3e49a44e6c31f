// The `links` section: directed transfer paths between tiers.
//
// An entry with reverse_bandwidth is two links (from -> to and to -> from) sharing latency and
// channels, because real links are often asymmetric (PCIe: ~35 GB/s host-to-device against
// ~53 GB/s device-to-host) while their setup cost is not. Checks: endpoints name known,
// distinct tiers; bandwidths positive; latency a duration; channels 1..kMaxChannels; no
// (from, to) pair defined twice, counting the reverse links. Cost: quadratic in the number of
// links (a handful).
#include <fmt/format.h>

#include <array>

#include "profile/sections.h"

namespace hyperplan::profile {
namespace {

constexpr std::array<KeySpec, 6> kLinkKeys = {{
    {"from", true},
    {"to", true},
    {"bandwidth", true},
    {"reverse_bandwidth", false},
    {"latency", false},
    {"channels", false},
}};

// More concurrent copy streams than any DMA engine offers; a larger number is a typo.
constexpr int64_t kMaxChannels = 1024;

std::optional<TierId> ReadTierName(const Field* field, const HardwareProfile& profile,
                                   Diagnostics& diagnostics) {
  if (field == nullptr) return std::nullopt;
  std::optional<std::string> name = ReadString(*field, diagnostics);
  if (!name) return std::nullopt;
  const TierId tier = profile.FindTier(*name);
  if (tier == kNoTier) {
    diagnostics.Report(field->mark(), field->Blame(fmt::format("unknown tier '{}'; tiers are {}",
                                                               *name, TierNameList(profile))));
    return std::nullopt;
  }
  return tier;
}

struct DefinedLink {
  TierId from;
  TierId to;
  int line;  // 1-based line of the entry that defined it
};

}  // namespace

bool ReadLinks(const Field& field, HardwareProfile& profile, Diagnostics& diagnostics) {
  std::optional<std::vector<Field>> items = ReadSequence(field, diagnostics);
  if (!items) return false;
  bool complete = true;
  std::vector<DefinedLink> defined;
  // Reports a second definition of from -> to at `blame`; returns whether it is new.
  auto claim = [&](TierId from, TierId to, const Field& blame, int line) {
    for (const DefinedLink& link : defined) {
      if (link.from == from && link.to == to) {
        diagnostics.Report(
            blame.key_mark,
            blame.Blame(fmt::format("duplicate link {} -> {} (first at line {})",
                                    profile.tiers[from].name, profile.tiers[to].name, link.line)));
        return false;
      }
    }
    defined.push_back({from, to, line});
    return true;
  };

  for (const Field& item : *items) {
    std::optional<Mapping> mapping = Mapping::Read(item, kLinkKeys, diagnostics);
    if (!mapping) {
      complete = false;
      continue;
    }
    const std::optional<TierId> from = ReadTierName(mapping->Find("from"), profile, diagnostics);
    const std::optional<TierId> to = ReadTierName(mapping->Find("to"), profile, diagnostics);
    Link link;
    if (const Field* bandwidth = mapping->Find("bandwidth")) {
      link.bandwidth_bytes_per_s =
          ReadQuantity(*bandwidth, Quantity::kBytesPerSecond, Sign::kPositive, diagnostics)
              .value_or(0);
    }
    const Field* reverse = mapping->Find("reverse_bandwidth");
    int64_t reverse_bytes_per_s = 0;
    if (reverse != nullptr) {
      reverse_bytes_per_s =
          ReadQuantity(*reverse, Quantity::kBytesPerSecond, Sign::kPositive, diagnostics)
              .value_or(0);
    }
    if (const Field* latency = mapping->Find("latency")) {
      link.latency_ns =
          ReadQuantity(*latency, Quantity::kDuration, Sign::kNonNegative, diagnostics).value_or(0);
    }
    if (const Field* channels = mapping->Find("channels")) {
      link.channels =
          static_cast<int32_t>(ReadInteger(*channels, 1, kMaxChannels, diagnostics).value_or(1));
    }

    if (!from || !to) {
      complete = false;
      continue;
    }
    if (*from == *to) {
      diagnostics.Report(item.mark(),
                         item.Blame(fmt::format("link from '{}' to itself; a link joins two "
                                                "different tiers",
                                                profile.tiers[*from].name)));
      continue;
    }
    const int line = item.mark().line + 1;
    link.from = *from;
    link.to = *to;
    if (claim(*from, *to, item, line)) profile.links.push_back(link);
    if (reverse != nullptr) {
      Link back = link;
      back.from = *to;
      back.to = *from;
      back.bandwidth_bytes_per_s = reverse_bytes_per_s;
      if (claim(*to, *from, *reverse, line)) profile.links.push_back(back);
    }
  }
  return complete;
}

}  // namespace hyperplan::profile
