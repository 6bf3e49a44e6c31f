// Pre-peak Stores on the compute-only axis (see pre_peak_stores.h).
#include "planner/pre_peak_stores.h"

#include "planner/cost_analysis.h"

namespace hyperplan::planner {

PrePeakStores::PrePeakStores(const PlanContext& context)
    : profile_(*context.profile),
      start_ns_(StallFreeStepStarts(context.order, context.cost.node_time_ns)),
      peak_step_(context.lifetimes.timeline.peak_step),
      links_(*context.profile) {}

std::vector<LinkSlot> PrePeakStores::Place(const Route& route, int64_t bytes,
                                           Step first_boundary) const {
  if (first_boundary > peak_step_) return {};
  return links_.EarliestChain(profile_, route, start_ns_[first_boundary], bytes);
}

Step PrePeakStores::FirstBoundaryAtOrAfter(int64_t time_ns, Step from) const {
  return planner::FirstBoundaryAtOrAfter(start_ns_, time_ns, from);
}

void PrePeakStores::Reserve(const std::vector<LinkSlot>& hops) {
  for (const LinkSlot& hop : hops) links_.Reserve(hop.link, hop.slot);
}

void PrePeakStores::Release(const std::vector<LinkSlot>& hops) {
  for (const LinkSlot& hop : hops) links_.Release(hop.link, hop.slot);
}

}  // namespace hyperplan::planner
