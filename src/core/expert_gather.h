// The gather form of an MoE layer's experts (issue 31): a Gather along axis 0 of a stored
// table stacking experts ([E, ...], rank 3 or more, no producer: an initializer or a graph
// input) by the router's [..., k] indices (TopK's, or a node derived from them), as torch
// exports and tools/generator/moe_forms.h write it. T tokens of k picks each read the distinct
// experts they touch (routing.h), not T * k slices and not the whole table. Shared by the byte
// rule (node_bytes.cc), sampled routings (routing_samples.h) and fetch after route
// (routed_fetch.h). A routing profile (`--expert-stats`) reaches a Gather through
// Graph::expert_selection under the Gather's own node name (every expert Gather of a profiled
// layer holds the layer's frequencies, src/cli/expert_stats_flag.h). Internal to src/core.
// Cost: O(1) per node; O(E) for the expected read under a profile.
// Limits: the indices' last axis is taken as the k picks of one token (a [tokens * k] flat
// index is not recognised); picks are distinct within a token, as a top-k's are.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hyperplan/graph.h"

namespace hyperplan::cost_rules {

struct ExpertGatherShape {
  int64_t experts = 0;            // E, the table's first axis
  int64_t experts_per_token = 1;  // k, the indices' last axis
  int64_t tokens = 0;             // the indices' other elements
  ValueId table = kNoValue;       // input 0
  ValueId indices = kNoValue;     // input 1: the routing
  // The routing profile's per-token selection probability per expert for this Gather
  // (Graph::expert_selection under its node name, E values), owned by the graph; null:
  // uniform top-k routing.
  const std::vector<double>* selection = nullptr;
};

// The node's shape when it is an expert Gather (see above), else nullopt.
std::optional<ExpertGatherShape> DescribeExpertGather(const Graph& graph, const Node& node);

// The table bytes its T tokens read in expectation: RoutedBytes (routing.h) of the distinct
// experts they are expected to touch, E (1 - (1 - k/E)^T) under uniform routing, else
// sum_e 1 - (1 - p_e)^T with p_e the profile's frequencies scaled to sum k (routing.h
// ScaledSelection, as the sampled routings and the routed fetch read them). What the byte rule
// charges the Gather, and what a routed Prefetch of the table moves with no expert resident.
int64_t ExpectedTableReadBytes(const Graph& graph, const ExpertGatherShape& shape);

}  // namespace hyperplan::cost_rules
