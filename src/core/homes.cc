// Value homes, with spill when a tier is full (see hyperplan/homes.h).
#include "hyperplan/homes.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "hyperplan/lifetimes.h"
#include "hyperplan/routed_fetch.h"

namespace hyperplan {
namespace {

// Each value's first use in the model's order (the position of its first consumer); values
// nothing reads come first, since they never need to come back.
std::vector<int64_t> FirstUsePositions(const Graph& graph) {
  const std::vector<NodeId> order = ModelOrder(graph);
  std::vector<int64_t> position_of_node(graph.nodes.size(), 0);
  for (size_t k = 0; k < order.size(); ++k) position_of_node[order[k]] = static_cast<int64_t>(k);
  std::vector<int64_t> first_use(graph.values.size(), -1);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    int64_t first = std::numeric_limits<int64_t>::max();
    for (NodeId consumer : graph.values[id].consumers) {
      first = std::min(first, position_of_node[consumer]);
    }
    if (!graph.values[id].consumers.empty()) first_use[id] = first;
  }
  return first_use;
}

// The bytes of home copies a tier takes: all of an unlimited tier (capacity 0), else its
// capacity less its staging reserve.
int64_t HomeRoomBytes(const HardwareProfile& profile, const ValueHomes& homes, size_t tier) {
  const int64_t capacity = profile.tiers[tier].capacity_bytes;
  if (capacity <= 0) return std::numeric_limits<int64_t>::max();
  return capacity - homes.staging_reserve_bytes_per_tier[tier];
}

// The home room a tier has left (negative: over).
int64_t RoomLeftBytes(const HardwareProfile& profile, const ValueHomes& homes, size_t tier) {
  return HomeRoomBytes(profile, homes, tier) - homes.homed_bytes_per_tier[tier];
}

// The preferred home of a value that enters the run, or kNoTier when it is stored (or pinned).
TierId PreferredHome(const HardwareProfile& profile, const DeviceRoutes& routes, const Value& value,
                     bool persists) {
  if (value.value_class == ValueClass::kWeight) {
    const TierId home = profile.weight_home_tier;
    const bool reachable = home != kNoTier && home != profile.device_tier && routes.to_device[home];
    return reachable ? home : kNoTier;
  }
  if (!HomedClass(value.value_class) && !persists) return kNoTier;
  return OffloadTier(profile, routes, value.bytes);
}

// The tier with the fastest route to the device for `bytes` that has room for it, other than
// `full`; a value written in place needs the way back too. kNoTier when none has room.
TierId SpillTier(const HardwareProfile& profile, const DeviceRoutes& routes,
                 const ValueHomes& homes, TierId full, const Value& value) {
  const bool needs_way_back = value.written_by != kNoNode;
  TierId best = kNoTier;
  int64_t best_ns = 0;
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    const auto id = static_cast<TierId>(tier);
    if (id == profile.device_tier || id == full || !routes.to_device[tier]) continue;
    if (needs_way_back && !routes.from_device[tier]) continue;
    if (RoomLeftBytes(profile, homes, tier) < value.bytes) continue;
    const int64_t time_ns = RouteTimeNs(profile, *routes.to_device[tier], value.bytes);
    if (best == kNoTier || time_ns < best_ns) {
      best = id;
      best_ns = time_ns;
    }
  }
  return best;
}

void MoveHome(const Value& value, ValueId id, TierId from, TierId to, ValueHomes& homes) {
  homes.home_tier[id] = to;
  homes.homed_bytes_per_tier[from] -= value.bytes;
  homes.homed_bytes_per_tier[to] += value.bytes;
  homes.spilled_in_bytes_per_tier[to] += value.bytes;
}

// Whether a plan fetches fewer than all of `id`'s bytes in an iteration: a stacked expert
// operand of a MoE node is fetched after route (routed_fetch.h), moving the experts its
// tokens touch in expectation; a prefill whose tokens touch every expert moves it whole, as
// it moves every other value.
bool FetchedSparsely(const Graph& graph, ValueId id) {
  const Value& value = graph.values[id];
  if (value.consumers.size() != 1) return false;
  const std::optional<RoutedOperand> operand = RoutedOperandOf(graph, value.consumers[0], id);
  return operand && ExpectedRoutedBytes(*operand, {}) < value.bytes;
}

