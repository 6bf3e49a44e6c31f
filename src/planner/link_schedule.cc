// Channel occupancy searches (see link_schedule.h).
#include "planner/link_schedule.h"

#include <algorithm>

#include "hyperplan/cost.h"

namespace hyperplan::planner {

std::optional<int64_t> ChannelSchedule::LatestStart(int64_t lower_ns, int64_t deadline_ns,
                                                    int64_t duration_ns) const {
  const int64_t start = deadline_ns - duration_ns;
  if (start < lower_ns) return std::nullopt;
  // The interval starting last before the deadline is the only one that can overlap
  // [deadline - duration, deadline).
  const int32_t previous = busy_.LastStartingAtOrBefore(deadline_ns - 1);
  if (previous == BusyIntervals::kNone || busy_.at(previous).end_ns <= start) return start;
  // Else the latest gap long enough that ends by that interval's start, or before the first.
  const int32_t before = busy_.LastWithGapBefore(busy_.at(previous).start_ns, duration_ns);
  const int64_t latest =
      before == BusyIntervals::kNone
          ? busy_.at(busy_.First()).start_ns - duration_ns
          : busy_.at(before).end_ns + busy_.at(before).gap_after_ns - duration_ns;
  if (latest < lower_ns) return std::nullopt;
  return latest;
}

int64_t ChannelSchedule::EarliestStart(int64_t lower_ns, int64_t duration_ns) const {
  int64_t start = lower_ns;
  const int32_t previous = busy_.LastStartingAtOrBefore(lower_ns);
  if (previous != BusyIntervals::kNone && busy_.at(previous).end_ns > start) {
    start = busy_.at(previous).end_ns;
  }
  const int32_t next = busy_.FirstStartingAfter(lower_ns);
  if (next == BusyIntervals::kNone || start + duration_ns <= busy_.at(next).start_ns) {
    return start;
  }
  // The gap at `start` is too short: the end of the first interval from `next` on that is
  // followed by a long enough gap (the last one always is).
  return busy_.at(busy_.FirstWithGapFrom(busy_.at(next).start_ns, duration_ns)).end_ns;
}

void ChannelSchedule::Reserve(int64_t start_ns, int64_t end_ns) {
  if (end_ns <= start_ns) return;
  const int32_t previous = busy_.LastStartingAtOrBefore(start_ns);
  const bool joins_previous =
      previous != BusyIntervals::kNone && busy_.at(previous).end_ns >= start_ns;
  const int32_t next = busy_.FirstStartingAfter(start_ns);
  if (next == BusyIntervals::kNone || busy_.at(next).start_ns > end_ns) {
    // Nothing after it to merge (the usual case: a transfer right after another): the
    // interval before grows in place, or a new one goes in.
    if (!joins_previous) {
      busy_.Insert(start_ns, end_ns);
      return;
    }
    const BusyIntervals::Interval grown = busy_.at(previous);
    busy_.Resize(grown.start_ns, grown.start_ns, std::max(end_ns, grown.end_ns));
    return;
  }
  // Merge with every interval that touches or overlaps [start, end).
  if (joins_previous) {
    const BusyIntervals::Interval merged = busy_.at(previous);
    start_ns = merged.start_ns;
    end_ns = std::max(end_ns, merged.end_ns);
    busy_.Erase(merged.start_ns);
  }
  for (;;) {
    const int32_t last = busy_.LastStartingAtOrBefore(end_ns);
    if (last == BusyIntervals::kNone || busy_.at(last).start_ns < start_ns) break;
    const BusyIntervals::Interval merged = busy_.at(last);
    end_ns = std::max(end_ns, merged.end_ns);
    busy_.Erase(merged.start_ns);
  }
  busy_.Insert(start_ns, end_ns);
}

void ChannelSchedule::Release(int64_t start_ns, int64_t end_ns) {
  if (end_ns <= start_ns) return;
  const int32_t containing = busy_.LastStartingAtOrBefore(start_ns);
  if (containing == BusyIntervals::kNone) return;
  const BusyIntervals::Interval busy = busy_.at(containing);
  if (busy.end_ns < end_ns) return;  // not a reservation of ours
  // The part before [start, end) keeps the interval's node, else the part after does.
  if (busy.start_ns < start_ns) {
    busy_.Resize(busy.start_ns, busy.start_ns, start_ns);
    if (end_ns < busy.end_ns) busy_.Insert(end_ns, busy.end_ns);
  } else if (end_ns < busy.end_ns) {
    busy_.Resize(busy.start_ns, end_ns, busy.end_ns);
  } else {
    busy_.Erase(busy.start_ns);
  }
}

LinkSchedule::LinkSchedule(const HardwareProfile& profile) {
  channels_.resize(profile.links.size());
  for (size_t i = 0; i < profile.links.size(); ++i) {
    channels_[i].resize(static_cast<size_t>(std::max(1, profile.links[i].channels)));
  }
}

std::optional<Slot> LinkSchedule::LatestSlot(int32_t link, int64_t lower_ns, int64_t deadline_ns,
                                             int64_t duration_ns) const {
  std::optional<Slot> best;
  const auto& channels = channels_[link];
  for (size_t c = 0; c < channels.size(); ++c) {
    const auto start = channels[c].LatestStart(lower_ns, deadline_ns, duration_ns);
    if (start && (!best || *start > best->start_ns)) {
      best = Slot{static_cast<int32_t>(c), *start, *start + duration_ns};
    }
  }
  return best;
}

Slot LinkSchedule::EarliestSlot(int32_t link, int64_t lower_ns, int64_t duration_ns) const {
  Slot best;
  bool found = false;
  const auto& channels = channels_[link];
  for (size_t c = 0; c < channels.size(); ++c) {
    const int64_t start = channels[c].EarliestStart(lower_ns, duration_ns);
    if (!found || start < best.start_ns) {
      best = Slot{static_cast<int32_t>(c), start, start + duration_ns};
      found = true;
    }
  }
  return best;
}

std::vector<LinkSlot> LinkSchedule::EarliestChain(const HardwareProfile& profile,
                                                  const Route& route, int64_t lower_ns,
                                                  int64_t bytes) const {
  std::vector<LinkSlot> hops;
  hops.reserve(route.size());
  for (int32_t link : route) {
    const int64_t duration_ns = ChannelTransferTimeNs(profile.links[link], bytes);
    hops.push_back({link, EarliestSlot(link, lower_ns, duration_ns)});
    lower_ns = hops.back().slot.end_ns;
  }
  return hops;
}

void LinkSchedule::Reserve(int32_t link, const Slot& slot) {
  channels_[link][slot.channel].Reserve(slot.start_ns, slot.end_ns);
}

Slot LinkSchedule::ReserveEarliest(int32_t link, int32_t channel, int64_t lower_ns,
                                   int64_t duration_ns) {
  ChannelSchedule& schedule = channels_[link][channel];
  const int64_t start_ns = schedule.EarliestStart(lower_ns, duration_ns);
  schedule.Reserve(start_ns, start_ns + duration_ns);
  return Slot{channel, start_ns, start_ns + duration_ns};
}

void LinkSchedule::Release(int32_t link, const Slot& slot) {
  channels_[link][slot.channel].Release(slot.start_ns, slot.end_ns);
}

}  // namespace hyperplan::planner
