// The host-aware lower bound (see host_lower_bound.h).
#include "contenders/host_lower_bound.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "contenders/graph_walk.h"
#include "contenders/host_timed_terms.h"
#include "contenders/lane_options.h"
#include "contenders/routed_lane_bound.h"
#include "contenders/spill_lane_bound.h"
#include "core/moe_shape.h"
#include "hyperplan/cost.h"
#include "hyperplan/host_cost.h"
#include "hyperplan/routed_fetch.h"
#include "hyperplan/routes.h"

namespace hyperplan::contenders {
namespace {

constexpr long double kNsPerSecond = 1e9L;
// Slack for long double rounding in the feasibility test: a T within a thousandth of a ns (or
// of a byte) of the optimum passes, so the answer is ceil(T* - 0.001) <= ceil(T*), still below
// every plan's integer makespan.
constexpr long double kTolerance = 1e-3L;

// A part that costs lane time on the host, by its added time and freed bytes.
// The relaxation: free parts taken, the rest sorted by added lane time per freed byte.
struct Relaxation {
  long double base_ns = 0;     // lane time with the free parts on the host
  long double base_freed = 0;  // bytes those free
  std::vector<LaneOption> costly;
  long double most_freed = 0;  // every part on the host
  int free_parts = 0;
  // The device lane (host_lower_bound.h, D(x)): every part with device time, by host time per
  // device ns it takes off the device, and the device time of every node.
  std::vector<LaneOption> relieving;  // freed_bytes holds the part's device ns here
  long double all_device_ns = 0;
};

// The parts that take device time off the device lane, cheapest host time per device ns first.
void RelieveDevice(const HostBoundInputs& inputs, Relaxation& relaxed) {
  relaxed.all_device_ns = inputs.fixed_device_ns;
  for (const HostBoundPart& part : inputs.parts) {
    relaxed.all_device_ns += part.device_ns;
    if (part.device_ns > 0) {
      relaxed.relieving.push_back(
          {static_cast<long double>(part.host_ns), static_cast<long double>(part.device_ns)});
    }
  }
  SortByCostPerByte(relaxed.relieving);
}

Relaxation Relax(const HostBoundInputs& inputs) {
  Relaxation relaxed;
  relaxed.base_freed = inputs.transient_freed_bytes;
  if (inputs.chain) relaxed.base_ns = inputs.serial_device_ns;
  for (const HostBoundPart& part : inputs.parts) {
    // On a chain a part adds h - d to L (its chain times); without one, h to H.
    const int64_t chain_device_ns =
        part.chain_device_ns >= 0 ? part.chain_device_ns : part.device_ns;
    const int64_t chain_host_ns = part.chain_host_ns >= 0 ? part.chain_host_ns : part.host_ns;
    const long double cost_ns = inputs.chain ? chain_host_ns - chain_device_ns : part.host_ns;
    if (inputs.chain) relaxed.base_ns += chain_device_ns;  // L(0)
    if (cost_ns <= 0) {
      relaxed.base_ns += cost_ns;
      relaxed.base_freed += part.freed_bytes;
      ++relaxed.free_parts;
    } else if (part.freed_bytes > 0) {
      relaxed.costly.push_back({cost_ns, static_cast<long double>(part.freed_bytes)});
    }
  }
  SortByCostPerByte(relaxed.costly);
  relaxed.most_freed = relaxed.base_freed;
  for (const LaneOption& part : relaxed.costly) relaxed.most_freed += part.freed_bytes;
  RelieveDevice(inputs, relaxed);
  return relaxed;
}

// The least lane time that frees `want` bytes (<= most_freed), and the parts it takes.
long double LaneNsFreeing(const Relaxation& relaxed, long double want, long double* parts) {
  const LaneFill fill = FillUntilFreed(
      {relaxed.base_ns, relaxed.base_freed, static_cast<long double>(relaxed.free_parts)},
      relaxed.costly, want);
  *parts = fill.host_parts;
  return fill.lane_ns;
}

// The least bytes freed that bring every transfer term within `t_ns`: the largest
// bytes - t_ns * rate.
long double FreedNeeded(const HostBoundInputs& inputs, long double t_ns) {
  long double need = 0;
  for (const ForcedTransfer& term : inputs.transfers) {
    if (term.bytes <= 0 || term.bytes_per_s <= 0) continue;
    need = std::max(need, term.bytes - t_ns * term.bytes_per_s / kNsPerSecond);
  }
  return need;
}

// Whether the device lane can end by `t_ns`: its parts' device time beyond `t_ns` moved to the
// host at the least host time (a fractional knapsack by host ns per device ns), within `t_ns`.
bool DeviceLaneFits(const Relaxation& relaxed, int64_t t_ns) {
  long double want_ns = relaxed.all_device_ns - t_ns - kTolerance;
  long double host_ns = 0;
  for (const LaneOption& part : relaxed.relieving) {
    if (want_ns <= 0) break;
    const long double share = std::min<long double>(1, want_ns / part.freed_bytes);
    host_ns += share * part.cost_ns;
    want_ns -= share * part.freed_bytes;
  }
  return want_ns <= 0 && host_ns <= t_ns + kTolerance;
}

// Two necessary conditions on T, each over its own relaxation (a placement that meets both at
// once meets each): the lane (L or H) within T while the transfer terms are, and the device
// lane D(x) within T while the host lane H(x) is.
bool Feasible(const HostBoundInputs& inputs, const Relaxation& relaxed, int64_t t_ns,
              long double* parts, long double* freed) {
  const long double need = std::max(relaxed.base_freed, FreedNeeded(inputs, t_ns) - kTolerance);
  if (need > relaxed.most_freed) return false;
  *freed = need;
  return LaneNsFreeing(relaxed, need, parts) <= t_ns + kTolerance && DeviceLaneFits(relaxed, t_ns);
}

// Walks over the dependencies within a window of steps, for the chain term.
class ChainWalker {
 public:
  ChainWalker(const Problem& problem, const std::vector<HostPart>& parts, bool in_order,
              std::vector<int> part_of)
      : problem_(problem),
        in_order_(in_order),
        part_of_(std::move(part_of)),
        in_part_(problem.graph->nodes.size(), 0) {
    part_of_.resize(problem.graph->nodes.size(), -1);
    for (const HostPart& part : parts) {
      for (NodeId node : part.nodes) in_part_[node] = 1;
    }
  }

