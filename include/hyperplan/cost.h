// Cost model: roofline compute time per node and transfer time per link.
//
// A node's time is max(FLOPs / (peak(dtype) * efficiency), bytes accessed / device bandwidth)
// plus the kernel launch overhead; FLOPs come from per-op-type rules over the concrete shapes
// (matmuls, attention, convolutions, normalisations, elementwise). Ops without a rule count one
// FLOP per output element, which keeps memory-bound ops memory-bound. A transfer costs its
// link's latency plus bytes / bandwidth. All times are integer ns, rounded up.
// Cost: O(inputs + outputs) per node.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan {

struct NodeCost {
  int64_t flops = 0;
  int64_t bytes_accessed = 0;  // inputs read plus outputs written
  int64_t compute_ns = 0;      // flops at the attainable peak of its dtype
  int64_t memory_ns = 0;       // bytes_accessed at the device's sustained bandwidth
  int64_t launch_ns = 0;       // the kernel launch overhead
  int64_t time_ns = 0;         // max(compute_ns, memory_ns) + launch_ns
};

// FLOPs of one node under the per-op rules (bodies of control flow included).
int64_t NodeFlops(const Graph& graph, const Node& node);

// The element type a node computes in: its first floating-point input, else its first input.
DType ComputeDType(const Graph& graph, const Node& node);

NodeCost EstimateNodeCost(const Graph& graph, const Node& node, const HardwareProfile& profile);

// The roofline cost of one kernel of `flops` in `dtype` touching `bytes_accessed`, one launch.
NodeCost RooflineCost(const HardwareProfile& profile, DType dtype, int64_t flops,
                      int64_t bytes_accessed);

// One entry per node, indexed by NodeId. Where the profile fuses attention, spelled-out
// attention blocks cost one kernel (attention_pattern.h).
std::vector<NodeCost> EstimateCosts(const Graph& graph, const HardwareProfile& profile);

// latency + ceil(bytes / bandwidth), in ns; exact for any int64 byte count.
int64_t TransferTimeNs(const Link& link, int64_t bytes);

// Time of one transfer of `bytes` on one channel of `link`: the link's bandwidth is divided
// evenly among its channels, so latency + ceil(bytes * channels / bandwidth).
int64_t ChannelTransferTimeNs(const Link& link, int64_t bytes);

}  // namespace hyperplan
