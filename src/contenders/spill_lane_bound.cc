// The spill past the compute tiers (see spill_lane_bound.h).
#include "contenders/spill_lane_bound.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "hyperplan/routed_fetch.h"

namespace hyperplan::contenders {
namespace {

constexpr long double kNsPerSecond = 1e9L;

// The device's tier and the host compute unit's memory tier, by TierId.
std::vector<uint8_t> ComputeTiers(const HardwareProfile& profile) {
  std::vector<uint8_t> compute(profile.tiers.size(), 0);
  if (profile.device_tier != kNoTier) compute[profile.device_tier] = 1;
  const TierId host = profile.host_compute.memory_tier;
  if (profile.host_compute.present() && host != kNoTier) compute[host] = 1;
  return compute;
}

// K: the compute tiers' capacities summed; -1 when one is unlimited.
int64_t ComputeCapacityBytes(const HardwareProfile& profile, const std::vector<uint8_t>& compute) {
  int64_t total = 0;
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    if (!compute[tier]) continue;
    const int64_t capacity = profile.tiers[tier].capacity_bytes;
    if (capacity <= 0) return -1;
    total += capacity;
  }
  return total;
}

// r: the bandwidth of every link from a far tier into a compute tier.
int64_t FarBytesPerS(const HardwareProfile& profile, const std::vector<uint8_t>& compute) {
  int64_t total = 0;
  for (const Link& link : profile.links) {
    if (!compute[link.from] && compute[link.to]) total += link.bandwidth_bytes_per_s;
  }
  return total;
}

// Whether `value` exists before the iteration (a weight, or a value fed back: loop.h) and is
// read in it.
bool ReadFromBefore(const Problem& problem, ValueId value) {
  const Value& v = problem.graph->values[value];
  if (!v.size_known || v.bytes <= 0 || v.consumers.empty()) return false;
  const bool persistent =
      static_cast<size_t>(value) < problem.persistent.size() && problem.persistent[value];
  return v.is_initializer || persistent;
}

// The value's byte ranges by crossings per byte: one per expert of a routed operand (its touch
// probability), else the whole value at 1. Counts the routed operands in `routed_operands`.
void AddItems(const Problem& problem, ValueId value, std::vector<LaneOption>& items,
              int& routed_operands) {
  const Value& v = problem.graph->values[value];
  const NodeId reader = v.consumers.front();
  const std::optional<RoutedOperand> operand =
      v.consumers.size() == 1 ? RoutedOperandOf(*problem.graph, reader, value) : std::nullopt;
  const std::vector<double> touch =
      operand ? TouchProbabilities(operand->routing) : std::vector<double>{};
  if (touch.empty()) {
    items.push_back({static_cast<long double>(v.bytes), static_cast<long double>(v.bytes), 0});
    return;
  }
  ++routed_operands;
  const auto slice = static_cast<long double>(operand->slice_bytes);
  for (double chance : touch) items.push_back({chance * slice, slice, 0});
}

}  // namespace

long double LeastSpillCrossing(std::vector<LaneOption> items, long double capacity_bytes) {
  long double total = 0;
  for (const LaneOption& item : items) total += item.freed_bytes;
  if (total <= capacity_bytes) return 0;
  SortByCostPerByte(items);
  return FillUntilFreed({}, items, total - capacity_bytes).lane_ns;
}

SpillTerm ComputeSpillTerm(const Problem& problem) {
  SpillTerm term;
  const HardwareProfile& profile = *problem.profile;
  const std::vector<uint8_t> compute = ComputeTiers(profile);
  term.compute_capacity_bytes = ComputeCapacityBytes(profile, compute);
  term.far_bytes_per_s = FarBytesPerS(profile, compute);
  if (term.compute_capacity_bytes < 0 || term.far_bytes_per_s <= 0) return term;
  std::vector<LaneOption> items;
  int routed_operands = 0;
  for (size_t v = 0; v < problem.graph->values.size(); ++v) {
    const auto value = static_cast<ValueId>(v);
    if (!ReadFromBefore(problem, value)) continue;
    term.read_bytes += problem.graph->values[v].bytes;
    AddItems(problem, value, items, routed_operands);
  }
  const long double crossing =
      LeastSpillCrossing(std::move(items), static_cast<long double>(term.compute_capacity_bytes)) -
      routed_operands;
  if (crossing <= 0) return term;
  term.crossing_bytes = static_cast<int64_t>(std::floor(crossing));
  // Whole ns, rounded down: still below every plan's makespan.
  term.ns =
      static_cast<int64_t>(std::floor(term.crossing_bytes * kNsPerSecond / term.far_bytes_per_s));
  return term;
}

}  // namespace hyperplan::contenders
