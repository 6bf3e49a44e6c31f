// Makespan and peak lower bounds (see lower_bounds.h).
#include "contenders/lower_bounds.h"

#include <algorithm>
#include <tuple>

#include "contenders/in_place_writes.h"
#include "hyperplan/homes.h"
#include "hyperplan/routes.h"

namespace hyperplan::contenders {
namespace {

constexpr int64_t kNsPerSecond = 1000000000;

// ceil(bytes * 1e9 / bandwidth) without overflow; 0 bandwidth: no bound from it.
int64_t TransferNs(int64_t bytes, int64_t bytes_per_s) {
  if (bytes <= 0 || bytes_per_s <= 0) return 0;
  const __int128 numerator = static_cast<__int128>(bytes) * kNsPerSecond + bytes_per_s - 1;
  return static_cast<int64_t>(numerator / bytes_per_s);
}

// Raises `term` to "compute_ns, then bytes at bytes_per_s" found at step s, when longer.
void Raise(TimedTransferTerm& term, Step s, int64_t compute_ns, int64_t bytes, int32_t link,
           int64_t bytes_per_s) {
  if (bytes <= 0 || bytes_per_s <= 0) return;
  const int64_t ns = compute_ns + TransferNs(bytes, bytes_per_s);
  if (ns > term.ns) term = {ns, s, compute_ns, bytes, link};
}

// A device link's bandwidth, or (link -1) the device's links that way together.
int64_t LinkRate(const HardwareProfile& profile, int32_t link, int64_t all_links_bytes_per_s) {
  return link >= 0 ? profile.links[link].bandwidth_bytes_per_s : all_links_bytes_per_s;
}

// Per-step sums as difference arrays (steps + 1 entries).
class StepSums {
 public:
  explicit StepSums(Step steps) : diff_(static_cast<size_t>(steps) + 1, 0) {}
  void Add(Step first, Step last, int64_t bytes) {
    if (first > last) return;
    diff_[first] += bytes;
    diff_[last + 1] -= bytes;
  }
  // Call for s = 0, 1, ... in order.
  int64_t Next(Step s) { return running_ += diff_[s]; }

