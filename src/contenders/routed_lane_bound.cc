// Fetch after route on the chain (see routed_lane_bound.h).
#include "contenders/routed_lane_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "contenders/graph_walk.h"
#include "core/moe_shape.h"
#include "hyperplan/host_cost.h"
#include "hyperplan/routed_fetch.h"
#include "hyperplan/routes.h"

namespace hyperplan::contenders {
namespace {

constexpr long double kNsPerSecond = 1e9L;
// As host_lower_bound.cc: a T within a thousandth of a ns (or byte) of the optimum passes.
constexpr long double kTolerance = 1e-3L;

// One MoE node's fetch-after-route option: its stacked operands' bytes, its router and the
// least touch chance of its experts.
struct RoutedNode {
  NodeId node = kNoNode;
  NodeId router = kNoNode;
  int64_t bytes = 0;
  double touch = 1;
};

// A routed-experts part's routed nodes: its one MoE node, or its expert Gathers (the gather
// form) of one router; their stacked bytes summed, the least touch chance over them.
struct RoutedPart {
  std::vector<NodeId> nodes;
  NodeId router = kNoNode;
  int64_t bytes = 0;
  double touch = 1;
  bool gathers = false;  // the nodes are expert Gathers
};

// The node's stacked expert operands (routed_fetch.h RoutedOperandOf); nullopt when it has none.
std::optional<RoutedNode> RoutedNodeOf(const Graph& graph, NodeId node) {
  RoutedNode routed;
  routed.node = node;
  for (ValueId value : graph.nodes[node].inputs) {
    const std::optional<RoutedOperand> operand = RoutedOperandOf(graph, node, value);
    if (!operand) continue;
    routed.bytes += graph.values[value].bytes;
    routed.router = operand->router;
    const std::vector<double> touch = TouchProbabilities(operand->routing);
    if (!touch.empty()) routed.touch = *std::min_element(touch.begin(), touch.end());
  }
  if (routed.bytes == 0) return std::nullopt;
  return routed;
}

// Whether a plan may fetch one of the node's operands after route (a MoE/QMoE node or an
// expert Gather: routed_fetch.h).
bool HasRoutedOperand(const Graph& graph, NodeId node) {
  for (ValueId value : graph.nodes[node].inputs) {
    if (RoutedOperandOf(graph, node, value)) return true;
  }
  return false;
}

// Every node reached from `start` along consumers (or producers) within steps [first, last].
std::set<NodeId> WalkSteps(const Problem& problem, NodeId start, Step first, Step last,
                           bool forward) {
  return ReachableWithin(*problem.graph, start, forward, [&](NodeId node) {
    const Step step = problem.lifetimes.step_of_node[node];
    return step >= first && step <= last;
  });
}

// A node's time on whichever unit runs it slower: what it may take beside a fetch.
int64_t MostNodeNs(const Problem& problem, NodeId node) {
  const int64_t host_ns =
      EstimateHostNodeCost(*problem.graph, problem.graph->nodes[node], *problem.profile).time_ns;
  return std::max(problem.node_time_ns[node], host_ns);
}

// The nodes that may run beside the fetch: those of the block (from step `first`) that the MoE
// node depends on and the router does not (its descendants, and any beside it), each at the
// larger of its device and host times.
int64_t OverlapNs(const Problem& problem, const RoutedNode& routed, Step first) {
  const Step router_step = problem.lifetimes.step_of_node[routed.router];
  const Step node_step = problem.lifetimes.step_of_node[routed.node];
  const std::set<NodeId> feeding = WalkSteps(problem, routed.node, first, node_step, false);
  const std::set<NodeId> routing = WalkSteps(problem, routed.router, first, router_step, false);
  int64_t ns = 0;
  for (NodeId node : feeding) {
    if (node == routed.node || routing.count(node) > 0) continue;
    ns += MostNodeNs(problem, node);
  }
  return ns;
}

// The gather form's nodes that may run beside its fetches: each Gather's table crosses after
// the router ends and before that Gather starts, so all cross before the last Gather to start
// (whichever it is); a node may run beside them unless it is the router or one of its
// ancestors (ended before) or descends from every Gather (starts after the last one). Of the
// block's nodes the chain counts (the experts', the rest's before and after them: SetRestChainTimes
// in host_lower_bound.cc), those: the experts' at their device time (after route they run on
// the device), the rest's at the larger of their device and host times.
int64_t GatherOverlapNs(const Problem& problem, const RoutedPart& routed, const HostPart& experts,
                        const HostPart* rest) {
  const Graph& graph = *problem.graph;
  std::set<NodeId> block(experts.nodes.begin(), experts.nodes.end());
  std::set<NodeId> rest_counted;
  if (rest != nullptr) {
    const std::set<NodeId> rest_nodes(rest->nodes.begin(), rest->nodes.end());
    block.insert(rest->nodes.begin(), rest->nodes.end());
    auto in_block = [&](NodeId node) { return block.count(node) > 0; };
    for (NodeId node : ReachableWithin(graph, experts.nodes.front(), false, in_block)) {
      if (rest_nodes.count(node) > 0) rest_counted.insert(node);
    }
    for (NodeId node : ReachableWithin(graph, experts.nodes.back(), true, in_block)) {
      if (rest_nodes.count(node) > 0) rest_counted.insert(node);
    }
  }
  auto in_block = [&](NodeId node) { return block.count(node) > 0; };
  std::set<NodeId> routing = ReachableWithin(graph, routed.router, false, in_block);
  routing.insert(routed.router);
  std::map<NodeId, size_t> after_gathers;  // by node: how many Gathers it descends from
  for (NodeId gather : routed.nodes) {
    for (NodeId node : ReachableWithin(graph, gather, true, in_block)) {
      if (node != gather) ++after_gathers[node];
    }
  }
  int64_t ns = 0;
  auto add = [&](NodeId node, bool expert) {
    if (routing.count(node) > 0) return;
    const auto after = after_gathers.find(node);
    if (after != after_gathers.end() && after->second == routed.nodes.size()) return;
    ns += expert ? problem.node_time_ns[node] : MostNodeNs(problem, node);
  };
  for (NodeId node : experts.nodes) add(node, true);
  for (NodeId node : rest_counted) add(node, false);
  return ns;
}

// The rest part of the routed-experts part `experts`' MoE block (kMlp of its layer); nullptr
// when it has none.
const HostPart* RestOf(const std::vector<HostPart>& parts, const HostPart& experts) {
  for (const HostPart& part : parts) {
    if (part.kind == HostPartKind::kMlp && part.layer == experts.layer) return &part;
  }
  return nullptr;
}

// The first step of layer `layer`'s MoE block: its routed experts' part and its rest's.
Step BlockFirstStep(const std::vector<HostPart>& parts, const HostPart& experts) {
  const HostPart* rest = RestOf(parts, experts);
  return rest == nullptr ? experts.first_step : std::min(experts.first_step, rest->first_step);
}

// The routed-experts part's routed nodes: its one MoE node with stacked operands, or its expert
// Gathers when they all share one router (the gather form); nullopt otherwise (none, more than
// one MoE node, a MoE node beside Gathers, Gathers of several routers).
std::optional<RoutedPart> PartRouted(const Graph& graph, const HostPart& part) {
  RoutedPart found;
  int moe_nodes = 0;
  for (NodeId node : part.nodes) {
    const std::optional<RoutedNode> routed = RoutedNodeOf(graph, node);
    if (!routed) continue;
    const bool moe = cost_rules::IsMoeOp(graph.nodes[node]);
    moe_nodes += moe ? 1 : 0;
    if (!found.nodes.empty() && found.router != routed->router) return std::nullopt;
    found.nodes.push_back(node);
    found.router = routed->router;
    found.bytes += routed->bytes;
    found.touch = std::min(found.touch, routed->touch);
  }
  if (found.nodes.empty() || (moe_nodes > 0 && found.nodes.size() > 1)) return std::nullopt;
  found.gathers = moe_nodes == 0;
  return found;
}

// Adds a part's segments: its lower hull of (0, 0), after route and on the host (counting
// `host_parts` parts there). After route the layer's link grows by what of its fetch the nodes
// beside it (overlap_ns) do not cover: the span holds max(fetch, those nodes) where the chain
// counts the nodes alone, so the fetch less the overlap, never below 0, is a lower bound.
void AddPartSegments(const HostBoundPart& part, long double host_cost_ns,
                     long double into_bytes_per_ns, long double host_parts,
                     RoutedLaneRelaxation& relaxed) {
  const long double host_freed = part.freed_bytes;
  const long double routed_freed = (1 - static_cast<long double>(part.touch)) * part.routed_bytes;
  // The routed Prefetch's expected bytes are rounded to the byte: one byte less, to stay below.
  const long double routed_moved =
      std::max<long double>(0, static_cast<long double>(part.touch) * part.routed_bytes - 1);
  const long double routed_cost_ns =
      std::max<long double>(0, routed_moved / into_bytes_per_ns - part.overlap_ns);
  if (routed_freed > 0 && routed_freed < host_freed &&
      routed_cost_ns * host_freed < host_cost_ns * routed_freed) {
    relaxed.segments.push_back({routed_cost_ns, routed_freed, 0});
    relaxed.segments.push_back(
        {host_cost_ns - routed_cost_ns, host_freed - routed_freed, host_parts});
  } else if (host_freed > 0) {
    relaxed.segments.push_back({host_cost_ns, host_freed, host_parts});
  }
}

}  // namespace

void AddRoutedFetchOptions(const Problem& problem, const std::vector<HostPart>& parts,
                           HostBoundInputs& inputs) {
  const Graph& graph = *problem.graph;
  int covered = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    if (parts[p].kind != HostPartKind::kRoutedExperts) continue;
    const std::optional<RoutedPart> routed = PartRouted(graph, parts[p]);
    if (!routed || routed->router == kNoNode) continue;
    inputs.parts[p].routed_bytes = routed->bytes;
    inputs.parts[p].touch = routed->touch;
    if (routed->gathers) {
      inputs.parts[p].overlap_ns =
          GatherOverlapNs(problem, *routed, parts[p], RestOf(parts, parts[p]));
    } else {
      const RoutedNode node{routed->nodes.front(), routed->router, routed->bytes, routed->touch};
      inputs.parts[p].overlap_ns = OverlapNs(problem, node, BlockFirstStep(parts, parts[p]));
    }
    covered += static_cast<int>(routed->nodes.size());
  }
  // Every node a plan may fetch after route counts, the gather form's expert Gathers too
  // (routed_fetch.h): one outside a routed-experts part leaves the condition off.
  int routed_nodes = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    routed_nodes += HasRoutedOperand(graph, static_cast<NodeId>(n));
  }
  inputs.into_device_bytes_per_s = SumDeviceLinkRates(*problem.profile).into_device_bytes_per_s;
  inputs.routed_lane = routed_nodes > 0 && covered == routed_nodes && inputs.chain &&
                       inputs.into_device_bytes_per_s > 0;
}

