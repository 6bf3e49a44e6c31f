// Inspect: what a model needs from the device when nothing is offloaded.
//
// Totals per value class and op type, the memory timeline in the model's own order (peak
// bytes, the step and node of the peak, the largest values live there), and the roofline
// compute time. Cost: O(nodes + values + uses) plus a sort of the values live at the peak.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/lifetimes.h"

namespace hyperplan {

struct ClassTotal {
  int64_t count = 0;
  int64_t bytes = 0;
};

struct LiveValueSummary {
  ValueId value = kNoValue;
  Step first_step = 0;  // baseline residency, inclusive
  Step last_step = 0;
};

struct InspectReport {
  int64_t node_count = 0;
  int64_t value_count = 0;
  std::vector<std::pair<std::string, int64_t>> op_type_counts;  // by count desc, then name
  std::array<ClassTotal, kValueClassCount> class_totals{};      // indexed by ValueClass
  int64_t total_bytes = 0;
  int64_t peak_bytes = 0;
  Step peak_step = 0;
  NodeId peak_node = kNoNode;
  std::vector<LiveValueSummary> largest_live_at_peak;  // up to `top_count`, largest first
  int64_t total_flops = 0;
  int64_t total_compute_ns = 0;
  int64_t device_capacity_bytes = 0;
  std::vector<ValueId> unknown_size_values;
};

InspectReport BuildInspectReport(const Graph& graph, const HardwareProfile& profile,
                                 int top_count = 20);

}  // namespace hyperplan
