// Lifetimes: where each value is defined and used in an execution order, and the device memory
// that order needs when nothing is offloaded.
//
// Residency rules without offloading: weights and graph inputs are resident from step 0;
// a produced value from its producer's step; every value until its last use, and graph outputs
// until the last step. A node's outputs and inputs are live together during its step, and a
// control-flow node adds its bodies' peak while it runs. Cost: O(nodes + values + uses).
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"

namespace hyperplan {

using Step = int32_t;

struct Lifetime {
  Step def_step = 0;        // first step the value is resident
  Step last_use_step = 0;   // last step the value is resident (inclusive)
  std::vector<Step> use_steps;  // steps of its consumers, ascending, one per consumer
};

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

// Values resident during `step`, largest first (ties by ascending id).
std::vector<ValueId> LiveValuesAt(const Graph& graph, const LifetimeAnalysis& analysis, Step step);

}  // namespace hyperplan
