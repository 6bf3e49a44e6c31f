// The `tiers` section: memory tiers, their capacities and which one is the device.
//
// Checks: at least one tier; names present, well formed and unique; capacity a positive byte
// count; alignment (default kDefaultAlignmentBytes) a power of two of at most 1 GiB; exactly
// one tier with device: true. Cost: quadratic in the number of tiers (a
// handful). Limits: a tier whose name cannot be read is left out of the table, so links that
// meant it are reported as naming an unknown tier too.
#include <fmt/format.h>

#include <array>

#include "profile/sections.h"

namespace hyperplan::profile {
namespace {

constexpr std::array<KeySpec, 4> kTierKeys = {{
    {"name", true},
    {"capacity", true},
    {"device", false},
    {"alignment", false},
}};

// GPU and NPU libraries want their operands 256-byte aligned (cuBLAS, cuDNN; cudaMalloc
// returns 256-byte aligned memory), and 256 bytes costs a host buffer nothing.
constexpr int64_t kDefaultAlignmentBytes = 256;
constexpr int64_t kMaxAlignmentBytes = int64_t{1} << 30;

// Names end up in plans, reports and trace files; keeping them to one plain token means none
// of those formats needs quoting rules for them.
bool IsWellFormedName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// One tier's entry as read, before its name is checked against the earlier tiers.
struct TierEntry {
  Tier tier;
  std::optional<std::string> name;  // none when unreadable
  const Field* name_field = nullptr;
  const Field* device = nullptr;  // the `device:` field, when given
  bool readable = true;           // every optional field read
};

std::optional<int64_t> ReadAlignment(const Field& alignment, Diagnostics& diagnostics) {
  std::optional<int64_t> bytes =
      ReadQuantity(alignment, Quantity::kBytes, Sign::kPositive, diagnostics);
  if (bytes && (*bytes > kMaxAlignmentBytes || (*bytes & (*bytes - 1)) != 0)) {
    diagnostics.Report(
        alignment.mark(),
        alignment.Blame(fmt::format("{} bytes is not a power of two of at most 1GiB", *bytes)));
  }
  return bytes;
}

TierEntry ReadTierEntry(const Mapping& mapping, Diagnostics& diagnostics) {
  TierEntry entry;
  entry.name_field = mapping.Find("name");
  if (entry.name_field != nullptr) entry.name = ReadString(*entry.name_field, diagnostics);
  if (entry.name && !IsWellFormedName(*entry.name)) {
    diagnostics.Report(
        entry.name_field->mark(),
        entry.name_field->Blame(fmt::format(
            "'{}' is not a valid tier name; use letters, digits, _ - and .", *entry.name)));
  }
  if (const Field* capacity = mapping.Find("capacity")) {
    std::optional<int64_t> bytes =
        ReadQuantity(*capacity, Quantity::kBytes, Sign::kPositive, diagnostics);
    entry.tier.capacity_bytes = bytes.value_or(0);
  }
  entry.tier.alignment_bytes = kDefaultAlignmentBytes;
  if (const Field* alignment = mapping.Find("alignment")) {
    std::optional<int64_t> bytes = ReadAlignment(*alignment, diagnostics);
    entry.readable = entry.readable && bytes.has_value();
    entry.tier.alignment_bytes = bytes.value_or(kDefaultAlignmentBytes);
  }
  entry.device = mapping.Find("device");
  if (entry.device != nullptr) {
    std::optional<bool> is_device = ReadBool(*entry.device, diagnostics);
    entry.readable = entry.readable && is_device.has_value();
    entry.tier.is_device = is_device.value_or(false);
  }
  return entry;
}

// The tiers accepted so far: where each was, and which say `device: true`.
struct TierTable {
  std::vector<int> tier_lines;  // 1-based line of each accepted tier, for "first at" notes
  std::vector<TierId> device_tiers;
  std::vector<Field> device_fields;  // the `device: true` of each device tier
};

// Exactly one device tier: the profile's device, else a diagnostic (none is reported only
// when every tier was read, since an unreadable one may have been it).
void PickDeviceTier(const Field& field, const TierTable& table, bool complete,
                    HardwareProfile& profile, Diagnostics& diagnostics) {
  const std::vector<TierId>& device_tiers = table.device_tiers;
  if (device_tiers.size() == 1) {
    profile.device_tier = device_tiers.front();
  } else if (device_tiers.empty() && complete) {
    diagnostics.Report(field.key_mark,
                       field.Blame("no tier has 'device: true'; exactly one tier must"));
  } else if (device_tiers.size() > 1) {
    const Tier& first = profile.tiers[device_tiers.front()];
    for (size_t i = 1; i < device_tiers.size(); ++i) {
      const Field& device = table.device_fields[i];
      diagnostics.Report(
          device.mark(),
          device.Blame(fmt::format("'{}' is a second device tier (the first is '{}' at line {}); "
                                   "exactly one tier must have 'device: true'",
                                   profile.tiers[device_tiers[i]].name, first.name,
                                   table.tier_lines[device_tiers.front()])));
    }
  }
}

}  // namespace

bool ReadTiers(const Field& field, HardwareProfile& profile, Diagnostics& diagnostics) {
  std::optional<std::vector<Field>> items = ReadSequence(field, diagnostics);
  if (!items) return false;
  if (items->empty()) {
    diagnostics.Report(field.mark(), field.Blame("at least one tier is required"));
    return false;
  }
  bool complete = true;
  TierTable table;
  for (const Field& item : *items) {
    std::optional<Mapping> mapping = Mapping::Read(item, kTierKeys, diagnostics);
    if (!mapping) {
      complete = false;
      continue;
    }
    TierEntry entry = ReadTierEntry(*mapping, diagnostics);
    if (!entry.name) {
      complete = false;
      continue;
    }
    const TierId earlier = profile.FindTier(*entry.name);
    if (earlier != kNoTier) {
      diagnostics.Report(
          entry.name_field->mark(),
          entry.name_field->Blame(fmt::format("duplicate tier name '{}' (first at line {})",
                                              *entry.name, table.tier_lines[earlier])));
      complete = false;
      continue;
    }
    complete = complete && entry.readable;
    entry.tier.name = *entry.name;
    if (entry.tier.is_device) {
      table.device_tiers.push_back(static_cast<TierId>(profile.tiers.size()));
      table.device_fields.push_back(*entry.device);
    }
    table.tier_lines.push_back(item.mark().line + 1);
    profile.tiers.push_back(std::move(entry.tier));
  }
  PickDeviceTier(field, table, complete, profile, diagnostics);
  return complete;
}

}  // namespace hyperplan::profile
