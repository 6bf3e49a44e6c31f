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

// By ValueId: when each crossing Store of `detaches` ends on the device's clock (clock[k]: the
// device's compute before step k): from its writer's end, behind the crossing Stores sequenced
// before it on its link, for its planned length.
std::vector<int64_t> StoreEndsNs(const PlanContext& context, const Plan& plan,
                                 std::vector<CrossingDetach> detaches,
                                 const std::vector<int64_t>& clock) {
  std::sort(detaches.begin(), detaches.end(), [](const CrossingDetach& a, const CrossingDetach& b) {
    return std::tie(a.store, a.value) < std::tie(b.store, b.value);
  });
  std::vector<int64_t> ends(context.graph->values.size(), 0);
  std::vector<int64_t> link_free_ns(context.profile->links.size(), 0);
  for (const CrossingDetach& crossing : detaches) {
    const PlanStep& store = plan.steps[crossing.store];
    const Step after_writer = context.lifetimes.lifetimes[crossing.value].def_step + 1;
    const int64_t start_ns = std::max(clock[after_writer], link_free_ns[store.link]);
    ends[crossing.value] = start_ns + (store.planned_end_ns - store.planned_start_ns);
    link_free_ns[store.link] = ends[crossing.value];
  }
  return ends;
}

std::vector<Step> CrossingDetachBoundaries(const PlanContext& context, const Plan& plan,
                                           std::vector<CrossingDetach> detaches) {
  if (context.detach_waits_for_host || detaches.empty()) return {};
  const Step step_count = context.step_count();
  std::vector<int64_t> clock(static_cast<size_t>(step_count) + 1, 0);
  for (Step k = 0; k < step_count; ++k) clock[k + 1] = clock[k] + DeviceTimeNs(context, k);
  const std::vector<int64_t> store_end_ns = StoreEndsNs(context, plan, detaches, clock);
  std::vector<int64_t> live = LiveBytesPerStep(plan.residency, step_count);
  const int64_t limit_bytes = *std::max_element(live.begin(), live.end());
  // In sequence order, so that each Detach sees the steps the earlier ones now hold.
  std::sort(detaches.begin(), detaches.end(), [](const CrossingDetach& a, const CrossingDetach& b) {
    return std::tie(a.detach, a.value) < std::tie(b.detach, b.value);
  });
  std::vector<Step> boundaries(context.graph->values.size(), -1);
  bool moved = false;
  for (const CrossingDetach& crossing : detaches) {
    const int64_t bytes = context.graph->values[crossing.value].bytes;
    const Step from = plan.steps[crossing.detach].boundary;
    Step boundary = from;
    while (boundary + 1 < step_count && clock[boundary] < store_end_ns[crossing.value] &&
           live[boundary] + bytes <= limit_bytes) {
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