RoutedLaneRelaxation RelaxRoutedLane(const HostBoundInputs& inputs, long double host_part_ns,
                                     int split_class) {
  RoutedLaneRelaxation relaxed;
  if (!inputs.routed_lane || !inputs.chain || inputs.into_device_bytes_per_s <= 0) return relaxed;
  relaxed.active = true;
  relaxed.base_freed = inputs.transient_freed_bytes;
  const long double into_bytes_per_ns = inputs.into_device_bytes_per_s / kNsPerSecond;
  relaxed.base_ns = inputs.serial_device_ns;
  for (const HostBoundPart& part : inputs.parts) {
    const int64_t device_ns = part.chain_device_ns >= 0 ? part.chain_device_ns : part.device_ns;
    const int64_t host_ns = part.chain_host_ns >= 0 ? part.chain_host_ns : part.host_ns;
    relaxed.base_ns += device_ns;
    const bool counted = split_class < 0 || part.split_class == split_class;
    const long double cost_ns = host_ns - device_ns + (counted ? host_part_ns : 0);
    if (cost_ns <= 0) {  // on the host for free: frees its bytes, after route's too
      relaxed.base_ns += cost_ns;
      relaxed.base_freed += part.freed_bytes;
      relaxed.base_host_parts += counted ? 1 : 0;
      continue;
    }
    AddPartSegments(part, cost_ns, into_bytes_per_ns, counted ? 1 : 0, relaxed);
  }
  SortByCostPerByte(relaxed.segments);
  relaxed.most_freed = relaxed.base_freed;
  for (const LaneOption& segment : relaxed.segments) {
    relaxed.most_freed += segment.freed_bytes;
  }
  return relaxed;
}

