// Crossing Detaches issued once their Store has had its time (see crossing_detaches.h).
#include "planner/crossing_detaches.h"

#include <algorithm>
#include <tuple>

#include "hyperplan/layout/plan_layout.h"

namespace hyperplan::planner {
namespace {

// Step k's time on the device: its node's, or 0 on the host (which runs beside the device).
int64_t DeviceTimeNs(const PlanContext& context, Step k) {
  const NodeId node = context.order[k];
  return context.units.OnHost(node) ? 0 : context.cost.node_time_ns[node];
}

}  // namespace

std::vector<Step> CrossingDetachBoundaries(const PlanContext& context, const Plan& plan,
                                           std::vector<CrossingDetach> detaches) {
  if (context.detach_waits_for_host || detaches.empty()) return {};
  const Step step_count = context.step_count();
  std::vector<int64_t> live = LiveBytesPerStep(plan.residency, step_count);
  const int64_t limit_bytes = *std::max_element(live.begin(), live.end());
  // In sequence order, so that each Detach sees the steps the earlier ones now hold.
  std::sort(detaches.begin(), detaches.end(), [](const CrossingDetach& a, const CrossingDetach& b) {
    return std::tie(a.detach, a.value) < std::tie(b.detach, b.value);
  });
  std::vector<Step> boundaries(context.graph->values.size(), -1);
  bool moved = false;
  for (const CrossingDetach& crossing : detaches) {
    const PlanStep& store = plan.steps[crossing.store];
    const int64_t store_ns = store.planned_end_ns - store.planned_start_ns;
    const int64_t bytes = context.graph->values[crossing.value].bytes;
    const Step from = plan.steps[crossing.detach].boundary;
    int64_t device_ns = 0;  // the device's compute after the writer, before the boundary
    for (Step k = context.lifetimes.lifetimes[crossing.value].def_step + 1; k < from; ++k) {
      device_ns += DeviceTimeNs(context, k);
    }
    Step boundary = from;
    while (boundary + 1 < step_count && device_ns < store_ns &&
           live[boundary] + bytes <= limit_bytes) {
      device_ns += DeviceTimeNs(context, boundary);
      live[boundary] += bytes;  // resident through step `boundary` now
      ++boundary;
    }
    if (boundary != from) {
      boundaries[crossing.value] = boundary;
      moved = true;
    }
  }
  if (!moved) boundaries.clear();
  return boundaries;
}

}  // namespace hyperplan::planner
