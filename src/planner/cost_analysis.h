// Cost analysis for one order: node times, the stall-free step timeline, and transfer routes.
//
// Node times come from the roofline model (EstimateCosts) unless the caller supplies measured
// ones. The timeline puts compute step k at [step_start_ns[k], step_start_ns[k + 1]) with no
// stalls; placement reasons in this time axis. Routes: for every tier, the fewest-hop chain of
// links to the device and from it (breadth-first; ties by lower link index), so a tier with
// no direct link (NVMe behind DDR) is reached in two hops. Cost: O(n) for the timeline,
// O(tiers * links) for the routes; lookups by time are binary searches, O(log n).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/routes.h"

namespace hyperplan::planner {

struct CostAnalysis {
  std::vector<int64_t> node_time_ns;   // by NodeId
  std::vector<int64_t> step_start_ns;  // by step, size n + 1; [n] is the stall-free makespan
  DeviceRoutes routes;                 // between the device and every tier
};

// Throws Error(kUsage) when `node_time_override` is non-empty but not one entry per node or
// has a negative entry.
CostAnalysis AnalyzeCosts(const Graph& graph, const HardwareProfile& profile,
                          const std::vector<NodeId>& order,
                          const std::vector<int64_t>& node_time_override);

// The stall-free step starts of `order` (size n + 1; [n] is the sum of the node times).
std::vector<int64_t> StallFreeStepStarts(const std::vector<NodeId>& order,
                                         const std::vector<int64_t>& node_time_ns);

// Node times alone (by NodeId): the override when given, else the roofline model.
std::vector<int64_t> NodeTimes(const Graph& graph, const HardwareProfile& profile,
                               const std::vector<int64_t>& node_time_override);

// The largest boundary k in [0, n] with step_start_ns[k] <= time_ns (0 for negative times).
Step BoundaryAtOrBefore(const std::vector<int64_t>& step_start_ns, int64_t time_ns);

// The smallest boundary k >= from with step_start_ns[k] >= time_ns; n + 1 when none.
Step FirstBoundaryAtOrAfter(const std::vector<int64_t>& step_start_ns, int64_t time_ns, Step from);

}  // namespace hyperplan::planner
