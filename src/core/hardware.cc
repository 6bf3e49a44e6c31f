// HardwareProfile lookups (see hardware.h).
#include "hyperplan/hardware.h"

#include <algorithm>

namespace hyperplan {

std::string_view ComputeUnitName(ComputeUnit unit) {
  return unit == ComputeUnit::kHost ? "host" : "device";
}

TierId HardwareProfile::FindTier(const std::string& tier_name) const {
  for (size_t i = 0; i < tiers.size(); ++i) {
    if (tiers[i].name == tier_name) return static_cast<TierId>(i);
  }
  return kNoTier;
}

const Link* HardwareProfile::FindLink(TierId from, TierId to) const {
  for (const Link& link : links) {
    if (link.from == from && link.to == to) return &link;
  }
  return nullptr;
}

int64_t HardwareProfile::PeakFlopsPerS(DType dtype) const {
  const auto& peaks = compute.peak_flops_per_s;
  if (auto it = peaks.find(dtype); it != peaks.end()) return it->second;
  if (auto it = peaks.find(DType::kFloat32); it != peaks.end()) return it->second;
  int64_t best = 0;
  for (const auto& [unused, flops_per_s] : peaks) best = std::max(best, flops_per_s);
  return best;
}

// Every CPU computes float, so float's rate is the fallback (a type without its own units,
// float16 on a CPU without AMX-FP16, converts and computes in float). 0 only for a spec built
// in code without float; the profile reader refuses one.
int64_t HostComputeSpec::PeakFlopsPerSocket(DType dtype) const {
  if (auto it = peak_flops_per_s.find(dtype); it != peak_flops_per_s.end()) return it->second;
  if (auto it = peak_flops_per_s.find(DType::kFloat32); it != peak_flops_per_s.end()) {
    return it->second;
  }
  return 0;
}

}  // namespace hyperplan