 private:
  std::vector<int64_t> diff_;
  int64_t running_ = 0;
};

// Adds `bytes` over [first, last] except the steps in `uses` (ascending) inside it.
void AddExceptUses(StepSums& sums, Step first, Step last, int64_t bytes,
                   const std::vector<Step>& uses) {
  if (first > last) return;
  sums.Add(first, last, bytes);
  for (Step use : uses) {
    if (use >= first && use <= last) sums.Add(use, use, -bytes);
  }
}

// What must leave the device before step s, by the device hop it leaves over: values produced
// earlier in the iteration, read after s (or returned), that are not resident during s each
// took a Store that ended before s. The store term's values, by first hop only.
std::vector<int64_t> StoredBeforeBytes(Step s, const Graph& graph,
                                       const LifetimeAnalysis& lifetimes,
                                       const DeviceRoutes& routes, const ValueHomes& homes,
                                       size_t link_count) {
  std::vector<int64_t> bytes_on(link_count, 0);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (value.producer == kNoNode || !value.size_known || value.bytes <= 0) continue;
    const TierId store_tier = homes.store_tier[id];
    if (store_tier == kNoTier || !routes.from_device[store_tier]) continue;
    const Lifetime& lifetime = lifetimes.lifetimes[id];
    const Step last = value.is_graph_output ? lifetimes.order.size() : lifetime.last_use_step;
    if (lifetime.def_step >= s || last <= s) continue;
    if (std::binary_search(lifetime.use_steps.begin(), lifetime.use_steps.end(), s)) continue;
    bytes_on[routes.from_device[store_tier]->front()] += value.bytes;
  }
  return bytes_on;
}

// The write-back term at step s (see lower_bounds.h). Every value off the device during s that
// its plan had to send out (written in place since its last pass through s, or stored before
// s) went out over its device hop between its write and s, one iteration around the loop.
// Taking the writes latest-around-the-loop first, the writes at or after a write w all fit in
// a window of at most makespan - compute(s..w), so the makespan is at least compute(s..w) plus
// their bytes, less the room, over the device hop they share (or all out-links together). The
// stored values join once w is after s: the window then holds the whole iteration up to s,
// where their Stores ran (for a w before s it starts at w, after some of them may have run).
void AddWriteBackTerm(Step s, int64_t room_bytes, const std::vector<int64_t>& stored_on,
                      const std::vector<InPlaceWrite>& writes, const LifetimeAnalysis& lifetimes,
                      const std::vector<int64_t>& compute_before_ns, const HardwareProfile& profile,
                      int64_t out_of_device_bytes_per_s, LowerBounds& bounds) {
  const Step n = static_cast<Step>(compute_before_ns.size()) - 1;
  const int64_t total_ns = compute_before_ns[n];
  struct Pending {
    int64_t arc_ns;  // compute of the steps from s around the loop to the write, both included
    const InPlaceWrite* write;
  };
  std::vector<Pending> pending;
  for (const InPlaceWrite& write : writes) {
    const std::vector<Step>& uses = lifetimes.lifetimes[write.value].use_steps;
    if (std::binary_search(uses.begin(), uses.end(), s)) continue;  // resident during s
    const Step w = write.write_step;
    const int64_t arc_ns = w >= s ? compute_before_ns[w + 1] - compute_before_ns[s]
                                  : total_ns - compute_before_ns[s] + compute_before_ns[w + 1];
    pending.push_back({arc_ns, &write});
  }
  std::sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
    return std::tie(b.arc_ns, b.write->value) < std::tie(a.arc_ns, a.write->value);
  });
  std::vector<int64_t> bytes_on(stored_on.size(), 0);
  int64_t bytes_total = 0;
  bool stored_counted = false;
  auto consider = [&](int64_t arc_ns, int64_t bytes, int32_t link) {
    Raise(bounds.write_back, s, arc_ns, bytes - room_bytes, link,
          LinkRate(profile, link, out_of_device_bytes_per_s));
  };
  for (const Pending& entry : pending) {
    if (!stored_counted && entry.write->write_step > s) {
      for (size_t l = 0; l < stored_on.size(); ++l) bytes_on[l] += stored_on[l];
      for (int64_t bytes : stored_on) bytes_total += bytes;
      stored_counted = true;
    }
    const int32_t link = entry.write->out_link;
    bytes_on[link] += entry.write->written_bytes;
    bytes_total += entry.write->written_bytes;
    consider(entry.arc_ns, bytes_on[link], link);
    consider(entry.arc_ns, bytes_total, -1);
  }
}

// What the tiers off the device can hold together: the capacities of those with a route to or
// from the device (-1: one of them is unlimited, so capacity forces nothing onto the device).
int64_t HostCapacityBytes(const HardwareProfile& profile, const DeviceRoutes& routes) {
  int64_t total = 0;
  for (size_t tier = 0; tier < profile.tiers.size(); ++tier) {
    if (static_cast<TierId>(tier) == profile.device_tier) continue;
    if (!routes.to_device[tier] && !routes.from_device[tier]) continue;
    const int64_t capacity = profile.tiers[tier].capacity_bytes;
    if (capacity <= 0) return -1;
    total += capacity;
  }
  return total;
}

// Every value's bytes over the steps where it exists somewhere: from the start (entering
// values) or its producer's step, through its last read, the end (graph outputs) or, for a
// value read again next iteration, the whole iteration.
StepSums ExistingBytes(const Graph& graph, const LifetimeAnalysis& lifetimes,
                       const std::vector<uint8_t>& persistent, Step n) {
  StepSums existing(n);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (!value.size_known || value.bytes <= 0) continue;
    const Lifetime& lifetime = lifetimes.lifetimes[id];
    const bool persists = !persistent.empty() && persistent[id];
    const Step first = persists ? 0 : lifetime.def_step;
    const Step last = persists || value.is_graph_output ? n - 1 : lifetime.last_use_step;
    existing.Add(first, last, value.bytes);
  }
  return existing;
}

// The per-step sums of what must move (see lower_bounds.h), by value over its steps.
struct MoveSums {
  MoveSums(Step n, size_t link_count)
      : pinned(n),
        fetch(n),
        store(n),
        fetch_on(link_count, StepSums(n)),
        store_on(link_count, StepSums(n)),
        read_later(n),
        read_later_on(link_count, StepSums(n)),
        written(n) {}
  StepSums pinned;  // can never leave
  StepSums fetch;   // U(s)
  StepSums store;   // P(s)
  std::vector<StepSums> fetch_on;
  std::vector<StepSums> store_on;
  StepSums read_later;                  // U'(s): read after s in this iteration
  std::vector<StepSums> read_later_on;  // by the route's device hop
  StepSums written;                     // in-place writes whose value is not read during s
};

