// The host-aware bound's write-back conditions (see host_write_back.h).
#include "contenders/host_write_back.h"

#include <algorithm>
#include <tuple>

#include "contenders/host_timed_terms.h"
#include "contenders/in_place_writes.h"
#include "hyperplan/routes.h"

namespace hyperplan::contenders {
namespace {

// What every step's conditions share: the lifetimes in the bound's order, the part running each
// node (-1: none), C before each step (n + 1 entries, the nodes in no part) and the writes.
struct Scan {
  const LifetimeAnalysis* lifetimes = nullptr;
  std::vector<int> part_of;
  std::vector<int64_t> before_ns;
  std::vector<InPlaceWrite> writes;
  size_t part_count = 0;
};

// Bytes in total and by the part that writes or produces them (g_p).
struct SentBytes {
  int64_t bytes = 0;
  std::vector<int64_t> by_part;
};

// The stored values at s (see the header), with their producers' parts.
SentBytes StoredBefore(const Problem& problem, const Scan& scan, Step s) {
  const Graph& graph = *problem.graph;
  const LifetimeAnalysis& lifetimes = *scan.lifetimes;
  SentBytes stored{0, std::vector<int64_t>(scan.part_count, 0)};
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (value.producer == kNoNode || !value.size_known || value.bytes <= 0) continue;
    const TierId store_tier = problem.homes.store_tier[id];
    if (store_tier == kNoTier || !problem.routes.from_device[store_tier]) continue;
    const Lifetime& lifetime = lifetimes.lifetimes[id];
    const Step last = value.is_graph_output ? lifetimes.order.size() : lifetime.last_use_step;
    if (lifetime.def_step >= s || last <= s) continue;
    if (std::binary_search(lifetime.use_steps.begin(), lifetime.use_steps.end(), s)) continue;
    stored.bytes += value.bytes;
    const int part = scan.part_of[value.producer];
    if (part >= 0) stored.by_part[part] += value.bytes;
  }
  return stored;
}

// C(s..w) around the loop, both included.
int64_t ArcNs(const Scan& scan, Step s, Step w) {
  const std::vector<int64_t>& before = scan.before_ns;
  return w >= s ? before[w + 1] - before[s] : before.back() - before[s] + before[w + 1];
}

// The conditions at step s with room'(s) `room_bytes` (see the header), appended to `out`.
void AddConditionsAt(const Problem& problem, const Scan& scan, Step s, int64_t room_bytes,
                     int64_t out_bytes_per_s, std::vector<ReliefCondition>& out) {
  const Graph& graph = *problem.graph;
  struct Pending {
    int64_t arc_ns;
    const InPlaceWrite* write;
  };
  std::vector<Pending> pending;
  for (const InPlaceWrite& write : scan.writes) {
    const std::vector<Step>& uses = scan.lifetimes->lifetimes[write.value].use_steps;
    if (std::binary_search(uses.begin(), uses.end(), s)) continue;  // resident during s
    pending.push_back({ArcNs(scan, s, write.write_step), &write});
  }
  std::sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
    return std::tie(b.arc_ns, b.write->value) < std::tie(a.arc_ns, a.write->value);
  });
  const SentBytes stored = StoredBefore(problem, scan, s);
  SentBytes sent{0, std::vector<int64_t>(scan.part_count, 0)};
  bool stored_counted = false;
  for (size_t i = 0; i < pending.size(); ++i) {
    const InPlaceWrite& write = *pending[i].write;
    if (!stored_counted && write.write_step > s) {
      sent.bytes += stored.bytes;
      for (size_t p = 0; p < scan.part_count; ++p) sent.by_part[p] += stored.by_part[p];
      stored_counted = true;
    }
    sent.bytes += write.written_bytes;
    const int part = scan.part_of[graph.values[write.value].written_by];
    if (part >= 0) sent.by_part[part] += write.written_bytes;
    const bool group_ends = i + 1 == pending.size() || pending[i + 1].arc_ns != pending[i].arc_ns;
    if (!group_ends || sent.bytes <= room_bytes) continue;
    const int64_t arc_bytes = ComputeAsBytes(pending[i].arc_ns, out_bytes_per_s);
    out.push_back({sent.bytes - room_bytes + arc_bytes, out_bytes_per_s, sent.by_part, s});
  }
}

Scan ScanFor(const Problem& problem, const LifetimeAnalysis& lifetimes,
             const std::vector<NodeId>& order, const std::vector<HostPart>& parts) {
  Scan scan;
  scan.lifetimes = &lifetimes;
  scan.part_count = parts.size();
  scan.part_of = PartIndexOf(*problem.graph, parts);
  scan.before_ns.assign(order.size() + 1, 0);
  for (size_t s = 0; s < order.size(); ++s) {
    const int64_t node_ns = scan.part_of[order[s]] < 0 ? problem.node_time_ns[order[s]] : 0;
    scan.before_ns[s + 1] = scan.before_ns[s] + node_ns;
  }
  scan.writes =
      InPlaceWrites(*problem.graph, lifetimes, problem.routes, problem.homes, problem.persistent);
  return scan;
}

}  // namespace

std::vector<ReliefCondition> HostWriteBackConditions(const Problem& problem,
                                                     const LowerBounds& device,
                                                     const std::vector<HostPart>& parts) {
  std::vector<ReliefCondition> conditions;
  const std::vector<NodeId>& order = device.order;
  if (order.empty() || device.room_per_step.size() != order.size()) return conditions;
  const LifetimesInOrder lifetimes(problem, order);
  const Scan scan = ScanFor(problem, lifetimes.get(), order, parts);
  if (scan.writes.empty()) return conditions;
  const int64_t pinned_touched = PinnedBytesPartsTouch(problem, parts);
  const int64_t out_bytes_per_s = SumDeviceLinkRates(*problem.profile).out_of_device_bytes_per_s;
  if (out_bytes_per_s <= 0) return conditions;
  std::vector<Step> steps = {device.write_back.step, device.late_fetch.step};
  if (steps[0] == steps[1]) steps.pop_back();
  for (Step s : steps) {
    // A part's node may run on the host, taking its working set off the device's floor.
    if (s < 0 || scan.part_of[order[s]] >= 0) continue;
    AddConditionsAt(problem, scan, s, device.room_per_step[s] + pinned_touched, out_bytes_per_s,
                    conditions);
  }
  return conditions;
}

}  // namespace hyperplan::contenders