// Walking `candidates` (in first-use order), a value of a tier with `overflow_bytes` to shed
// moves whenever the bytes moved out of its tier so far fall behind that overflow's share of
// the candidates' bytes walked so far (`candidate_bytes` in the tier in all), each to the tier
// with the fastest route that has room: the spill is spread evenly over the iteration.
void SpreadSpill(const Graph& graph, const HardwareProfile& profile, const DeviceRoutes& routes,
                 const std::vector<ValueId>& candidates, const std::vector<int64_t>& overflow_bytes,
                 const std::vector<int64_t>& candidate_bytes, ValueHomes& homes) {
  const size_t tier_count = profile.tiers.size();
  std::vector<int64_t> walked_bytes(tier_count, 0);
  std::vector<int64_t> moved_bytes(tier_count, 0);
  for (ValueId id : candidates) {
    const TierId from = homes.home_tier[id];
    if (overflow_bytes[from] == 0) continue;
    const Value& value = graph.values[id];
    walked_bytes[from] += value.bytes;
    const __int128 share =
        static_cast<__int128>(walked_bytes[from]) * overflow_bytes[from] / candidate_bytes[from];
    if (moved_bytes[from] >= share) continue;
    const TierId to = SpillTier(profile, routes, homes, from, value);
    if (to == kNoTier) continue;
    MoveHome(value, id, from, to, homes);
    moved_bytes[from] += value.bytes;
  }
}

// SpreadSpill over runs of `candidates` that one node reads and one tier holds (a MoE node's
// expert operands): when the bytes moved out of the tier fall behind the overflow's share at
// the run's end, the run moves whole, up to the overflow. A node fetches its operands after
// one router, each hop on a channel of the link: spilled together they cross on the slow
// link's channels at once and expose the largest one's time, where spread over several layers
// each exposes its own (DeepSeek-V3 int4 on h100-sxm: fc1 and fc2 of one layer at 67 and 34
// ms, or 67 + 34 ms over two). The moved bytes stay at or above the share after every run
// (a run moved adds its bytes, at least its share's growth), so the overflow is covered, and
// never beyond the overflow but for one value.
void SpreadSpillByNode(const Graph& graph, const HardwareProfile& profile,
                       const DeviceRoutes& routes, const std::vector<ValueId>& candidates,
                       const std::vector<int64_t>& overflow_bytes,
                       const std::vector<int64_t>& candidate_bytes, ValueHomes& homes) {
  std::vector<int64_t> walked_bytes(profile.tiers.size(), 0);
  std::vector<int64_t> moved_bytes(profile.tiers.size(), 0);
  for (size_t begin = 0; begin < candidates.size();) {
    const NodeId reader = graph.values[candidates[begin]].consumers[0];
    const TierId from = homes.home_tier[candidates[begin]];
    size_t end = begin;
    for (; end < candidates.size() && graph.values[candidates[end]].consumers[0] == reader &&
           homes.home_tier[candidates[end]] == from;
         ++end) {
      walked_bytes[from] += graph.values[candidates[end]].bytes;
    }
    const bool behind = overflow_bytes[from] > 0 &&
                        moved_bytes[from] < static_cast<__int128>(walked_bytes[from]) *
                                                overflow_bytes[from] / candidate_bytes[from];
    for (size_t i = begin; behind && i < end && moved_bytes[from] < overflow_bytes[from]; ++i) {
      const Value& value = graph.values[candidates[i]];
      const TierId to = SpillTier(profile, routes, homes, from, value);
      if (to == kNoTier) continue;
      MoveHome(value, candidates[i], from, to, homes);
      moved_bytes[from] += value.bytes;
    }
    begin = end;
  }
}

// By tier: the bytes over its home room (0 when it fits).
std::vector<int64_t> OverflowBytes(const HardwareProfile& profile, const ValueHomes& homes) {
  std::vector<int64_t> overflow(profile.tiers.size(), 0);
  for (size_t tier = 0; tier < overflow.size(); ++tier) {
    overflow[tier] = std::max<int64_t>(0, -RoomLeftBytes(profile, homes, tier));
  }
  return overflow;
}