// Adds a value that can leave the device: U(s) and U'(s) while it waits for a read, P(s)
// while a produced value waits for its last read (or the end, for an output).
void AddMovable(MoveSums& sums, const Graph& graph, const LifetimeAnalysis& lifetimes,
                const DeviceRoutes& routes, const ValueHomes& homes,
                const std::vector<uint8_t>& persistent, ValueId value_id) {
  const auto n = static_cast<Step>(lifetimes.order.size());
  const Value& value = graph.values[value_id];
  const Lifetime& lifetime = lifetimes.lifetimes[value_id];
  const int64_t bytes = value.bytes;
  const bool produced = value.producer != kNoNode;
  const Step exists_from = produced ? lifetime.def_step + 1 : 0;
  const std::vector<Step>& uses = lifetime.use_steps;
  if (!uses.empty()) {
    // A persistent value is read again next iteration: every step but its uses is before a
    // read, so the whole iteration counts (the steady state's per-iteration traffic).
    const bool persists = !persistent.empty() && persistent[value_id];
    const Step last = persists ? n - 1 : lifetime.last_use_step - 1;
    AddExceptUses(sums.fetch, exists_from, last, bytes, uses);
    const Route& route = *routes.to_device[homes.OffTier(value_id)];
    for (int32_t link : route) AddExceptUses(sums.fetch_on[link], exists_from, last, bytes, uses);
    const Step last_read_before = lifetime.last_use_step - 1;
    AddExceptUses(sums.read_later, exists_from, last_read_before, bytes, uses);
    AddExceptUses(sums.read_later_on[route.back()], exists_from, last_read_before, bytes, uses);
  }
  if (produced) {
    const Step last = value.is_graph_output ? n - 1 : lifetime.last_use_step - 1;
    AddExceptUses(sums.store, exists_from, last, bytes, uses);
    for (int32_t link : *routes.from_device[homes.store_tier[value_id]]) {
      AddExceptUses(sums.store_on[link], exists_from, last, bytes, uses);
    }
  }
}

MoveSums SumMoves(const Graph& graph, const LifetimeAnalysis& lifetimes, const DeviceRoutes& routes,
                  const ValueHomes& homes, const std::vector<uint8_t>& persistent,
                  const std::vector<InPlaceWrite>& writes, size_t link_count) {
  const auto n = static_cast<Step>(lifetimes.order.size());
  MoveSums sums(n, link_count);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const auto value_id = static_cast<ValueId>(id);
    const Value& value = graph.values[id];
    if (!value.size_known || value.bytes <= 0) continue;
    const Lifetime& lifetime = lifetimes.lifetimes[id];
    if (!homes.CanLeave(value_id)) {
      sums.pinned.Add(lifetime.baseline_first_step, lifetime.baseline_last_step, value.bytes);
      continue;
    }
    AddMovable(sums, graph, lifetimes, routes, homes, persistent, value_id);
  }
  for (const InPlaceWrite& write : writes) {
    AddExceptUses(sums.written, 0, n - 1, write.written_bytes,
                  lifetimes.lifetimes[write.value].use_steps);
  }
  return sums;
}

// The peak floor at one step: its pinned bytes, its node's scratch, and its inputs and
// outputs that could otherwise leave (each value once).
int64_t StepFloorBytes(const Graph& graph, const ValueHomes& homes, const Node& node,
                       int64_t pinned_bytes, std::vector<uint8_t>& seen) {
  int64_t floor = pinned_bytes + node.subgraph_peak_bytes;
  auto count = [&](ValueId id) {
    const Value& value = graph.values[id];
    if (seen[id] || !value.size_known || value.bytes <= 0) return;
    seen[id] = 1;
    if (homes.CanLeave(id)) floor += value.bytes;  // pinned ones are counted already
  };
  for (ValueId input : node.inputs) count(input);
  for (ValueId output : node.outputs) count(output);
  for (ValueId input : node.inputs) seen[input] = 0;
  for (ValueId output : node.outputs) seen[output] = 0;
  return floor;
}