  // Whether `part` ends with its last node (every node of it is that node's ancestor) and
  // `next` starts after it (every node of `next` its descendant; in order, those from its first
  // descendant on, the earlier ones added to `early`); adds to `serial_ns` the device time of
  // the nodes in no part that run in between (descendants of the one, ancestors of every node
  // of the other that must descend).
  bool Link(const HostPart& part, const HostPart& next, int64_t& serial_ns,
            std::vector<NodeId>& early) const {
    if (part.last_step >= next.first_step) return false;
    const NodeId last = problem_.order[part.last_step];
    const std::set<NodeId> before = Walk(last, part.first_step, part.last_step, false);
    const std::set<NodeId> after = Walk(last, part.last_step, next.last_step, true);
    auto late = next.nodes.begin();
    if (in_order_) {
      late = std::find_if(next.nodes.begin(), next.nodes.end(),
                          [&](NodeId node) { return after.count(node) > 0; });
    }
    // In order the nodes after the first descendant on its unit (its part's) start after it
    // ends, so they need not descend; the other part's of a MoE link, and out of order every
    // node, must.
    std::vector<NodeId> descend;
    for (auto node = late; node != next.nodes.end(); ++node) {
      if (!in_order_ || node == late || part_of_[*node] != part_of_[*late])
        descend.push_back(*node);
    }
    if (descend.empty() || !ContainsAll(before, part.nodes) || !ContainsAll(after, descend)) {
      return false;
    }
    early.insert(early.end(), next.nodes.begin(), late);
    serial_ns +=
        DeviceNs(Intersect(after, AncestorsOfAll(descend, part.last_step, next.last_step)));
    return true;
  }

  // Whether every node of `part` is an ancestor of its last node or, failing that, of a node
  // after it up to step `limit` (a gather-form MoE block's last step may read an expert bias
  // that only a later add joins): `part` then ends at the first such node, which is in no part
  // (the steps between consecutive links hold none) and whose time then counts nowhere.
  bool EndAtCommonDescendant(HostPart& part, Step limit) {
    for (Step z = part.last_step; z <= limit; ++z) {
      const NodeId node = problem_.order[z];
      if (!ContainsAll(Walk(node, part.first_step, z, false), part.nodes)) continue;
      if (z > part.last_step) {
        part.nodes.push_back(node);
        part.last_step = z;
        in_part_[node] = 1;
      }
      return true;
    }
    return false;
  }