// Spreads the spill over the values fetched sparsely first, up to their bytes in each tier: a
// byte of them on the slow tier costs its route only the share of the byte an iteration
// touches (8 of 256 experts a token on DeepSeek-V3), where a byte of a dense value (an
// embedding table moved whole) costs the whole byte, every iteration.
void SpreadSparseSpill(const Graph& graph, const HardwareProfile& profile,
                       const DeviceRoutes& routes, const std::vector<ValueId>& homed,
                       ValueHomes& homes) {
  std::vector<ValueId> sparse;
  std::vector<int64_t> sparse_bytes(profile.tiers.size(), 0);
  for (ValueId id : homed) {
    if (!FetchedSparsely(graph, id)) continue;
    sparse.push_back(id);
    sparse_bytes[homes.home_tier[id]] += graph.values[id].bytes;
  }
  if (sparse.empty()) return;
  std::vector<int64_t> overflow = OverflowBytes(profile, homes);
  for (size_t tier = 0; tier < overflow.size(); ++tier) {
    overflow[tier] = std::min(overflow[tier], sparse_bytes[tier]);
  }
  SpreadSpillByNode(graph, profile, routes, sparse, overflow, sparse_bytes, homes);
}

// Moves home copies out of every tier whose homes exceed its room: spread over the iteration
// among the values fetched sparsely, then among all, then, while rounding or a full neighbour
// leaves a tier over, the earliest-used (ties by id), until the tier fits or nothing more can
// move.
void SpillOverfullTiers(const Graph& graph, const HardwareProfile& profile,
                        const DeviceRoutes& routes, ValueHomes& homes) {
  bool overfull = false;
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    overfull = overfull || RoomLeftBytes(profile, homes, tier) < 0;
  }
  if (!overfull) return;
  const std::vector<int64_t> first_use = FirstUsePositions(graph);
  std::vector<ValueId> homed;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    if (homes.home_tier[id] != kNoTier) homed.push_back(static_cast<ValueId>(id));
  }
  std::sort(homed.begin(), homed.end(), [&](ValueId a, ValueId b) {
    return first_use[a] != first_use[b] ? first_use[a] < first_use[b] : a < b;
  });
  const std::vector<TierId> preferred = homes.home_tier;
  SpreadSparseSpill(graph, profile, routes, homed, homes);
  std::vector<ValueId> unmoved;
  for (ValueId id : homed) {
    if (homes.home_tier[id] == preferred[id]) unmoved.push_back(id);
  }
  const std::vector<int64_t> tier_bytes = homes.homed_bytes_per_tier;
  SpreadSpill(graph, profile, routes, unmoved, OverflowBytes(profile, homes), tier_bytes, homes);
  for (ValueId id : homed) {
    const TierId from = homes.home_tier[id];
    if (RoomLeftBytes(profile, homes, from) >= 0) continue;
    const Value& value = graph.values[id];
    const TierId to = SpillTier(profile, routes, homes, from, value);
    if (to != kNoTier) MoveHome(value, id, from, to, homes);
  }
}

}  // namespace

bool HomedClass(ValueClass value_class) {
  return value_class == ValueClass::kWeight || value_class == ValueClass::kKvCache ||
         value_class == ValueClass::kOptimizerState;
}

int64_t ValueHomes::SpilledBytes() const {
  int64_t total = 0;
  for (int64_t bytes : spilled_in_bytes_per_tier) total += bytes;
  return total;
}

TierId OffloadTier(const HardwareProfile& profile, const DeviceRoutes& routes, int64_t bytes) {
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

ValueHomes DecideHomes(const Graph& graph, const HardwareProfile& profile,
                       const DeviceRoutes& routes, const std::vector<uint8_t>& persistent) {
  ValueHomes homes;
  homes.home_tier.assign(graph.values.size(), kNoTier);
  homes.store_tier.assign(graph.values.size(), kNoTier);
  homes.homed_bytes_per_tier.assign(profile.tiers.size(), 0);
  homes.spilled_in_bytes_per_tier.assign(profile.tiers.size(), 0);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (!value.size_known || value.bytes <= 0) continue;
    const bool persists = !persistent.empty() && persistent[id];
    if (value.producer == kNoNode) {
      const TierId home = PreferredHome(profile, routes, value, persists);
      if (home != kNoTier) {
        homes.home_tier[id] = home;
        homes.homed_bytes_per_tier[home] += value.bytes;
        continue;
      }
      if (value.value_class == ValueClass::kWeight) continue;  // pinned: no reachable home
    }
    homes.store_tier[id] = OffloadTier(profile, routes, value.bytes);
  }
  homes.staging_reserve_bytes_per_tier =
      StagingReserveBytes(graph, profile, routes, homes.home_tier, homes.store_tier);
  SpillOverfullTiers(graph, profile, routes, homes);
  return homes;
}

}  // namespace hyperplan
