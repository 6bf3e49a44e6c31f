// Pre-peak Stores on the compute-only axis (see pre_peak_stores.h).
#include "planner/pre_peak_stores.h"

#include "hyperplan/cost.h"
#include "planner/cost_analysis.h"

namespace hyperplan::planner {

PrePeakStores::PrePeakStores(const PlanContext& context)
    : profile_(*context.profile),
      start_ns_(StallFreeStepStarts(context.order, context.cost.node_time_ns)),
      peak_step_(context.lifetimes.timeline.peak_step),
      links_(*context.profile) {}

std::vector<LinkSlot> PrePeakStores::Place(const Route& route, int64_t bytes,
                                           Step first_boundary) const {
  std::vector<LinkSlot> hops;
  if (first_boundary > peak_step_) return hops;
  int64_t lower_ns = start_ns_[first_boundary];
  for (int32_t link : route) {
    const int64_t duration_ns = ChannelTransferTimeNs(profile_.links[link], bytes);
    hops.push_back({link, links_.EarliestSlot(link, lower_ns, duration_ns)});
    lower_ns = hops.back().slot.end_ns;
  }
  return hops;
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
