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

// Reports a second definition of from -> to at `blame`; returns whether it is new.
bool Claim(std::vector<DefinedLink>& defined, TierId from, TierId to, const Field& blame, int line,
           const HardwareProfile& profile, Diagnostics& diagnostics) {
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
}

// One entry as read: its endpoints (none when unknown) and the link's numbers.
struct LinkEntry {
  std::optional<TierId> from;
  std::optional<TierId> to;
  Link link;
  const Field* reverse = nullptr;  // reverse_bandwidth, when given
  int64_t reverse_bytes_per_s = 0;
};

LinkEntry ReadLinkEntry(const Mapping& mapping, const HardwareProfile& profile,
                        Diagnostics& diagnostics) {
  LinkEntry entry;
  entry.from = ReadTierName(mapping.Find("from"), profile, diagnostics);
  entry.to = ReadTierName(mapping.Find("to"), profile, diagnostics);
  Link& link = entry.link;
  if (const Field* bandwidth = mapping.Find("bandwidth")) {
    link.bandwidth_bytes_per_s =
        ReadQuantity(*bandwidth, Quantity::kBytesPerSecond, Sign::kPositive, diagnostics)
            .value_or(0);
  }
  entry.reverse = mapping.Find("reverse_bandwidth");
  if (entry.reverse != nullptr) {
    entry.reverse_bytes_per_s =
        ReadQuantity(*entry.reverse, Quantity::kBytesPerSecond, Sign::kPositive, diagnostics)
            .value_or(0);
  }
  if (const Field* latency = mapping.Find("latency")) {
    link.latency_ns =
        ReadQuantity(*latency, Quantity::kDuration, Sign::kNonNegative, diagnostics).value_or(0);
  }
  if (const Field* channels = mapping.Find("channels")) {
    link.channels =
        static_cast<int32_t>(ReadInteger(*channels, 1, kMaxChannels, diagnostics).value_or(1));
  }
  return entry;
}

}  // namespace

bool ReadLinks(const Field& field, HardwareProfile& profile, Diagnostics& diagnostics) {
  std::optional<std::vector<Field>> items = ReadSequence(field, diagnostics);
  if (!items) return false;
  bool complete = true;
  std::vector<DefinedLink> defined;
  for (const Field& item : *items) {
    std::optional<Mapping> mapping = Mapping::Read(item, kLinkKeys, diagnostics);
    if (!mapping) {
      complete = false;
      continue;
    }
    const LinkEntry entry = ReadLinkEntry(*mapping, profile, diagnostics);
    const std::optional<TierId> from = entry.from;
    const std::optional<TierId> to = entry.to;
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
    Link link = entry.link;
    link.from = *from;
    link.to = *to;
    if (Claim(defined, *from, *to, item, line, profile, diagnostics)) {
      profile.links.push_back(link);
    }
    if (entry.reverse != nullptr) {
      Link back = link;
      back.from = *to;
      back.to = *from;
      back.bandwidth_bytes_per_s = entry.reverse_bytes_per_s;
      if (Claim(defined, *to, *from, *entry.reverse, line, profile, diagnostics)) {
        profile.links.push_back(back);
      }
    }
  }
  return complete;
}

}  // namespace hyperplan::profile
