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

}  // namespace

bool ReadTiers(const Field& field, HardwareProfile& profile, Diagnostics& diagnostics) {
  std::optional<std::vector<Field>> items = ReadSequence(field, diagnostics);
  if (!items) return false;
  if (items->empty()) {
    diagnostics.Report(field.mark(), field.Blame("at least one tier is required"));
    return false;
  }
  bool complete = true;
  std::vector<int> tier_lines;  // 1-based line of each accepted tier, for "first at" notes
  std::vector<TierId> device_tiers;
  std::vector<Field> device_fields;  // the `device: true` of each device tier
  for (const Field& item : *items) {
    std::optional<Mapping> mapping = Mapping::Read(item, kTierKeys, diagnostics);
    if (!mapping) {
      complete = false;
      continue;
    }
    Tier tier;
    bool readable = true;
    const Field* name_field = mapping->Find("name");
    std::optional<std::string> name;
    if (name_field != nullptr) name = ReadString(*name_field, diagnostics);
    if (name && !IsWellFormedName(*name)) {
      diagnostics.Report(
          name_field->mark(),
          name_field->Blame(
              fmt::format("'{}' is not a valid tier name; use letters, digits, _ - and .", *name)));
    }
    if (const Field* capacity = mapping->Find("capacity")) {
      std::optional<int64_t> bytes =
          ReadQuantity(*capacity, Quantity::kBytes, Sign::kPositive, diagnostics);
      tier.capacity_bytes = bytes.value_or(0);
    }
    tier.alignment_bytes = kDefaultAlignmentBytes;
    if (const Field* alignment = mapping->Find("alignment")) {
      std::optional<int64_t> bytes =
          ReadQuantity(*alignment, Quantity::kBytes, Sign::kPositive, diagnostics);
      if (bytes && (*bytes > kMaxAlignmentBytes || (*bytes & (*bytes - 1)) != 0)) {
        diagnostics.Report(alignment->mark(),
                           alignment->Blame(fmt::format(
                               "{} bytes is not a power of two of at most 1GiB", *bytes)));
      }
      readable = readable && bytes.has_value();
      tier.alignment_bytes = bytes.value_or(kDefaultAlignmentBytes);
    }
    const Field* device = mapping->Find("device");
    if (device != nullptr) {
      std::optional<bool> is_device = ReadBool(*device, diagnostics);
      readable = readable && is_device.has_value();
      tier.is_device = is_device.value_or(false);
    }
    if (!name) {
      complete = false;
      continue;
    }
    const TierId earlier = profile.FindTier(*name);
    if (earlier != kNoTier) {
      diagnostics.Report(name_field->mark(), name_field->Blame(fmt::format(
                                                 "duplicate tier name '{}' (first at line {})",
                                                 *name, tier_lines[earlier])));
      complete = false;
      continue;
    }
    complete = complete && readable;
    tier.name = *name;
    if (tier.is_device) {
      device_tiers.push_back(static_cast<TierId>(profile.tiers.size()));
      device_fields.push_back(*device);
    }
    tier_lines.push_back(item.mark().line + 1);
    profile.tiers.push_back(std::move(tier));
  }

  if (device_tiers.size() == 1) {
    profile.device_tier = device_tiers.front();
  } else if (device_tiers.empty() && complete) {
    diagnostics.Report(field.key_mark,
                       field.Blame("no tier has 'device: true'; exactly one tier must"));
  } else if (device_tiers.size() > 1) {
    const Tier& first = profile.tiers[device_tiers.front()];
    for (size_t i = 1; i < device_tiers.size(); ++i) {
      const Field& device = device_fields[i];
      diagnostics.Report(
          device.mark(),
          device.Blame(fmt::format("'{}' is a second device tier (the first is '{}' at line {}); "
                                   "exactly one tier must have 'device: true'",
                                   profile.tiers[device_tiers[i]].name, first.name,
                                   tier_lines[device_tiers.front()])));
    }
  }
  return complete;
}

}  // namespace hyperplan::profile
