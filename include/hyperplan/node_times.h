// Measured node times mapped onto a graph: the per-node times to plan with when some nodes
// were measured (PlanOptions::node_time_ns) and the rest keep the roofline estimate.
//
// Matching is by node name, exactly. Cost: O(nodes log measured) plus one EstimateCosts.
// Limits: a measured name that no node has (a node the runtime fused, renamed or inserted) is
// only reported, never spread over other nodes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"

namespace hyperplan {

struct NodeTimeMatch {
  std::vector<int64_t> node_time_ns;       // by NodeId: the measured time, else the estimate
  int64_t matched_nodes = 0;               // nodes that got a measured time
  int64_t unmatched_nodes = 0;             // nodes that kept the roofline estimate
  std::vector<std::string> unknown_names;  // measured names no node has, sorted
};

// `measured_ns`: node name -> time (for example ReadOrtProfile's medians).
NodeTimeMatch MatchNodeTimes(const Graph& graph, const HardwareProfile& profile,
                             const std::map<std::string, int64_t>& measured_ns);

}  // namespace hyperplan
