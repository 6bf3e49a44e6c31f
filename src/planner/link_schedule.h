// LinkSchedule: what already occupies each channel of each link, in planned time.
//
// Each channel keeps its busy intervals merged (touching intervals become one) in a
// BusyIntervals treap that knows the free gap after every interval. LatestSlot finds the
// latest start that ends by a deadline (a Prefetch placed as late as still hides);
// EarliestSlot the earliest start from a lower bound (a Store right after its producer, or a
// Prefetch that must stall); Release splits a merged interval to give a reservation back (a
// re-placed Prefetch). Searches look at every channel of the link and pick the best (ties:
// lower channel), and are exact: a search skips every gap too short for the transfer in
// O(log k), so a saturated link is as cheap to search as an idle one.
// Cost: O(log k) expected per search and per reservation for k intervals on the channel
// (a merge or split adds O(log k) per interval it removes).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hyperplan/hardware.h"
#include "hyperplan/routes.h"
#include "planner/busy_intervals.h"

namespace hyperplan::planner {

struct Slot {
  int32_t channel = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

struct LinkSlot {
  int32_t link = -1;
  Slot slot;
};

class ChannelSchedule {
 public:
  // Latest s >= lower_ns with [s, s + duration_ns) free and s + duration_ns <= deadline_ns.
  std::optional<int64_t> LatestStart(int64_t lower_ns, int64_t deadline_ns,
                                     int64_t duration_ns) const;
  // Earliest s >= lower_ns with [s, s + duration_ns) free.
  int64_t EarliestStart(int64_t lower_ns, int64_t duration_ns) const;
  void Reserve(int64_t start_ns, int64_t end_ns);
  // Frees [start, end), which must lie inside one busy interval (a past reservation).
  void Release(int64_t start_ns, int64_t end_ns);

 private:
  BusyIntervals busy_;
};

class LinkSchedule {
 public:
  explicit LinkSchedule(const HardwareProfile& profile);

  std::optional<Slot> LatestSlot(int32_t link, int64_t lower_ns, int64_t deadline_ns,
                                 int64_t duration_ns) const;
  Slot EarliestSlot(int32_t link, int64_t lower_ns, int64_t duration_ns) const;
  // `bytes` along `route`, each hop in its link's earliest slot from `lower_ns` or the end of
  // the hop before (a Store right after its producer; a Prefetch that must stall).
  std::vector<LinkSlot> EarliestChain(const HardwareProfile& profile, const Route& route,
                                      int64_t lower_ns, int64_t bytes) const;
  void Reserve(int32_t link, const Slot& slot);
  // Reserves, on `channel` of `link`, the earliest free [s, s + duration_ns) with s >= lower_ns
  // (a transfer issued outside the planner's choice, such as a host crossing), and returns it.
  Slot ReserveEarliest(int32_t link, int32_t channel, int64_t lower_ns, int64_t duration_ns);
  void Release(int32_t link, const Slot& slot);

 private:
  std::vector<std::vector<ChannelSchedule>> channels_;  // by link, then channel
};

}  // namespace hyperplan::planner
