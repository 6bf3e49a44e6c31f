// The host-aware bound's timed transfer terms (see host_timed_terms.h).
#include "contenders/host_timed_terms.h"

#include <algorithm>

#include "contenders/relief_condition.h"
#include "hyperplan/routes.h"

namespace hyperplan::contenders {
namespace {

constexpr __int128 kNsPerSecond = 1'000'000'000;

// By ValueId: whether some part's node reads or writes it. By NodeId: whether a part holds it.
struct Touched {
  std::vector<uint8_t> value;
  std::vector<uint8_t> node;
};

Touched TouchedByParts(const Graph& graph, const std::vector<HostPart>& parts) {
  Touched touched{std::vector<uint8_t>(graph.values.size(), 0),
                  std::vector<uint8_t>(graph.nodes.size(), 0)};
  for (const HostPart& part : parts) {
    for (NodeId node : part.nodes) {
      touched.node[node] = 1;
      for (ValueId input : graph.nodes[node].inputs) {
        if (input != kNoValue) touched.value[input] = 1;
      }
      for (ValueId output : graph.nodes[node].outputs) {
        if (output != kNoValue) touched.value[output] = 1;
      }
    }
  }
  return touched;
}

// The bytes of values that cannot leave the device and that a part touches: under that part's
// placement they may be off the device, so the floor may drop by them (at most all of them).
int64_t PinnedTouchedBytes(const Problem& problem, const Touched& touched) {
  int64_t bytes = 0;
  for (size_t id = 0; id < problem.graph->values.size(); ++id) {
    const Value& value = problem.graph->values[id];
    if (touched.value[id] && !problem.homes.CanLeave(static_cast<ValueId>(id)) &&
        value.size_known) {
      bytes += value.bytes;
    }
  }
  return bytes;
}

// Per step of `lifetimes.order`: bytes(V(s)), the untouched values produced in the iteration
// that exist before s, are read after s, are not read at s and can go out and come back.
std::vector<int64_t> UntouchedOffBytes(const Problem& problem, const LifetimeAnalysis& lifetimes,
                                       const Touched& touched) {
  const Graph& graph = *problem.graph;
  const auto n = static_cast<Step>(lifetimes.order.size());
  std::vector<int64_t> delta(static_cast<size_t>(n) + 1, 0);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    const bool persistent = !problem.persistent.empty() && problem.persistent[id];
    if (touched.value[id] || persistent || value.producer == kNoNode || value.is_graph_output ||
        !value.size_known || value.bytes <= 0) {
      continue;
    }
    const TierId tier = problem.homes.store_tier[id];
    if (tier == kNoTier || !problem.routes.from_device[tier] || !problem.routes.to_device[tier]) {
      continue;
    }
    const Lifetime& lifetime = lifetimes.lifetimes[id];
    if (lifetime.last_use_step <= lifetime.def_step + 1) continue;
    delta[lifetime.def_step + 1] += value.bytes;  // steps def+1 .. last-1
    delta[lifetime.last_use_step] -= value.bytes;
    for (Step use : lifetime.use_steps) {  // not at its own reads
      if (use > lifetime.def_step && use < lifetime.last_use_step) {
        delta[use] -= value.bytes;
        delta[use + 1] += value.bytes;
      }
    }
  }
  return RunningSums(delta, static_cast<size_t>(n));
}

int64_t TransferNs(int64_t bytes, int64_t bytes_per_s) {
  if (bytes <= 0 || bytes_per_s <= 0) return 0;
  return static_cast<int64_t>((bytes * kNsPerSecond + bytes_per_s - 1) / bytes_per_s);
}

}  // namespace

int64_t PinnedBytesPartsTouch(const Problem& problem, const std::vector<HostPart>& parts) {
  return PinnedTouchedBytes(problem, TouchedByParts(*problem.graph, parts));
}

TimedTerm HostTimedTerm(const Problem& problem, const LowerBounds& device,
                        const std::vector<HostPart>& parts) {
  TimedTerm term;
  const std::vector<NodeId>& order = device.order;
  if (order.empty() || device.room_per_step.size() != order.size()) return term;
  const Touched touched = TouchedByParts(*problem.graph, parts);
  const LifetimesInOrder lifetimes(problem, order);
  const LifetimeAnalysis& in_order = lifetimes.get();
  const std::vector<int64_t> off = UntouchedOffBytes(problem, in_order, touched);
  const int64_t pinned_touched = PinnedTouchedBytes(problem, touched);
  const DeviceLinkRates rates = SumDeviceLinkRates(*problem.profile);
  // C(..s) and C(s..): the time of the nodes in no part through step s, and from it on.
  int64_t untouched_total_ns = 0;
  for (NodeId node : order)
    untouched_total_ns += touched.node[node] ? 0 : problem.node_time_ns[node];
  int64_t before_ns = 0;  // nodes in no part at steps 0..s-1
  for (Step s = 0; s < static_cast<Step>(order.size()); ++s) {
    const NodeId node = order[s];
    const int64_t node_ns = touched.node[node] ? 0 : problem.node_time_ns[node];
    const int64_t from_s_ns = untouched_total_ns - before_ns;
    before_ns += node_ns;
    if (touched.node[node]) continue;  // its working set may leave the device
    const int64_t bytes = off[s] - device.room_per_step[s] - pinned_touched;
    if (bytes <= 0) continue;
    const int64_t ns = std::max(from_s_ns + TransferNs(bytes, rates.out_of_device_bytes_per_s),
                                before_ns + TransferNs(bytes, rates.into_device_bytes_per_s));
    if (ns > term.ns) term = {ns, s, bytes};
  }
  return term;
}

}  // namespace hyperplan::contenders