// Raises the cut term (see lower_bounds.h) with step s: its compute, the compute before and
// from it, and the bytes of P(s) and U'(s) beyond the room.
void RaiseCut(Step s, int64_t step_ns, int64_t before_ns, int64_t total_ns, int64_t store_bytes,
              int64_t fetch_bytes, const DeviceLinkRates& rates, LowerBounds& bounds) {
  const int64_t start_ns =
      std::max(before_ns, TransferNs(store_bytes, rates.out_of_device_bytes_per_s));
  const int64_t after_ns = std::max(
      total_ns - before_ns, step_ns + TransferNs(fetch_bytes, rates.into_device_bytes_per_s));
  if (start_ns + after_ns > bounds.cut.ns) {
    bounds.cut = {start_ns + after_ns, s, std::max<int64_t>(0, store_bytes),
                  std::max<int64_t>(0, fetch_bytes)};
  }
}

// What the step scan leaves for the write-back term.
struct StepScan {
  std::vector<int64_t> compute_before_ns;  // steps 0..s-1, then the total
  std::vector<int64_t> room_per_step;
  Step most_sent_off_step = -1;  // where the most stored or written bytes must be off
};

// One pass over the steps: the peak floor, the room the budget leaves, the forced bytes per
// link and in total, the late-fetch term and the most bytes existing at once.
StepScan ScanSteps(const Graph& graph, const HardwareProfile& profile,
                   const std::vector<NodeId>& order, const std::vector<int64_t>& node_time_ns,
                   int64_t budget_bytes, const ValueHomes& homes, MoveSums& sums,
                   StepSums& existing, const DeviceLinkRates& rates, LowerBounds& bounds) {
  const auto n = static_cast<Step>(order.size());
  StepScan scan;
  scan.compute_before_ns.assign(static_cast<size_t>(n) + 1, 0);
  scan.room_per_step.assign(n, 0);
  int64_t most_sent_off_bytes = 0;
  std::vector<uint8_t> seen(graph.values.size(), 0);
  // The late-fetch term at step s, on one device link (or, link -1, on all of them together).
  auto late_fetch = [&](Step s, int64_t compute_through_s_ns, int64_t bytes, int32_t link) {
    Raise(bounds.late_fetch, s, compute_through_s_ns, bytes, link,
          LinkRate(profile, link, rates.into_device_bytes_per_s));
  };
  for (Step s = 0; s < n; ++s) {
    const int64_t existing_bytes = existing.Next(s);
    if (bounds.host_capacity_bytes >= 0 && existing_bytes > bounds.most_existing_bytes) {
      bounds.most_existing_bytes = existing_bytes;
      bounds.most_existing_step = s;
    }
    scan.compute_before_ns[s + 1] = scan.compute_before_ns[s] + node_time_ns[order[s]];
    const int64_t compute_through_s_ns = scan.compute_before_ns[s + 1];
    const int64_t floor =
        StepFloorBytes(graph, homes, graph.nodes[order[s]], sums.pinned.Next(s), seen);
    bounds.peak_floor_bytes = std::max(bounds.peak_floor_bytes, floor);
    // Below the floor no plan exists at all; clamping keeps the bound about movement.
    const int64_t room = std::max<int64_t>(0, budget_bytes - floor);
    scan.room_per_step[s] = room;
    const int64_t stored_off = sums.store.Next(s) - room;
    const int64_t read_later_off = sums.read_later.Next(s) - room;
    RaiseCut(s, node_time_ns[order[s]], scan.compute_before_ns[s], bounds.compute_ns, stored_off,
             read_later_off, rates, bounds);
    const int64_t sent_off = stored_off + sums.written.Next(s);
    if (sent_off > most_sent_off_bytes) {
      most_sent_off_bytes = sent_off;
      scan.most_sent_off_step = s;
    }
    bounds.must_fetch_bytes = std::max(bounds.must_fetch_bytes, sums.fetch.Next(s) - room);
    bounds.must_store_bytes = std::max(bounds.must_store_bytes, stored_off);
    for (size_t l = 0; l < sums.fetch_on.size(); ++l) {
      const int64_t forced = std::max(sums.fetch_on[l].Next(s), sums.store_on[l].Next(s)) - room;
      bounds.must_move_bytes_per_link[l] = std::max(bounds.must_move_bytes_per_link[l], forced);
      const int64_t late = sums.read_later_on[l].Next(s) - room;
      late_fetch(s, compute_through_s_ns, late, static_cast<int32_t>(l));
    }
    late_fetch(s, compute_through_s_ns, read_later_off, -1);
  }
  return scan;
}

