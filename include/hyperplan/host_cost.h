// Cost model per compute unit: the device (cost.h) and the host's CPUs (issue 30's first
// slice), so that a planner can ask what a node costs where its weights live.
//
// The host's roofline mirrors the device's: a node's host time is max(compute_ns, memory_ns)
// + the profile's per-op dispatch cost, where compute_ns is the node's FLOPs (the same per-op
// rules as the device, cost.h) at the host's peak for the node's element type x sockets x
// efficiency x share, and memory_ns is the bytes the kernel touches (the same byte rules) at
// the sustained host bandwidth: per-socket channel arithmetic x memory_efficiency (a STREAM
// triad measurement over it) x sockets x share. Views cost nothing, as on the device. Both
// rates are whole units per second, rounded down once (under 1 FLOP/s or 1 B/s lost of ~10^11),
// and times are integer ns rounded up, so costs are exact and identical run to run.
// Cost: O(inputs + outputs) per node, as EstimateNodeCost.
// Limits: every socket is taken to read its own memory (weights split or replicated per NUMA
// node, as KTransformers and llama.cpp --numa distribute place them); reads across sockets,
// which run at the inter-socket link's rate, are not modelled. Spelled-out attention costs op
// by op on the host (no fused-kernel rule yet). Nothing in planning reads these costs yet:
// device costs, and so every plan, are unchanged by them.
#pragma once

#include <cstdint>
#include <string_view>

#include "hyperplan/cost.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan {

// FLOP/s the host reaches in `dtype`: peak per socket x sockets x efficiency x share.
int64_t HostAttainableFlopsPerS(const HostComputeSpec& host, DType dtype);

// Bytes/s the host's cores read and write together: bandwidth per socket x memory_efficiency
// x sockets x share.
int64_t HostSustainedBytesPerS(const HostComputeSpec& host);

// The host's roofline for one op of `flops` in `dtype` touching `bytes_accessed`, one dispatch.
NodeCost HostRooflineCost(const HostComputeSpec& host, DType dtype, int64_t flops,
                          int64_t bytes_accessed);

// One node on the host under the same FLOP and byte rules as the device. Throws
// Error(kInternal) when the profile has no host unit: asking is a caller's bug.
NodeCost EstimateHostNodeCost(const Graph& graph, const Node& node, const HardwareProfile& profile);

// A loop's host time for `node`: FLOPs on the model, bytes on the loop graph, as
// EstimateLoopCosts (cost.h) does for the device (an in-place update's aliased output has left
// the loop graph's node; its work has not). With the same graph twice, EstimateHostNodeCost.
NodeCost EstimateHostLoopNodeCost(const Graph& model, const Graph& loop_graph, NodeId node,
                                  const HardwareProfile& profile);

// One node on `unit`: EstimateNodeCost for the device, EstimateHostNodeCost for the host.
NodeCost EstimateNodeCostOn(ComputeUnit unit, const Graph& graph, const Node& node,
                            const HardwareProfile& profile);

}  // namespace hyperplan
