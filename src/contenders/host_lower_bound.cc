// The host-aware lower bound (see host_lower_bound.h).
#include "contenders/host_lower_bound.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "contenders/graph_walk.h"
#include "contenders/host_cut.h"
#include "contenders/host_late_fetch.h"
#include "contenders/host_timed_terms.h"
#include "contenders/host_write_back.h"
#include "contenders/lane_options.h"
#include "contenders/routed_lane_bound.h"
#include "contenders/spill_lane_bound.h"
#include "contenders/whole_parts.h"
#include "core/expert_gather.h"
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

// The lane's knapsack; `host_part_ns`: each part of class `split_class` (-1: every part) on the
// host costs that much more lane time (a multiplier on their count, which host_parts counts
// alone: whole_parts.h).
Relaxation Relax(const HostBoundInputs& inputs, long double host_part_ns = 0,
                 int split_class = -1) {
  Relaxation relaxed;
  relaxed.base_freed = inputs.transient_freed_bytes;
  if (inputs.chain) relaxed.base_ns = inputs.serial_device_ns;
  for (const HostBoundPart& part : inputs.parts) {
    // On a chain a part adds h - d to L (its chain times); without one, h to H.
    const int64_t chain_device_ns =
        part.chain_device_ns >= 0 ? part.chain_device_ns : part.device_ns;
    const int64_t chain_host_ns = part.chain_host_ns >= 0 ? part.chain_host_ns : part.host_ns;
    const bool counted = split_class < 0 || part.split_class == split_class;
    const long double cost_ns = (inputs.chain ? chain_host_ns - chain_device_ns : part.host_ns) +
                                (counted ? host_part_ns : 0);
    if (inputs.chain) relaxed.base_ns += chain_device_ns;  // L(0)
    if (cost_ns <= 0) {
      relaxed.base_ns += cost_ns;
      relaxed.base_freed += part.freed_bytes;
      relaxed.free_parts += counted ? 1 : 0;
    } else if (part.freed_bytes > 0) {
      relaxed.costly.push_back(
          {cost_ns, static_cast<long double>(part.freed_bytes), counted ? 1.0L : 0.0L});
    }
  }
  SortByCostPerByte(relaxed.costly);
  relaxed.most_freed = relaxed.base_freed;
  for (const LaneOption& part : relaxed.costly) relaxed.most_freed += part.freed_bytes;
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

// One side of the whole-parts split (whole_parts.h): the count of the parts of class
// `split_class` on the host at most `count` (at_most) or at least it.
struct CountSide {
  int split_class = 0;
  long double count = 0;
  bool at_most = true;
};

// Whether `t_ns` may be met on `side` (whole_parts.h): the lane and fetch-after-route
// conditions with the count constrained (by a multiplier), the device lane's as is.
bool FeasibleOnSide(const HostBoundInputs& inputs, const Relaxation& relaxed, bool routed_lane,
                    const CountSide& side, int64_t t_ns) {
  if (!DeviceLaneFits(relaxed, t_ns)) return false;
  const long double need = FreedNeeded(inputs, t_ns) - kTolerance;
  auto lane_ns = [&](long double host_part_ns) {
    const Relaxation shifted = Relax(inputs, host_part_ns, side.split_class);
    long double parts = 0;
    if (need > shifted.most_freed) return std::numeric_limits<long double>::infinity();
    return LaneNsFreeing(shifted, need, &parts);
  };
  if (CountedLaneNs(lane_ns, side.count, side.at_most) > t_ns + kTolerance) return false;
  if (!routed_lane) return true;
  auto routed_ns = [&](long double host_part_ns) {
    return RoutedLaneNs(inputs, RelaxRoutedLane(inputs, host_part_ns, side.split_class), t_ns);
  };
  return CountedLaneNs(routed_ns, side.count, side.at_most) <= t_ns + kTolerance;
}

// The least T `side` may meet, above `infeasible_ns` >= 0 (which no placement meets); kNoSide
// when doubling finds none.
constexpr int64_t kNoSide = std::numeric_limits<int64_t>::max() / 4;
int64_t LeastOnSide(const HostBoundInputs& inputs, const Relaxation& relaxed, bool routed_lane,
                    const CountSide& side, int64_t infeasible_ns) {
  auto feasible = [&](int64_t t_ns) {
    return FeasibleOnSide(inputs, relaxed, routed_lane, side, t_ns);
  };
  int64_t low_ns = infeasible_ns;
  int64_t high_ns = infeasible_ns + 1;
  for (int doubling = 0; !feasible(high_ns); ++doubling) {
    if (doubling == 40) return kNoSide;
    low_ns = high_ns;
    high_ns = 2 * high_ns;
  }
  while (high_ns - low_ns > 1) {
    const int64_t mid_ns = low_ns + (high_ns - low_ns) / 2;
    (feasible(mid_ns) ? high_ns : low_ns) = mid_ns;
  }
  return high_ns;
}

// The count of class `split_class`'s parts on the host in the relaxation's placement at
// `t_ns`: of the fetch-after-route condition's where it binds, else of the lane's.
long double ClassCountAt(const HostBoundInputs& inputs, bool routed_binds, int split_class,
                         int64_t t_ns) {
  LaneFill fill;
  if (routed_binds) {
    RoutedLaneNs(inputs, RelaxRoutedLane(inputs, 0, split_class), t_ns, &fill);
    return fill.host_parts;
  }
  long double parts = 0;
  LaneNsFreeing(Relax(inputs, 0, split_class), FreedNeeded(inputs, t_ns) - kTolerance, &parts);
  return parts;
}

// Whole parts (whole_parts.h): for each class of parts whose count on the host is fractional
// in the relaxation's placement at its least T `relaxed_ns`, the least T each side of the
// split at the count's floor may meet; the class whose lesser side is largest is kept in
// `bound` (whole_parts_ns, a bound too).
void SplitOnHostCount(const HostBoundInputs& inputs, const Relaxation& relaxed, bool routed_lane,
                      int64_t relaxed_ns, HostAwareBound& bound) {
  if (relaxed_ns <= 0) return;  // relaxed_ns - 1 below is then proven out
  std::set<int> classes;
  for (const HostBoundPart& part : inputs.parts) {
    if (part.split_class >= 0) classes.insert(part.split_class);
  }
  for (int split_class : classes) {
    const long double count =
        ClassCountAt(inputs, bound.routed_lane_binds, split_class, relaxed_ns);
    const long double floor = std::floor(count + kTolerance);
    if (count - floor <= kTolerance) continue;  // whole already
    // No placement meets relaxed_ns - 1, so neither side does.
    const int64_t at_most_ns =
        LeastOnSide(inputs, relaxed, routed_lane, {split_class, floor, true}, relaxed_ns - 1);
    const int64_t at_least_ns =
        LeastOnSide(inputs, relaxed, routed_lane, {split_class, floor + 1, false}, relaxed_ns - 1);
    const int64_t least_ns = std::min(at_most_ns, at_least_ns);
    if (least_ns <= bound.whole_parts_ns || least_ns >= kNoSide) continue;
    bound.split_class = split_class;
    bound.split_count = static_cast<int>(floor);
    bound.at_most_ns = at_most_ns;
    bound.at_least_ns = at_least_ns;
    bound.whole_parts_ns = std::min(at_most_ns, at_least_ns);
  }
}

// By NodeId, each node's step in `order` (a topological order of the graph's `node_count`
// nodes).
std::vector<Step> PositionsIn(const std::vector<NodeId>& order, size_t node_count) {
  std::vector<Step> position(node_count, 0);
  for (size_t s = 0; s < order.size(); ++s) position[order[s]] = static_cast<Step>(s);
  return position;
}

// Walks over the dependencies within a window of steps, for the chain term.
class ChainWalker {
 public:
  // `plan_order` (null: any order): the order whose steps the plans bounded follow.
  ChainWalker(const Problem& problem, const std::vector<HostPart>& parts,
              const std::vector<NodeId>* plan_order, std::vector<int> part_of)
      : problem_(problem),
        in_order_(plan_order != nullptr),
        part_of_(std::move(part_of)),
        in_part_(problem.graph->nodes.size(), 0) {
    part_of_.resize(problem.graph->nodes.size(), -1);
    for (const HostPart& part : parts) {
      for (NodeId node : part.nodes) in_part_[node] = 1;
    }
    if (in_order_) position_ = PositionsIn(*plan_order, problem.graph->nodes.size());
  }

  // Whether `part` ends with its last node (every node of it is that node's ancestor) and
  // `next` starts after it (every node of `next` its descendant; in the plan's order, those
  // from its first descendant on, the earlier ones added to `early`); adds to `serial_ns` the
  // device time of the nodes in no part that run in between (descendants of the one, ancestors
  // of every node of the other that must descend).
  bool Link(const HostPart& part, const HostPart& next, int64_t& serial_ns,
            std::vector<NodeId>& early) const {
    if (part.last_step >= next.first_step) return false;
    const NodeId last = problem_.order[part.last_step];
    const std::set<NodeId> before = Walk(last, part.first_step, part.last_step, false);
    const std::set<NodeId> after = Walk(last, part.last_step, next.last_step, true);
    std::vector<NodeId> descend;
    std::vector<NodeId> early_here;
    if (!in_order_) {
      descend = next.nodes;
    } else if (!SplitAtFirstDescendant(next, after, descend, early_here)) {
      return false;
    }
    if (descend.empty() || !ContainsAll(before, part.nodes) || !ContainsAll(after, descend)) {
      return false;
    }
    early.insert(early.end(), early_here.begin(), early_here.end());
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

  // In the plan's order: `next`'s first node there that descends from the previous link
  // (`after`), "late". The nodes of late's part after it in the plan's order run on its unit
  // after it, so after the previous link ends, and need not descend; the other part's of a MoE
  // link must (to `descend`, with late); the nodes before it may run earlier (to `early`).
  // False when no node of `next` descends.
  bool SplitAtFirstDescendant(const HostPart& next, const std::set<NodeId>& after,
                              std::vector<NodeId>& descend, std::vector<NodeId>& early) const {
    NodeId late = kNoNode;
    for (NodeId node : next.nodes) {
      if (after.count(node) > 0 && (late == kNoNode || position_[node] < position_[late])) {
        late = node;
      }
    }
    if (late == kNoNode) return false;
    for (NodeId node : next.nodes) {
      if (position_[node] < position_[late]) {
        early.push_back(node);
      } else if (node == late || part_of_[node] != part_of_[late]) {
        descend.push_back(node);
      }
    }
    return true;
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
  std::vector<Step> position_;  // by NodeId: its step in the plan's order (in order only)
  std::vector<int> part_of_;    // by NodeId: the part (of the caller's) holding it, -1: none
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

// The most transient bytes live at one step: in the plan's order, the largest sum over the
// parts whose steps there hold it (a transient value lives between the first and the last of
// its part's steps in that order); in any order, every part's.
int64_t MostTransientBytes(const Problem& problem, const std::vector<HostPart>& parts,
                           const std::vector<int64_t>& transient,
                           const std::vector<NodeId>* plan_order) {
  if (plan_order == nullptr) {
    int64_t total = 0;
    for (int64_t bytes : transient) total += bytes;
    return total;
  }
  const std::vector<Step> position = PositionsIn(*plan_order, problem.graph->nodes.size());
  std::vector<int64_t> change(plan_order->size() + 1, 0);
  for (size_t p = 0; p < parts.size(); ++p) {
    if (parts[p].nodes.empty()) continue;
    Step first = position[parts[p].nodes.front()];
    Step last = first;
    for (NodeId node : parts[p].nodes) {
      first = std::min(first, position[node]);
      last = std::max(last, position[node]);
    }
    change[first] += transient[p];
    change[last + 1] -= transient[p];
  }
  int64_t live = 0;
  int64_t most = 0;
  for (int64_t delta : change) {
    live += delta;
    most = std::max(most, live);
  }
  return most;
}

// A routed node's stacked experts: all their bytes, and those its tokens do not route to
// (NodeBytes reads the routed ones: routing.h). A com.microsoft MoE/QMoE node's stacked
// operands, or an expert Gather's table (the gather form, core/expert_gather.h: its byte rule
// reads RoutedBytes of the table, a routed Prefetch of it moves that many in expectation);
// zeros for any other node.
struct StackedExperts {
  int64_t bytes = 0;
  int64_t unrouted_bytes = 0;
};

StackedExperts StackedExpertsOf(const Graph& graph, const Node& node) {
  if (const auto shape = cost_rules::DescribeMoe(graph, node)) {
    return {shape->expert_bytes,
            std::max<int64_t>(
                0, shape->expert_bytes + shape->activation_bytes - NodeBytes(graph, node))};
  }
  const std::optional<cost_rules::ExpertGatherShape> gather =
      cost_rules::DescribeExpertGather(graph, node);
  if (!gather || gather->tokens <= 0) return {};
  const int64_t table_bytes = graph.values[gather->table].bytes;
  return {table_bytes,
          std::max<int64_t>(0, table_bytes - cost_rules::ExpectedTableReadBytes(graph, *gather))};
}

// Sparsity (see the header): each forced transfer (M, r) becomes (M - Z, r) and
// (M, r / (1 - rho)), with Z every routed node's unrouted bytes and 1 - rho the least chance
// any expert of a routed node is touched (a byte of it fetched after route costs at least that
// much transfer, whichever experts stay resident).
void AddSparseTerms(const Graph& graph, HostBoundInputs& inputs) {
  long double unrouted_bytes = 0;
  long double rho = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const StackedExperts stacked = StackedExpertsOf(graph, graph.nodes[n]);
    if (stacked.unrouted_bytes == 0) continue;
    unrouted_bytes += stacked.unrouted_bytes;
    // Uniform routing touches every expert alike: the unrouted share itself (exact in bytes).
    const std::optional<MoeRouting> routing = MoeRoutingOf(graph, static_cast<NodeId>(n));
    if (!routing || routing->selection_probability.empty()) {
      rho = std::max(rho, static_cast<long double>(stacked.unrouted_bytes) / stacked.bytes);
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
// last; the others marked in `off_chain` (by NodeId).
void SetRestChainTimes(const Problem& problem, const HostPart& rest, const HostPart& experts,
                       HostBoundPart& bound_part, std::vector<uint8_t>& off_chain) {
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
    if (before.count(node) == 0 && after.count(node) == 0) {
      off_chain[node] = 1;
      continue;
    }
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
// (their steps interleave); the rest's chain times set in `bound_parts` (by part), the nodes
// they leave out marked in `off_chain` (by NodeId).
std::vector<HostPart> MoeBlocksJoined(const Problem& problem, const std::vector<HostPart>& parts,
                                      std::vector<HostBoundPart>& bound_parts,
                                      std::vector<uint8_t>& off_chain) {
  std::vector<HostPart> links;
  std::vector<uint8_t> joined(parts.size(), 0);
  for (size_t e = 0; e < parts.size(); ++e) {
    if (parts[e].kind != HostPartKind::kRoutedExperts) continue;
    for (size_t r = 0; r < parts.size(); ++r) {
      if (parts[r].kind != HostPartKind::kMlp || parts[r].layer != parts[e].layer) continue;
      SetRestChainTimes(problem, parts[r], parts[e], bound_parts[r], off_chain);
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
// that may run before the link before theirs ends) they count (not those `off_chain` marks),
// on either unit; never below 0.
void LeaveOutOfChain(const Problem& problem, const std::vector<int>& part_of,
                     const std::vector<NodeId>& early, const std::vector<uint8_t>& off_chain,
                     std::vector<HostBoundPart>& bound_parts) {
  const Graph& graph = *problem.graph;
  for (NodeId node : early) {
    if (part_of[node] < 0 || off_chain[node]) continue;  // a join node: in no part
    HostBoundPart& part = bound_parts[part_of[node]];
    if (part.chain_device_ns < 0) part.chain_device_ns = part.device_ns;
    if (part.chain_host_ns < 0) part.chain_host_ns = part.host_ns;
    const int64_t host_ns =
        EstimateHostNodeCost(graph, graph.nodes[node], *problem.profile).time_ns;
    part.chain_device_ns = std::max<int64_t>(0, part.chain_device_ns - problem.node_time_ns[node]);
    part.chain_host_ns = std::max<int64_t>(0, part.chain_host_ns - host_ns);
  }
}

// The relief conditions' bounds (relief_condition.h): each is a transfer term with its own relief
// per part, so each gets its own relaxation (the lanes, and that term alone); a placement meeting
// every condition meets each, so each least T is a bound. The largest, with its placement.
HostAwareBound MostReliefBound(const HostBoundInputs& inputs) {
  HostAwareBound most;
  for (const ReliefCondition& condition : inputs.relief_conditions) {
    HostBoundInputs one;
    one.parts = inputs.parts;
    for (size_t p = 0; p < one.parts.size(); ++p) {
      one.parts[p].freed_bytes = condition.relief_bytes[p];
    }
    one.fixed_device_ns = inputs.fixed_device_ns;
    one.chain = inputs.chain;
    one.serial_device_ns = inputs.serial_device_ns;
    one.transfers = {{condition.bytes, condition.bytes_per_s}};
    HostAwareBound bound = SolveHostAwareBound(one);
    if (bound.makespan_ns > most.makespan_ns) most = bound;
  }
  return most;
}

}  // namespace

HostAwareBound SolveHostAwareBound(const HostBoundInputs& inputs) {
  Relaxation relaxed = Relax(inputs);
  RelieveDevice(inputs, relaxed);
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
  bound.host_parts = static_cast<double>(parts);
  bound.freed_bytes = std::llround(freed);
  SplitOnHostCount(inputs, relaxed, routed.active, high_ns, bound);
  bound.makespan_ns = std::max({high_ns, bound.whole_parts_ns, inputs.fixed_device_ns,
                                inputs.device_only_ns, inputs.timed_ns});
  // Where a relief condition binds, its placement is the one to show.
  const HostAwareBound relief = MostReliefBound(inputs);
  bound.relief_ns = relief.makespan_ns;
  if (relief.makespan_ns > bound.makespan_ns) {
    bound.makespan_ns = relief.makespan_ns;
    bound.relief_binds = true;
    bound.host_parts = relief.host_parts;
    bound.freed_bytes = relief.freed_bytes;
  }
  bound.timed_ns = inputs.timed_ns;
  // The spill past the compute tiers is a floor for every placement.
  bound.spill_binds = inputs.spill_ns > 0 && inputs.spill_ns >= bound.makespan_ns;
  bound.makespan_ns = std::max(bound.makespan_ns, inputs.spill_ns);
  bound.spill_bytes = inputs.spill_bytes;
  return bound;
}

ChainWalk WalkChain(const Problem& problem, const std::vector<HostPart>& parts,
                    const std::vector<NodeId>* plan_order, std::vector<int> part_of) {
  ChainWalk walk;
  if (parts.empty()) return walk;
  std::vector<HostPart> links = parts;
  if (part_of.empty()) part_of = PartIndexOf(*problem.graph, links);  // each link one part
  ChainWalker walker(problem, links, plan_order, std::move(part_of));
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
    inputs.parts.back().split_class = static_cast<int>(parts[p].kind);
    part_device_ns += parts[p].device_ns;
  }
  // In order: the plans' order is the one the device-only bound was taken in.
  const std::vector<NodeId>* plan_order = nullptr;
  if (in_order) plan_order = device.order.empty() ? &problem.order : &device.order;
  inputs.transient_freed_bytes = MostTransientBytes(problem, parts, freed.transient, plan_order);
  inputs.fixed_device_ns = device.compute_ns - part_device_ns;
  if (parts.empty()) inputs.device_only_ns = device.makespan_ns;
  std::vector<int> part_of(problem.graph->nodes.size(), -1);
  for (size_t p = 0; p < parts.size(); ++p) {
    for (NodeId node : parts[p].nodes) part_of[node] = static_cast<int>(p);
  }
  std::vector<uint8_t> off_chain(problem.graph->nodes.size(), 0);
  const ChainWalk walk = WalkChain(
      problem, MoeBlocksJoined(problem, parts, inputs.parts, off_chain), plan_order, part_of);
  LeaveOutOfChain(problem, part_of, walk.early_nodes, off_chain, inputs.parts);
  inputs.chain = walk.chain;
  inputs.serial_device_ns = walk.serial_device_ns;
  inputs.transfers = TransfersOf(*problem.profile, device);
  inputs.whole_transfers = inputs.transfers;
  AddRoutedFetchOptions(problem, parts, inputs);
  AddSparseTerms(*problem.graph, inputs);
  inputs.timed_ns = HostTimedTerm(problem, device, parts).ns;
  inputs.relief_conditions = HostWriteBackConditions(problem, device, parts);
  for (ReliefCondition& condition : HostLateFetchConditions(problem, device, parts)) {
    inputs.relief_conditions.push_back(std::move(condition));
  }
  for (ReliefCondition& condition : HostCutConditions(problem, device, parts)) {
    inputs.relief_conditions.push_back(std::move(condition));
  }
  const SpillTerm spill = ComputeSpillTerm(problem);
  inputs.spill_ns = spill.ns;
  inputs.spill_bytes = spill.crossing_bytes;
  return inputs;
}

namespace {

size_t PartNodeCount(const std::vector<HostPart>& parts) {
  size_t count = 0;
  for (const HostPart& part : parts) count += part.nodes.size();
  return count;
}

}  // namespace

HostAwareBound ComputeHostAwareBound(const Problem& problem, const LowerBounds& device,
                                     bool in_order) {
  HostAwareBound bound = SolveHostAwareBound(HostBoundInputsFor(problem, device, {}, in_order));
  // The planner also places every update with the token table's lookup and gradient scatter
  // (host_parts.h embedding_readers): those plans are bounded over those parts, and the least
  // of the bounds holds for both kinds of plan.
  HostPartOptions readers;
  readers.embedding_readers = true;
  if (PartNodeCount(FindHostParts(problem, readers)) != PartNodeCount(FindHostParts(problem))) {
    const HostAwareBound with_readers =
        SolveHostAwareBound(HostBoundInputsFor(problem, device, readers, in_order));
    if (with_readers.makespan_ns < bound.makespan_ns) bound = with_readers;
  }
  HostPartOptions cores;
  cores.attention_cores = true;
  const HostBoundInputs core_inputs = HostBoundInputsFor(problem, device, cores, in_order);
  if (core_inputs.parts.empty()) return bound;
  HostAwareBound core_bound = SolveHostAwareBound(core_inputs);
  core_bound.attention_cores = true;
  return core_bound.makespan_ns < bound.makespan_ns ? core_bound : bound;
}

}  // namespace hyperplan::contenders