  // Nodes in no part that every node of `first` depends on: they run before it.
  int64_t PrefixNs(const HostPart& first) const {
    return DeviceNs(AncestorsOfAll(first.nodes, 0, first.last_step));
  }

  // Nodes in no part that depend on the last node of `last`: they run after it.
  int64_t SuffixNs(const HostPart& last) const {
    return DeviceNs(
        Walk(problem_.order[last.last_step], last.last_step, problem_.step_count() - 1, true));
  }

 private:
  // Every node reached from `start` (itself included) along producers (or consumers) within
  // steps [first, last]. A value updated in place (loop.h: a KV cache append) links its writer
  // to its readers after it in step order: they read the update (the model's readers of the
  // writer's output), so every plan runs them after the write ends: on one unit in order, across
  // units after the crossing that carries the update (verify.cc's fresh-read rules).
  std::set<NodeId> Walk(NodeId start, Step first, Step last, bool forward) const {
    std::set<NodeId> seen = {start};
    std::vector<NodeId> stack = {start};
    auto visit = [&](NodeId other) {
      if (other == kNoNode) return;
      const Step step = problem_.lifetimes.step_of_node[other];
      if (step >= first && step <= last && seen.insert(other).second) stack.push_back(other);
    };
    while (!stack.empty()) {
      const NodeId id = stack.back();
      stack.pop_back();
      if (forward) {
        ForEachReader(id, visit);
      } else {
        ForEachSource(id, visit);
      }
    }
    return seen;
  }

  // The nodes that read what `id` produces or updates in place after it.
  template <typename Visit>
  void ForEachReader(NodeId id, Visit& visit) const {
    const Graph& graph = *problem_.graph;
    const Step step = problem_.lifetimes.step_of_node[id];
    for (ValueId value : graph.nodes[id].outputs) {
      if (value == kNoValue) continue;
      for (NodeId consumer : graph.values[value].consumers) visit(consumer);
    }
    for (ValueId value : graph.nodes[id].inputs) {
      if (value == kNoValue || graph.values[value].written_by != id) continue;
      for (NodeId reader : graph.values[value].consumers) {
        if (problem_.lifetimes.step_of_node[reader] > step) visit(reader);
      }
    }
  }

  // The nodes whose output `id` reads, or whose in-place update of its input comes before it.
  template <typename Visit>
  void ForEachSource(NodeId id, Visit& visit) const {
    const Graph& graph = *problem_.graph;
    const Step step = problem_.lifetimes.step_of_node[id];
    for (ValueId value : graph.nodes[id].inputs) {
      if (value == kNoValue) continue;
      visit(graph.values[value].producer);
      const NodeId writer = graph.values[value].written_by;
      if (writer != kNoNode && writer != id && problem_.lifetimes.step_of_node[writer] < step) {
        visit(writer);
      }
    }
  }

  std::set<NodeId> AncestorsOfAll(const std::vector<NodeId>& nodes, Step from, Step last) const {
    std::set<NodeId> common = Walk(nodes.front(), from, last, false);
    for (NodeId node : nodes) common = Intersect(common, Walk(node, from, last, false));
    return common;
  }

  static std::set<NodeId> Intersect(const std::set<NodeId>& a, const std::set<NodeId>& b) {
    std::set<NodeId> both;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
                          std::inserter(both, both.begin()));
    return both;
  }

  static bool ContainsAll(const std::set<NodeId>& seen, const std::vector<NodeId>& nodes) {
    return std::all_of(nodes.begin(), nodes.end(), [&](NodeId n) { return seen.count(n) > 0; });
  }

  int64_t DeviceNs(const std::set<NodeId>& nodes) const {
    int64_t ns = 0;
    for (NodeId node : nodes) {
      if (!in_part_[node]) ns += problem_.node_time_ns[node];
    }
    return ns;
  }

