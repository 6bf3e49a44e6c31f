// Forward Stores on the compute-only axis (see forward_stores.h).
#include "planner/forward_stores.h"

#include "hyperplan/cost.h"

namespace hyperplan::planner {

ForwardStores::ForwardStores(const PlanContext& context)
    : profile_(*context.profile),
      start_ns_(static_cast<size_t>(context.step_count()) + 1, 0),
      peak_step_(context.lifetimes.timeline.peak_step),
      links_(*context.profile) {
  for (Step step = 0; step < context.step_count(); ++step) {
    start_ns_[step + 1] = start_ns_[step] + context.cost.node_time_ns[context.order[step]];
  }
}

std::vector<LinkSlot> ForwardStores::Place(const Route& route, int64_t bytes,
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

void ForwardStores::Hold(const std::vector<LinkSlot>& hops) {
  for (const LinkSlot& hop : hops) links_.Reserve(hop.link, hop.slot);
}

void ForwardStores::Release(const std::vector<LinkSlot>& hops) {
  for (const LinkSlot& hop : hops) links_.Release(hop.link, hop.slot);
}

}  // namespace hyperplan::planner
