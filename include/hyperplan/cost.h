// Cost model: roofline compute time per node and transfer time per link.
//
// A node's time is max(compute_ns, memory_ns) + launch_ns: FLOPs at the attainable peak
// (peak(dtype) * efficiency), the bytes the kernel touches at the sustained device bandwidth
// (datasheet * memory_efficiency), and one kernel start under the profile's launch mode.
// FLOPs come from per-op-type rules over the concrete shapes (matmuls, attention with causal
// masking, convolutions, normalisations, elementwise); ops without a rule count one FLOP per
// output element, which keeps memory-bound ops memory-bound. Bytes are what the kernel reads
// and writes, not the sum of its tensors (node_bytes.cc): views and shape ops launch nothing
// and move nothing; indexed reads (Gather*, RotaryEmbedding's cos/sin tables) charge the rows
// used; scatters charge their updates, in place on the data where they can be; fused attention
// reads its KV cache once and writes only the appended rows; and on a loop graph (loop.h) a
// value updated in place by its writer (`written_by`) costs that node only the bytes the update
// changes; a com.microsoft MoE/QMoE node runs k experts per token and reads the stacked expert
// weights of the distinct experts its tokens are expected to route to (routing.h). A transfer costs
// its link's latency plus bytes / bandwidth. Times are integer ns, rounded up. Cost: O(inputs +
// outputs) per node. Limits: shapes are static, so a shared past/present KV buffer is read whole
// (its filled length is a runtime value); top-k routing is an expectation (a measured profile or
// uniform), and spelled-out routing (TopK then Gather or per-expert MatMuls) counts every expert.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan {

struct NodeCost {
  int64_t flops = 0;
  int64_t bytes_accessed = 0;  // bytes the kernel reads plus bytes it writes
  int64_t compute_ns = 0;      // FLOPs at the attainable peak
  int64_t memory_ns = 0;       // bytes at the sustained device bandwidth
  int64_t launch_ns = 0;       // the kernel's start; 0 for views
  int64_t time_ns = 0;         // max(compute_ns, memory_ns) + launch_ns
};

// FLOPs of one node under the per-op rules (bodies of control flow included).
int64_t NodeFlops(const Graph& graph, const Node& node);

// Bytes one node's kernel reads and writes under the per-op rules (see above).
int64_t NodeBytes(const Graph& graph, const Node& node);

// True for ops runtimes implement as views or metadata: no kernel, no traffic, no launch.
bool IsViewOp(std::string_view op_type);

// The element type a node computes in: its first floating-point input, else its first input.
DType ComputeDType(const Graph& graph, const Node& node);

NodeCost EstimateNodeCost(const Graph& graph, const Node& node, const HardwareProfile& profile);

// The roofline cost of one kernel of `flops` in `dtype` touching `bytes_accessed`, one launch.
NodeCost RooflineCost(const HardwareProfile& profile, DType dtype, int64_t flops,
                      int64_t bytes_accessed);

// One entry per node, indexed by NodeId. Where the profile fuses attention, spelled-out
// attention blocks cost one kernel (attention_pattern.h).
std::vector<NodeCost> EstimateCosts(const Graph& graph, const HardwareProfile& profile);

// A periodic plan's node times: bytes on the loop graph (loop.h), where an in-place update
// charges only what it changes; FLOPs on the model, since the loop rewrite detaches aliased
// outputs, which the FLOP rules count. The two graphs share node ids. With the same graph
// twice, EstimateCosts.
std::vector<NodeCost> EstimateLoopCosts(const Graph& model, const Graph& loop_graph,
                                        const HardwareProfile& profile);

// latency + ceil(bytes / bandwidth), in ns; exact for any int64 byte count.
int64_t TransferTimeNs(const Link& link, int64_t bytes);

// Time of one transfer of `bytes` on one channel of `link`: the link's bandwidth is divided
// evenly among its channels, so latency + ceil(bytes * channels / bandwidth).
int64_t ChannelTransferTimeNs(const Link& link, int64_t bytes);

}  // namespace hyperplan