long double RoutedLaneNs(const HostBoundInputs& inputs, const RoutedLaneRelaxation& relaxed,
                         int64_t t_ns, LaneFill* fill) {
  long double want = 0;
  for (const ForcedTransfer& term : inputs.whole_transfers) {
    if (term.bytes <= 0 || term.bytes_per_s <= 0) continue;
    want = std::max(want, term.bytes - t_ns * term.bytes_per_s / kNsPerSecond);
  }
  want -= kTolerance;
  if (want > relaxed.most_freed) return std::numeric_limits<long double>::infinity();
  const LaneFill filled = FillUntilFreed(
      {relaxed.base_ns, relaxed.base_freed, relaxed.base_host_parts}, relaxed.segments, want);
  if (fill != nullptr) {
    *fill = filled;
    fill->freed_bytes = std::max(want, relaxed.base_freed);
  }
  return filled.lane_ns;
}

bool RoutedLaneFits(const HostBoundInputs& inputs, const RoutedLaneRelaxation& relaxed,
                    int64_t t_ns, long double* host_parts, long double* freed_bytes) {
  if (!relaxed.active) return true;
  LaneFill fill;
  const long double lane_ns = RoutedLaneNs(inputs, relaxed, t_ns, &fill);
  if (std::isinf(lane_ns)) return false;
  if (host_parts != nullptr) *host_parts = fill.host_parts;
  if (freed_bytes != nullptr) *freed_bytes = fill.freed_bytes;
  return lane_ns <= t_ns + kTolerance;
}

}  // namespace hyperplan::contenders