  const Problem& problem_;
  bool in_order_ = false;
  std::vector<int> part_of_;  // by NodeId: the part (of the caller's) holding it, -1: none
  std::vector<uint8_t> in_part_;
};

// By part, the bytes it frees (see the header): every value its nodes read or write, split
// evenly among the parts that touch it (a rotary table every attention reads), none for a value
// a node in no part touches (that node keeps it in the device's view), and its nodes' scratch;
// apart, those that live only within the part's steps (made and read by it alone, and scratch).
struct PartFreedBytes {
  std::vector<int64_t> lasting;
  std::vector<int64_t> transient;
};

// Whether `value` is made by part `part`'s nodes and read by them alone, and not kept anywhere.
bool TransientIn(const Problem& problem, ValueId value, int part, const std::vector<int>& part_of) {
  const Value& v = problem.graph->values[value];
  const bool persistent =
      static_cast<size_t>(value) < problem.persistent.size() && problem.persistent[value];
  return v.producer != kNoNode && part_of[v.producer] == part && !v.is_graph_input &&
         !v.is_initializer && !v.is_graph_output && v.written_by == kNoNode && !persistent;
}

PartFreedBytes FreedBytesByPart(const Problem& problem, const std::vector<HostPart>& parts) {
  const Graph& graph = *problem.graph;
  std::vector<int> part_of(graph.nodes.size(), -1);
  for (size_t p = 0; p < parts.size(); ++p) {
    for (NodeId node : parts[p].nodes) part_of[node] = static_cast<int>(p);
  }
  std::vector<std::vector<int>> touchers(graph.values.size());
  std::vector<uint8_t> kept(graph.values.size(), 0);  // touched by a node in no part
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (const auto* values : {&graph.nodes[n].inputs, &graph.nodes[n].outputs}) {
      for (ValueId value : *values) {
        if (value == kNoValue) continue;
        if (part_of[n] < 0) {
          kept[value] = 1;
        } else {
          touchers[value].push_back(part_of[n]);
        }
      }
    }
  }
  PartFreedBytes freed{std::vector<int64_t>(parts.size(), 0),
                       std::vector<int64_t>(parts.size(), 0)};
  for (size_t p = 0; p < parts.size(); ++p) {
    for (NodeId node : parts[p].nodes) freed.transient[p] += graph.nodes[node].subgraph_peak_bytes;
  }
  for (size_t v = 0; v < graph.values.size(); ++v) {
    std::vector<int>& by = touchers[v];
    if (kept[v] || by.empty()) continue;
    std::sort(by.begin(), by.end());
    by.erase(std::unique(by.begin(), by.end()), by.end());
    const int64_t share = graph.values[v].bytes / static_cast<int64_t>(by.size());
    const bool transient =
        by.size() == 1 && TransientIn(problem, static_cast<ValueId>(v), by[0], part_of);
    for (int p : by) (transient ? freed.transient : freed.lasting)[p] += share;
  }
  return freed;
}

// The most transient bytes live at one step: in order, the largest sum over the parts whose
// steps hold it (a transient value lives within its part's steps); else every part's.
int64_t MostTransientBytes(const Problem& problem, const std::vector<HostPart>& parts,
                           const std::vector<int64_t>& transient, bool in_order) {
  if (!in_order) {
    int64_t total = 0;
    for (int64_t bytes : transient) total += bytes;
    return total;
  }
  std::vector<int64_t> change(problem.order.size() + 1, 0);
  for (size_t p = 0; p < parts.size(); ++p) {
    change[parts[p].first_step] += transient[p];
    change[parts[p].last_step + 1] -= transient[p];
  }
  int64_t live = 0;
  int64_t most = 0;
  for (int64_t delta : change) {
    live += delta;
    most = std::max(most, live);
  }
  return most;
}

// The bytes of a com.microsoft MoE/QMoE node's stacked experts its tokens do not route to
// (NodeBytes reads the routed ones: routing.h), 0 for any other node.
int64_t UnroutedBytes(const Graph& graph, const Node& node) {
  if (!cost_rules::IsMoeOp(node)) return 0;
  const std::optional<cost_rules::MoeShape> shape = cost_rules::DescribeMoe(graph, node);
  if (!shape) return 0;
  return std::max<int64_t>(0,
                           shape->expert_bytes + shape->activation_bytes - NodeBytes(graph, node));
}

