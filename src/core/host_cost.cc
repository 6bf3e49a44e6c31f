// The host unit's roofline (see host_cost.h): rates from the profile's host_compute section,
// FLOPs and bytes from the device's per-op rules (node_flops.cc, node_bytes.cc).
#include "hyperplan/host_cost.h"

#include <algorithm>

#include "hyperplan/error.h"
#include "rate_math.h"

namespace hyperplan {
namespace {

using rate_math::CeilDiv;
using rate_math::kNsPerS;

constexpr __int128 kPpmSquared = rate_math::kPpm * rate_math::kPpm;

// rate x sockets x two ppm fractions, as whole units per second (rounded down).
int64_t Scaled(int64_t rate_per_socket, int32_t sockets, int64_t ppm_a, int64_t ppm_b) {
  const __int128 scaled = static_cast<__int128>(rate_per_socket) * sockets * ppm_a * ppm_b;
  return static_cast<int64_t>(scaled / kPpmSquared);
}

// A time at `rate` units per second, in whole ns rounded up; 0 when the rate is 0 (a spec
// built without it), as the device's roofline does.
int64_t TimeNs(int64_t amount, int64_t rate_per_s) {
  return CeilDiv(static_cast<__int128>(amount) * kNsPerS, rate_per_s);
}

}  // namespace

int64_t HostAttainableFlopsPerS(const HostComputeSpec& host, DType dtype) {
  return Scaled(host.PeakFlopsPerSocket(dtype), host.sockets, host.efficiency_ppm, host.share_ppm);
}

int64_t HostSustainedBytesPerS(const HostComputeSpec& host) {
  return Scaled(host.memory_bandwidth_bytes_per_s, host.sockets, host.memory_efficiency_ppm,
                host.share_ppm);
}

NodeCost HostRooflineCost(const HostComputeSpec& host, DType dtype, int64_t flops,
                          int64_t bytes_accessed) {
  NodeCost cost;
  cost.flops = flops;
  cost.bytes_accessed = bytes_accessed;
  cost.compute_ns = TimeNs(flops, HostAttainableFlopsPerS(host, dtype));
  cost.memory_ns = TimeNs(bytes_accessed, HostSustainedBytesPerS(host));
  cost.launch_ns = host.op_overhead_ns;
  cost.time_ns = std::max(cost.compute_ns, cost.memory_ns) + cost.launch_ns;
  return cost;
}

NodeCost EstimateHostNodeCost(const Graph& graph, const Node& node,
                              const HardwareProfile& profile) {
  if (!profile.host_compute.present()) {
    throw Error(ErrorKind::kInternal, "profile '" + profile.name +
                                          "' has no host_compute section; node '" + node.name +
                                          "' cannot be costed on the host");
  }
  // A view dispatches nothing on a CPU either.
  if (IsViewOp(node.op_type)) return NodeCost{};
  return HostRooflineCost(profile.host_compute, ComputeDType(graph, node), NodeFlops(graph, node),
                          NodeBytes(graph, node));
}

NodeCost EstimateHostLoopNodeCost(const Graph& model, const Graph& loop_graph, NodeId node,
                                  const HardwareProfile& profile) {
  const Node& loop_node = loop_graph.nodes[node];
  const NodeCost on_loop = EstimateHostNodeCost(loop_graph, loop_node, profile);
  if (&model == &loop_graph || IsViewOp(loop_node.op_type)) return on_loop;
  const Node& model_node = model.nodes[node];
  return HostRooflineCost(profile.host_compute, ComputeDType(model, model_node),
                          NodeFlops(model, model_node), NodeBytes(loop_graph, loop_node));
}

NodeCost EstimateNodeCostOn(ComputeUnit unit, const Graph& graph, const Node& node,
                            const HardwareProfile& profile) {
  return unit == ComputeUnit::kHost ? EstimateHostNodeCost(graph, node, profile)
                                    : EstimateNodeCost(graph, node, profile);
}

}  // namespace hyperplan