// The capacity floor, the transfer term (the device's totals, or the slowest link when it
// is at least as slow) and the makespan bound over every term.
void FinishBounds(const HardwareProfile& profile, int64_t budget_bytes,
                  const DeviceLinkRates& rates, LowerBounds& bounds) {
  // What the host tiers cannot hold is on the device (a peak floor that does not combine with
  // the per-step room above: those bytes may be the very ones the room holds).
  if (bounds.host_capacity_bytes >= 0) {
    bounds.capacity_floor_bytes = bounds.most_existing_bytes - bounds.host_capacity_bytes;
    bounds.peak_floor_bytes = std::max(bounds.peak_floor_bytes, bounds.capacity_floor_bytes);
  }
  bounds.budget_below_floor = budget_bytes < bounds.peak_floor_bytes;
  bounds.transfer_ns =
      std::max(TransferNs(bounds.must_fetch_bytes, rates.into_device_bytes_per_s),
               TransferNs(bounds.must_store_bytes, rates.out_of_device_bytes_per_s));
  for (size_t l = 0; l < profile.links.size(); ++l) {
    const int64_t link_ns =
        TransferNs(bounds.must_move_bytes_per_link[l], profile.links[l].bandwidth_bytes_per_s);
    // Ties name the link: on one-link devices the totals and the link agree.
    if (link_ns > 0 && link_ns >= bounds.transfer_ns) {
      bounds.transfer_ns = link_ns;
      bounds.bottleneck_link = static_cast<int32_t>(l);
    }
  }
  bounds.makespan_ns = std::max({bounds.compute_ns, bounds.transfer_ns, bounds.late_fetch.ns,
                                 bounds.write_back.ns, bounds.cut.ns});
}

}  // namespace

LowerBounds ComputeLowerBounds(const Graph& graph, const HardwareProfile& profile,
                               const std::vector<NodeId>& order,
                               const std::vector<int64_t>& node_time_ns, int64_t budget_bytes,
                               const std::vector<uint8_t>& persistent) {
  LowerBounds bounds;
  const auto n = static_cast<Step>(order.size());
  const size_t link_count = profile.links.size();
  bounds.must_move_bytes_per_link.assign(link_count, 0);
  for (NodeId node : order) bounds.compute_ns += node_time_ns[node];
  bounds.makespan_ns = bounds.compute_ns;
  if (n == 0) return bounds;

  const LifetimeAnalysis lifetimes = AnalyzeLifetimes(graph, order);
  const DeviceRoutes routes = FindDeviceRoutes(profile);
  const ValueHomes homes = DecideHomes(graph, profile, routes, persistent);
  const std::vector<InPlaceWrite> writes =
      InPlaceWrites(graph, lifetimes, routes, homes, persistent);
  MoveSums sums = SumMoves(graph, lifetimes, routes, homes, persistent, writes, link_count);
  const DeviceLinkRates rates = SumDeviceLinkRates(profile);
  bounds.host_capacity_bytes = HostCapacityBytes(profile, routes);
  StepSums existing = ExistingBytes(graph, lifetimes, persistent, n);
  const StepScan scan = ScanSteps(graph, profile, order, node_time_ns, budget_bytes, homes, sums,
                                  existing, rates, bounds);
  // The write-back term scans the values and sorts the writes, so it is taken at two steps:
  // where the most stored or written bytes must be off the device, and the late-fetch step.
  if (!writes.empty()) {
    for (Step s : {scan.most_sent_off_step, bounds.late_fetch.step}) {
      if (s < 0) continue;
      AddWriteBackTerm(s, scan.room_per_step[s],
                       StoredBeforeBytes(s, graph, lifetimes, routes, homes, link_count), writes,
                       lifetimes, scan.compute_before_ns, profile, rates.out_of_device_bytes_per_s,
                       bounds);
    }
  }
  FinishBounds(profile, budget_bytes, rates, bounds);
  bounds.order = order;
  bounds.room_per_step = scan.room_per_step;
  return bounds;
}

}  // namespace hyperplan::contenders