// Sparsity (see the header): each forced transfer (M, r) becomes (M - Z, r) and
// (M, r / (1 - rho)), with Z every MoE node's unrouted bytes and 1 - rho the least chance any
// expert of a MoE node is touched (a byte of it fetched after route costs at least that much
// transfer, whichever experts stay resident).
void AddSparseTerms(const Graph& graph, HostBoundInputs& inputs) {
  long double unrouted_bytes = 0;
  long double rho = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const int64_t unrouted = UnroutedBytes(graph, graph.nodes[n]);
    if (unrouted == 0) continue;
    unrouted_bytes += unrouted;
    // Uniform routing touches every expert alike: the unrouted share itself (exact in bytes).
    const auto shape = cost_rules::DescribeMoe(graph, graph.nodes[n]);
    const std::optional<MoeRouting> routing = MoeRoutingOf(graph, static_cast<NodeId>(n));
    if (!routing || routing->selection_probability.empty()) {
      rho = std::max(rho, static_cast<long double>(unrouted) / shape->expert_bytes);
      continue;
    }
    const std::vector<double> touch = TouchProbabilities(*routing);
    rho = std::max<long double>(rho, 1.0L - *std::min_element(touch.begin(), touch.end()));
  }
  if (unrouted_bytes == 0) return;
  std::vector<ForcedTransfer> terms;
  for (const ForcedTransfer& term : inputs.transfers) {
    terms.push_back(
        {std::max<int64_t>(0, term.bytes - std::llround(unrouted_bytes)), term.bytes_per_s});
    // Rates are whole bytes per second; rounding the scaled rate up only lowers the term.
    if (rho < 1) {
      terms.push_back({term.bytes, static_cast<int64_t>(std::ceil(term.bytes_per_s / (1 - rho)))});
    }
  }
  inputs.transfers = std::move(terms);
}

// The device-only bound's forced bytes: into and out of the device, and per link.
std::vector<ForcedTransfer> TransfersOf(const HardwareProfile& profile, const LowerBounds& device) {
  const DeviceLinkRates rates = SumDeviceLinkRates(profile);
  std::vector<ForcedTransfer> terms = {{device.must_fetch_bytes, rates.into_device_bytes_per_s},
                                       {device.must_store_bytes, rates.out_of_device_bytes_per_s}};
  for (size_t l = 0; l < device.must_move_bytes_per_link.size(); ++l) {
    terms.push_back({device.must_move_bytes_per_link[l], profile.links[l].bandwidth_bytes_per_s});
  }
  return terms;
}

// The chain times of a MoE block's rest `rest` beside its routed experts `experts` (see the
// header): its nodes that are ancestors of the experts' first node or descendants of their
// last.
void SetRestChainTimes(const Problem& problem, const HostPart& rest, const HostPart& experts,
                       HostBoundPart& bound_part) {
  const Graph& graph = *problem.graph;
  std::set<NodeId> block(rest.nodes.begin(), rest.nodes.end());
  block.insert(experts.nodes.begin(), experts.nodes.end());
  auto in_block = [&](NodeId node) { return block.count(node) > 0; };
  const std::set<NodeId> before =
      ReachableWithin(graph, experts.nodes.front(), /*forward=*/false, in_block);
  const std::set<NodeId> after =
      ReachableWithin(graph, experts.nodes.back(), /*forward=*/true, in_block);
  bound_part.chain_device_ns = 0;
  bound_part.chain_host_ns = 0;
  for (NodeId node : rest.nodes) {
    if (before.count(node) == 0 && after.count(node) == 0) continue;
    bound_part.chain_device_ns += problem.node_time_ns[node];
    bound_part.chain_host_ns +=
        EstimateHostNodeCost(graph, graph.nodes[node], *problem.profile).time_ns;
  }
}

// Ends a MoE block's link at the node that adds the routed experts' output to the shared
// experts' (it reads no weight, so no part holds it) when that node comes after the link: the
// link's nodes are then all its ancestors, as the walk checks. Its time counts in no term.
void EndAtJoin(const Problem& problem, const HostPart& experts, HostPart& link) {
  const Graph& graph = *problem.graph;
  NodeId join = kNoNode;
  for (ValueId output : graph.nodes[experts.nodes.back()].outputs) {
    if (output == kNoValue) continue;
    for (NodeId consumer : graph.values[output].consumers) {
      const Step step = problem.lifetimes.step_of_node[consumer];
      if (step > link.last_step &&
          (join == kNoNode || step < problem.lifetimes.step_of_node[join])) {
        join = consumer;
      }
    }
  }
  if (join == kNoNode) return;
  link.nodes.push_back(join);
  link.last_step = problem.lifetimes.step_of_node[join];
}

