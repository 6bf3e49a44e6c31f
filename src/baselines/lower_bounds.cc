// Makespan and peak lower bounds (see lower_bounds.h).
#include "baselines/lower_bounds.h"

#include <algorithm>

#include "hyperplan/planner/homes.h"

namespace hyperplan::baselines {
namespace {

// ceil(bytes * 1e9 / bandwidth) without overflow; 0 bandwidth: no bound from it.
int64_t TransferNs(int64_t bytes, int64_t bytes_per_s) {
  if (bytes <= 0 || bytes_per_s <= 0) return 0;
  const __int128 numerator = static_cast<__int128>(bytes) * 1'000'000'000 + bytes_per_s - 1;
  return static_cast<int64_t>(numerator / bytes_per_s);
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
  StepSums pinned(n);  // can never leave
  StepSums fetch(n);   // U(s)
  StepSums store(n);   // P(s)
  std::vector<StepSums> fetch_on(link_count, StepSums(n));
  std::vector<StepSums> store_on(link_count, StepSums(n));
  StepSums read_later(n);  // U'(s): read after s in this iteration
  std::vector<StepSums> read_later_on(link_count, StepSums(n));  // by the route's device hop
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const auto value_id = static_cast<ValueId>(id);
    const Value& value = graph.values[id];
    if (!value.size_known || value.bytes <= 0) continue;
    const Lifetime& lifetime = lifetimes.lifetimes[id];
    const int64_t bytes = value.bytes;
    if (!homes.CanLeave(value_id)) {
      pinned.Add(lifetime.baseline_first_step, lifetime.baseline_last_step, bytes);
      continue;
    }
    const bool produced = value.producer != kNoNode;
    const Step exists_from = produced ? lifetime.def_step + 1 : 0;
    if (!lifetime.use_steps.empty()) {
      // A persistent value is read again next iteration: every step but its uses is before a
      // read, so the whole iteration counts (the steady state's per-iteration traffic).
      const bool persists = !persistent.empty() && persistent[id];
      const Step last = persists ? n - 1 : lifetime.last_use_step - 1;
      AddExceptUses(fetch, exists_from, last, bytes, lifetime.use_steps);
      const Route& route = *routes.to_device[homes.OffTier(value_id)];
      for (int32_t link : route) {
        AddExceptUses(fetch_on[link], exists_from, last, bytes, lifetime.use_steps);
      }
      const Step last_read_before = lifetime.last_use_step - 1;
      AddExceptUses(read_later, exists_from, last_read_before, bytes, lifetime.use_steps);
      AddExceptUses(read_later_on[route.back()], exists_from, last_read_before, bytes,
                    lifetime.use_steps);
    }
    if (produced) {
      const Step last = value.is_graph_output ? n - 1 : lifetime.last_use_step - 1;
      AddExceptUses(store, exists_from, last, bytes, lifetime.use_steps);
      for (int32_t link : *routes.from_device[homes.store_tier[id]]) {
        AddExceptUses(store_on[link], exists_from, last, bytes, lifetime.use_steps);
      }
    }
  }
  int64_t into_device_bytes_per_s = 0;
  int64_t out_of_device_bytes_per_s = 0;
  for (const Link& link : profile.links) {
    if (link.to == profile.device_tier && link.from != profile.device_tier) {
      into_device_bytes_per_s += link.bandwidth_bytes_per_s;
    }
    if (link.from == profile.device_tier && link.to != profile.device_tier) {
      out_of_device_bytes_per_s += link.bandwidth_bytes_per_s;
    }
  }
  // The late-fetch term at step s, on one device link (or, link -1, on all of them together).
  auto late_fetch = [&](Step s, int64_t compute_through_s_ns, int64_t bytes, int32_t link) {
    const int64_t bytes_per_s =
        link >= 0 ? profile.links[link].bandwidth_bytes_per_s : into_device_bytes_per_s;
    if (bytes <= 0 || bytes_per_s <= 0) return;
    const int64_t ns = compute_through_s_ns + TransferNs(bytes, bytes_per_s);
    if (ns <= bounds.late_fetch_ns) return;
    bounds.late_fetch_ns = ns;
    bounds.late_fetch_step = s;
    bounds.late_fetch_after_ns = compute_through_s_ns;
    bounds.late_fetch_bytes = bytes;
    bounds.late_fetch_link = link;
  };
  int64_t compute_through_s_ns = 0;
  std::vector<uint8_t> seen(graph.values.size(), 0);
  for (Step s = 0; s < n; ++s) {
    compute_through_s_ns += node_time_ns[order[s]];
    const Node& node = graph.nodes[order[s]];
    int64_t floor = pinned.Next(s) + node.subgraph_peak_bytes;
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
    bounds.peak_floor_bytes = std::max(bounds.peak_floor_bytes, floor);
    // Below the floor no plan exists at all; clamping keeps the bound about movement.
    const int64_t room = std::max<int64_t>(0, budget_bytes - floor);
    bounds.must_fetch_bytes = std::max(bounds.must_fetch_bytes, fetch.Next(s) - room);
    bounds.must_store_bytes = std::max(bounds.must_store_bytes, store.Next(s) - room);
    for (size_t l = 0; l < link_count; ++l) {
      const int64_t forced = std::max(fetch_on[l].Next(s), store_on[l].Next(s)) - room;
      bounds.must_move_bytes_per_link[l] = std::max(bounds.must_move_bytes_per_link[l], forced);
      const int64_t late = read_later_on[l].Next(s) - room;
      late_fetch(s, compute_through_s_ns, late, static_cast<int32_t>(l));
    }
    late_fetch(s, compute_through_s_ns, read_later.Next(s) - room, -1);
  }
  bounds.budget_below_floor = budget_bytes < bounds.peak_floor_bytes;
  bounds.transfer_ns = std::max(TransferNs(bounds.must_fetch_bytes, into_device_bytes_per_s),
                                TransferNs(bounds.must_store_bytes, out_of_device_bytes_per_s));
  for (size_t l = 0; l < link_count; ++l) {
    const int64_t link_ns =
        TransferNs(bounds.must_move_bytes_per_link[l], profile.links[l].bandwidth_bytes_per_s);
    // Ties name the link: on one-link devices the totals and the link agree.
    if (link_ns > 0 && link_ns >= bounds.transfer_ns) {
      bounds.transfer_ns = link_ns;
      bounds.bottleneck_link = static_cast<int32_t>(l);
    }
  }
  bounds.makespan_ns = std::max({bounds.compute_ns, bounds.transfer_ns, bounds.late_fetch_ns});
  return bounds;
}

}  // namespace hyperplan::baselines
