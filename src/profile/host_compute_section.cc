// The `host_compute` section: the host's CPUs as a second compute unit (issue 30), per socket.
//
// Checks: `tier` names a known tier other than the device (the memory the CPUs compute from);
// sockets 1..kMaxSockets and cores_per_socket 1..kMaxCores, whole numbers; `peak` as the
// device's peak table, and it must give `float` (every CPU computes in float, and a type
// without its own entry computes at float's rate); memory_bandwidth positive; efficiency,
// memory_efficiency and share fractions in (0, 1] kept exactly in ppm; op_overhead a duration.
// An absent or empty section leaves the profile without a host unit (sockets 0). Cost: linear
// in the entries.
#include <fmt/format.h>

#include <array>
#include <optional>
#include <string>

#include "profile/sections.h"

namespace hyperplan::profile {
namespace {

constexpr std::array<KeySpec, 9> kHostComputeKeys = {{
    {"tier", true},
    {"sockets", true},
    {"cores_per_socket", true},
    {"peak", true},
    {"memory_bandwidth", true},
    {"efficiency", false},
    {"memory_efficiency", false},
    {"share", false},
    {"op_overhead", false},
}};

// Eight-socket servers are the largest sold; a number past 64 is a typo.
constexpr int64_t kMaxSockets = 64;
// Above any CPU's core count per socket (288 in 2024); a larger number is a typo.
constexpr int64_t kMaxCores = 4096;

// The tier the CPUs compute from: known, and not the device (the device's memory is the
// device unit's).
TierId ReadHostTier(const Field& field, const HardwareProfile& profile, Diagnostics& diagnostics) {
  std::optional<std::string> name = ReadString(field, diagnostics);
  if (!name) return kNoTier;
  const TierId tier = profile.FindTier(*name);
  if (tier == kNoTier) {
    diagnostics.Report(field.mark(), field.Blame(fmt::format("unknown tier '{}'; tiers are {}",
                                                             *name, TierNameList(profile))));
    return kNoTier;
  }
  if (tier == profile.device_tier) {
    diagnostics.Report(field.mark(),
                       field.Blame(fmt::format("'{}' is the device tier; the host computes from "
                                               "host memory (a tier off the device)",
                                               *name)));
    return kNoTier;
  }
  return tier;
}

// Whether the table names float under any spelling, read or not: a float entry with a bad
// value is reported as that, not also as missing.
bool NamesFloat(const Field& field) {
  if (!field.value.IsMap()) return false;
  for (const auto& entry : field.value) {
    if (!entry.first.IsScalar()) continue;
    if (ParseDType(entry.first.Scalar()) == std::optional<DType>(DType::kFloat32)) return true;
  }
  return false;
}

void ReadHostPeaks(const Field& field, HostComputeSpec& host, Diagnostics& diagnostics) {
  ReadPeakTable(field, host.peak_flops_per_s, diagnostics);
  if (field.value.IsMap() && field.value.size() > 0 && !NamesFloat(field)) {
    diagnostics.Report(field.mark(), field.Blame("float is required: every CPU computes in "
                                                 "float, and a type without its own peak "
                                                 "computes at float's rate"));
  }
}

int32_t ReadCount(const Field* field, int64_t max, Diagnostics& diagnostics) {
  if (field == nullptr) return 0;
  return static_cast<int32_t>(ReadInteger(*field, 1, max, diagnostics).value_or(0));
}

void ReadHostFractions(const Mapping& mapping, HostComputeSpec& host, Diagnostics& diagnostics) {
  const std::array<std::pair<std::string_view, int64_t*>, 3> fractions = {{
      {"efficiency", &host.efficiency_ppm},
      {"memory_efficiency", &host.memory_efficiency_ppm},
      {"share", &host.share_ppm},
  }};
  for (const auto& [key, ppm] : fractions) {
    if (const Field* field = mapping.Find(key)) {
      if (std::optional<int64_t> value = ReadFraction(*field, diagnostics)) *ppm = *value;
    }
  }
}

}  // namespace

void ReadHostCompute(const Field* field, HardwareProfile& profile, Diagnostics& diagnostics) {
  if (field == nullptr) return;
  std::optional<Mapping> mapping = Mapping::Read(*field, kHostComputeKeys, diagnostics);
  if (!mapping) return;
  HostComputeSpec& host = profile.host_compute;
  if (const Field* tier = mapping->Find("tier")) {
    host.memory_tier = ReadHostTier(*tier, profile, diagnostics);
  }
  host.sockets = ReadCount(mapping->Find("sockets"), kMaxSockets, diagnostics);
  host.cores_per_socket = ReadCount(mapping->Find("cores_per_socket"), kMaxCores, diagnostics);
  if (const Field* peak = mapping->Find("peak")) ReadHostPeaks(*peak, host, diagnostics);
  if (const Field* bandwidth = mapping->Find("memory_bandwidth")) {
    host.memory_bandwidth_bytes_per_s =
        ReadQuantity(*bandwidth, Quantity::kBytesPerSecond, Sign::kPositive, diagnostics)
            .value_or(0);
  }
  ReadHostFractions(*mapping, host, diagnostics);
  if (const Field* overhead = mapping->Find("op_overhead")) {
    host.op_overhead_ns =
        ReadQuantity(*overhead, Quantity::kDuration, Sign::kNonNegative, diagnostics).value_or(0);
  }
}

}  // namespace hyperplan::profile