// The chain's links: `parts`, with each MoE block's routed experts and rest joined into one
// (their steps interleave); the rest's chain times set in `bound_parts` (by part).
std::vector<HostPart> MoeBlocksJoined(const Problem& problem, const std::vector<HostPart>& parts,
                                      std::vector<HostBoundPart>& bound_parts) {
  std::vector<HostPart> links;
  std::vector<uint8_t> joined(parts.size(), 0);
  for (size_t e = 0; e < parts.size(); ++e) {
    if (parts[e].kind != HostPartKind::kRoutedExperts) continue;
    for (size_t r = 0; r < parts.size(); ++r) {
      if (parts[r].kind != HostPartKind::kMlp || parts[r].layer != parts[e].layer) continue;
      SetRestChainTimes(problem, parts[r], parts[e], bound_parts[r]);
      HostPart link = parts[r];
      link.nodes.insert(link.nodes.end(), parts[e].nodes.begin(), parts[e].nodes.end());
      std::sort(link.nodes.begin(), link.nodes.end(), [&](NodeId a, NodeId b) {
        return problem.lifetimes.step_of_node[a] < problem.lifetimes.step_of_node[b];
      });
      link.first_step = std::min(parts[r].first_step, parts[e].first_step);
      link.last_step = std::max(parts[r].last_step, parts[e].last_step);
      EndAtJoin(problem, parts[e], link);
      links.push_back(std::move(link));
      joined[e] = joined[r] = 1;
    }
  }
  for (size_t p = 0; p < parts.size(); ++p) {
    if (!joined[p]) links.push_back(parts[p]);
  }
  std::sort(links.begin(), links.end(),
            [](const HostPart& a, const HostPart& b) { return a.first_step < b.first_step; });
  return links;
}

// The chain times of `bound_parts` (by part of `parts`) less the times of `early` (their nodes
// that may run before the link before theirs ends), on either unit; never below 0.
void LeaveOutOfChain(const Problem& problem, const std::vector<int>& part_of,
                     const std::vector<NodeId>& early, std::vector<HostBoundPart>& bound_parts) {
  const Graph& graph = *problem.graph;
  for (NodeId node : early) {
    if (part_of[node] < 0) continue;  // a join node: in no part
    HostBoundPart& part = bound_parts[part_of[node]];
    if (part.chain_device_ns < 0) part.chain_device_ns = part.device_ns;
    if (part.chain_host_ns < 0) part.chain_host_ns = part.host_ns;
    const int64_t host_ns =
        EstimateHostNodeCost(graph, graph.nodes[node], *problem.profile).time_ns;
    part.chain_device_ns = std::max<int64_t>(0, part.chain_device_ns - problem.node_time_ns[node]);
    part.chain_host_ns = std::max<int64_t>(0, part.chain_host_ns - host_ns);
  }
}

}  // namespace

HostAwareBound SolveHostAwareBound(const HostBoundInputs& inputs) {
  const Relaxation relaxed = Relax(inputs);
  const RoutedLaneRelaxation routed = RelaxRoutedLane(inputs);
  HostAwareBound bound;
  bound.chain = inputs.chain;
  bound.part_count = static_cast<int>(inputs.parts.size());
  long double parts = 0;
  long double freed = 0;
  // Every costly part on the host as well frees the most: a feasible upper end.
  // The fetch-after-route condition (routed_lane_bound.h) is one more necessary condition.
  auto feasible = [&](int64_t t_ns, long double* p, long double* f) {
    return Feasible(inputs, relaxed, t_ns, p, f) && RoutedLaneFits(inputs, routed, t_ns);
  };
  int64_t high_ns = 1;
  while (!feasible(high_ns, &parts, &freed)) high_ns *= 2;
  int64_t low_ns = 0;  // infeasible or the answer
  if (feasible(0, &parts, &freed)) high_ns = 0;
  while (high_ns - low_ns > 1) {
    const int64_t mid_ns = low_ns + (high_ns - low_ns) / 2;
    long double p = 0;
    long double f = 0;
    if (feasible(mid_ns, &p, &f)) {
      high_ns = mid_ns;
    } else {
      low_ns = mid_ns;
    }
  }
  Feasible(inputs, relaxed, high_ns, &parts, &freed);
  long double p = 0;
  long double f = 0;
  bound.routed_lane_binds = high_ns > 0 && Feasible(inputs, relaxed, high_ns - 1, &p, &f) &&
                            !RoutedLaneFits(inputs, routed, high_ns - 1);
  // Where fetch after route binds, its placement is the one to show.
  if (bound.routed_lane_binds) RoutedLaneFits(inputs, routed, high_ns, &parts, &freed);
  bound.makespan_ns =
      std::max({high_ns, inputs.fixed_device_ns, inputs.device_only_ns, inputs.timed_ns});
  bound.spill_binds = inputs.spill_ns > 0 && inputs.spill_ns >= bound.makespan_ns;
  bound.makespan_ns = std::max(bound.makespan_ns, inputs.spill_ns);
  bound.spill_bytes = inputs.spill_bytes;
  bound.timed_ns = inputs.timed_ns;
  bound.host_parts = static_cast<double>(parts);
  bound.freed_bytes = std::llround(freed);
  return bound;
}

