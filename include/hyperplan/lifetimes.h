// Lifetimes: where each value is defined and used in an execution order, and the device memory
// that order needs when nothing is offloaded.
//
// Two views of each value. Its uses: the step that defines it (0 for weights and graph inputs)
// and the steps that read it, which is what an offload planner cuts residency around. And its
// residency with nothing offloaded (the baseline): weights and graph inputs are owned outside
// the run and stay resident for all of it, graph outputs from their producer to the end, every
// other value from its producer to its last use. A node's inputs and outputs are live together
// during its step, and a control-flow node adds its bodies' peak while it runs.
// Cost: O(nodes + values + uses).
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"

namespace hyperplan {

using Step = int32_t;

struct Lifetime {
  Step def_step = 0;             // producer's step; 0 for weights and graph inputs
  Step last_use_step = 0;        // last consumer's step; def_step when nothing reads it
  std::vector<Step> use_steps;   // steps of its consumers, ascending, one per consumer
  Step baseline_first_step = 0;  // resident from here with nothing offloaded (inclusive)
  Step baseline_last_step = 0;   // resident until here with nothing offloaded (inclusive)
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

// Values resident during `step` in the baseline, largest first (ties by ascending id).
std::vector<ValueId> LiveValuesAt(const Graph& graph, const LifetimeAnalysis& analysis, Step step);

}  // namespace hyperplan
