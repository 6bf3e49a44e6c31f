// Lifetimes: where each value is defined and used in an execution order, and the device memory
// that order needs when nothing is offloaded.
//
// Two views of each value. Its uses: the step that defines it (0 for weights and graph inputs)
// and the steps that read it, which is what an offload planner cuts residency around. And its
// residency with nothing offloaded (the baseline): weights and graph inputs are owned outside
// the run and stay resident for all of it, graph outputs from their producer to the end, every
// other value from its producer to its last use. A node's inputs and outputs are live together
// during its step, and a control-flow node adds its bodies' peak while it runs.
// With a unit placement (issue 30, docs/design.md "Compute units"), the analysis is the
// device's view: a host node's reads of host values (its weights' home copies, what other
// host nodes wrote) are not device uses; a value a host node writes is on the device only
// when a device node reads it, from its first device read (a crossing Prefetch brings it);
// a value nothing on the device touches has no device residency at all; a persistent value a
// host node updates in place (a weight after a CPU optimizer step) keeps the uses and
// baseline of a weight, flagged `host_updated`: read-only on the device, streamed from its
// home copy like a weight the planner cuts, and never on the device across iterations (the
// planner must take its leading and trailing gaps: candidates.h).
// Cost: O(nodes + values + uses).
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan {

using Step = int32_t;

struct Lifetime {
  Step def_step = 0;             // producer's step; 0 for weights and graph inputs
  Step last_use_step = 0;        // last consumer's step; def_step when nothing reads it
  std::vector<Step> use_steps;   // steps of its consumers, ascending, one per consumer
  Step baseline_first_step = 0;  // resident from here with nothing offloaded (inclusive)
  Step baseline_last_step = 0;   // resident until here with nothing offloaded (inclusive)
  // Unit placements only. False: never on the device (only host nodes touch it).
  bool on_device = true;
  // Written by a host node and read on the device: def_step is its first device read, where a
  // crossing Prefetch has brought it; the planner never cuts its residency.
  bool crosses_in = false;
  // Updated in place by a host node and read on the device (docs/design.md "Compute units"):
  // its device copies are read-only and come from its home copy by the planner's Prefetches,
  // each before the update; none is open before the first device read or after the last.
  bool host_updated = false;
};

// Which unit runs each node, and which values host nodes read from a home copy on the host
// tier rather than from a copy the device Stores there (homes.h decides the homes).
struct UnitPlacement {
  std::vector<ComputeUnit> node_unit;   // by NodeId; empty: every node on the device
  std::vector<uint8_t> read_from_home;  // by ValueId
  std::vector<int64_t> device_time_ns;  // by NodeId: each node's time on the device

  bool OnHost(NodeId node) const {
    return !node_unit.empty() && node_unit[node] == ComputeUnit::kHost;
  }
};

// The baseline (nothing offloaded) device memory per step.
struct MemoryTimeline {
  std::vector<int64_t> live_bytes_per_step;  // resident bytes during each step
  int64_t peak_bytes = 0;
  Step peak_step = 0;  // the first step that reaches peak_bytes
};

struct LifetimeAnalysis {
  std::vector<NodeId> order;        // step -> node
  std::vector<Step> step_of_node;   // node -> step
  std::vector<Lifetime> lifetimes;  // indexed by ValueId
  MemoryTimeline timeline;
};

// The model's own order: 0, 1, ..., n-1.
std::vector<NodeId> ModelOrder(const Graph& graph);

// `order` must be a permutation of the graph's nodes in topological order (checked).
LifetimeAnalysis AnalyzeLifetimes(const Graph& graph, const std::vector<NodeId>& order);

// The device's view under a unit placement (above); an empty placement is the overload above.
LifetimeAnalysis AnalyzeLifetimes(const Graph& graph, const std::vector<NodeId>& order,
                                  const UnitPlacement& placement);

// Values resident during `step` in the baseline, largest first (ties by ascending id).
std::vector<ValueId> LiveValuesAt(const Graph& graph, const LifetimeAnalysis& analysis, Step step);

}  // namespace hyperplan