ChainWalk WalkChain(const Problem& problem, const std::vector<HostPart>& parts, bool in_order,
                    std::vector<int> part_of) {
  ChainWalk walk;
  if (parts.empty()) return walk;
  std::vector<HostPart> links = parts;
  if (part_of.empty()) {  // each link one part
    part_of.assign(problem.graph->nodes.size(), -1);
    for (size_t l = 0; l < links.size(); ++l) {
      for (NodeId node : links[l].nodes) part_of[node] = static_cast<int>(l);
    }
  }
  ChainWalker walker(problem, links, in_order, std::move(part_of));
  int64_t serial_ns = walker.PrefixNs(links.front());
  for (size_t i = 0; i < links.size(); ++i) {
    const bool last = i + 1 == links.size();
    const Step limit = last ? problem.step_count() - 1 : links[i + 1].first_step - 1;
    if (!walker.EndAtCommonDescendant(links[i], limit)) return walk;
    if (!last && !walker.Link(links[i], links[i + 1], serial_ns, walk.early_nodes)) {
      walk.early_nodes.clear();
      return walk;
    }
  }
  serial_ns += walker.SuffixNs(links.back());
  walk.chain = true;
  walk.serial_device_ns = serial_ns;
  return walk;
}

HostBoundInputs HostBoundInputsFor(const Problem& problem, const LowerBounds& device,
                                   const HostPartOptions& options, bool in_order) {
  HostBoundInputs inputs;
  const std::vector<HostPart> parts = FindHostParts(problem, options);
  int64_t part_device_ns = 0;
  const PartFreedBytes freed = FreedBytesByPart(problem, parts);
  for (size_t p = 0; p < parts.size(); ++p) {
    inputs.parts.push_back({parts[p].device_ns, parts[p].host_ns, freed.lasting[p]});
    part_device_ns += parts[p].device_ns;
  }
  inputs.transient_freed_bytes = MostTransientBytes(problem, parts, freed.transient, in_order);
  inputs.fixed_device_ns = device.compute_ns - part_device_ns;
  if (parts.empty()) inputs.device_only_ns = device.makespan_ns;
  std::vector<int> part_of(problem.graph->nodes.size(), -1);
  for (size_t p = 0; p < parts.size(); ++p) {
    for (NodeId node : parts[p].nodes) part_of[node] = static_cast<int>(p);
  }
  const ChainWalk walk =
      WalkChain(problem, MoeBlocksJoined(problem, parts, inputs.parts), in_order, part_of);
  LeaveOutOfChain(problem, part_of, walk.early_nodes, inputs.parts);
  inputs.chain = walk.chain;
  inputs.serial_device_ns = walk.serial_device_ns;
  inputs.transfers = TransfersOf(*problem.profile, device);
  inputs.whole_transfers = inputs.transfers;
  AddRoutedFetchOptions(problem, parts, inputs);
  AddSparseTerms(*problem.graph, inputs);
  inputs.timed_ns = HostTimedTerm(problem, device, parts).ns;
  const SpillTerm spill = ComputeSpillTerm(problem);
  inputs.spill_ns = spill.ns;
  inputs.spill_bytes = spill.crossing_bytes;
  return inputs;
}

HostAwareBound ComputeHostAwareBound(const Problem& problem, const LowerBounds& device,
                                     bool in_order) {
  HostAwareBound bound = SolveHostAwareBound(HostBoundInputsFor(problem, device, {}, in_order));
  HostPartOptions cores;
  cores.attention_cores = true;
  const HostBoundInputs core_inputs = HostBoundInputsFor(problem, device, cores, in_order);
  if (core_inputs.parts.empty()) return bound;
  HostAwareBound core_bound = SolveHostAwareBound(core_inputs);
  core_bound.attention_cores = true;
  return core_bound.makespan_ns < bound.makespan_ns ? core_bound : bound;
}

}  // namespace hyperplan::contenders
