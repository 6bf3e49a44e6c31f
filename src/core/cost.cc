// Roofline cost model (see cost.h): the driver over the FLOP rules (node_flops.cc) and the
// byte rules (node_bytes.cc), and link transfer times.
#include "hyperplan/cost.h"

#include <algorithm>

#include "hyperplan/attention_pattern.h"
#include "rate_math.h"

namespace hyperplan {
namespace {

using rate_math::CeilDiv;
using rate_math::kNsPerS;
using rate_math::kPpm;

// FLOPs at peak(dtype) * efficiency.
int64_t ComputeNs(int64_t flops, DType dtype, const HardwareProfile& profile) {
  const __int128 attainable =
      static_cast<__int128>(profile.PeakFlopsPerS(dtype)) * profile.compute.efficiency_ppm;
  return CeilDiv(static_cast<__int128>(flops) * kNsPerS * kPpm, attainable);
}

// Bytes at the sustained bandwidth: the datasheet's times memory_efficiency.
int64_t MemoryNs(int64_t bytes, const ComputeSpec& compute) {
  const __int128 sustained =
      static_cast<__int128>(compute.memory_bandwidth_bytes_per_s) * compute.memory_efficiency_ppm;
  return CeilDiv(static_cast<__int128>(bytes) * kNsPerS * kPpm, sustained);
}

}  // namespace

DType ComputeDType(const Graph& graph, const Node& node) {
  for (ValueId id : node.inputs) {
    const DType dtype = graph.values[id].dtype;
    switch (dtype) {
      case DType::kFloat32:
      case DType::kFloat16:
      case DType::kBFloat16:
      case DType::kFloat64:
      case DType::kFloat8E4M3FN:
      case DType::kFloat8E4M3FNUZ:
      case DType::kFloat8E5M2:
      case DType::kFloat8E5M2FNUZ:
      case DType::kFloat4E2M1:
        return dtype;
      default:
        break;
    }
  }
  return node.inputs.empty() ? DType::kFloat32 : graph.values[node.inputs[0]].dtype;
}

NodeCost RooflineCost(const HardwareProfile& profile, DType dtype, int64_t flops,
                      int64_t bytes_accessed) {
  NodeCost cost;
  cost.flops = flops;
  cost.bytes_accessed = bytes_accessed;
  cost.compute_ns = ComputeNs(flops, dtype, profile);
  cost.memory_ns = MemoryNs(bytes_accessed, profile.compute);
  cost.launch_ns = profile.compute.LaunchOverheadNs();
  cost.time_ns = std::max(cost.compute_ns, cost.memory_ns) + cost.launch_ns;
  return cost;
}

namespace {

// The roofline over one node's FLOPs (counted on `flops_graph`) and bytes (on `graph`).
NodeCost CostOf(const Graph& flops_graph, const Graph& graph, NodeId id,
                const HardwareProfile& profile) {
  const Node& node = graph.nodes[id];
  // A view launches no kernel: nothing to count, not even a launch.
  if (IsViewOp(node.op_type)) return NodeCost{};
  const Node& flops_node = flops_graph.nodes[id];
  return RooflineCost(profile, ComputeDType(flops_graph, flops_node),
                      NodeFlops(flops_graph, flops_node), NodeBytes(graph, node));
}

}  // namespace

NodeCost EstimateNodeCost(const Graph& graph, const Node& node, const HardwareProfile& profile) {
  return CostOf(graph, graph, static_cast<NodeId>(&node - graph.nodes.data()), profile);
}

std::vector<NodeCost> EstimateCosts(const Graph& graph, const HardwareProfile& profile) {
  return EstimateLoopCosts(graph, graph, profile);
}

std::vector<NodeCost> EstimateLoopCosts(const Graph& model, const Graph& loop_graph,
                                        const HardwareProfile& profile) {
  std::vector<NodeCost> costs;
  costs.reserve(loop_graph.nodes.size());
  for (size_t n = 0; n < loop_graph.nodes.size(); ++n) {
    costs.push_back(CostOf(model, loop_graph, static_cast<NodeId>(n), profile));
  }
  if (profile.compute.fuse_attention) {
    CostAsFusedKernels(profile, FindAttentionBlocks(loop_graph), costs);
  }
  return costs;
}

int64_t TransferTimeNs(const Link& link, int64_t bytes) {
  return link.latency_ns +
         CeilDiv(static_cast<__int128>(bytes) * kNsPerS, link.bandwidth_bytes_per_s);
}

int64_t ChannelTransferTimeNs(const Link& link, int64_t bytes) {
  return TransferTimeNs(link, bytes * std::max<int64_t>(1, link.channels));
}

}  // namespace hyperplan
