// Channel occupancy searches (see link_schedule.h).
#include "planner/link_schedule.h"

#include <algorithm>
#include <iterator>

namespace hyperplan::planner {

std::optional<int64_t> ChannelSchedule::LatestStart(int64_t lower_ns, int64_t deadline_ns,
                                                    int64_t duration_ns) const {
  int64_t end = deadline_ns;
  // The busy interval starting last before `end` is the only one that can overlap
  // [end - duration, end); when it does, try again just before it.
  auto it = busy_.lower_bound(end);
  for (int scanned = 0; scanned < kMaxGapsScanned; ++scanned) {
    const int64_t start = end - duration_ns;
    if (start < lower_ns) return std::nullopt;
    if (it == busy_.begin()) return start;
    const auto previous = std::prev(it);
    if (previous->second <= start) return start;
    end = std::min(end, previous->first);
    it = previous;
  }
  return std::nullopt;
}

int64_t ChannelSchedule::EarliestStart(int64_t lower_ns, int64_t duration_ns) const {
  int64_t start = lower_ns;
  // Step back to an interval that may contain `start`.
  auto it = busy_.upper_bound(start);
  if (it != busy_.begin()) {
    const auto previous = std::prev(it);
    if (previous->second > start) start = previous->second;
  }
  for (int scanned = 0; scanned < kMaxGapsScanned; ++scanned) {
    if (it == busy_.end() || start + duration_ns <= it->first) return start;
    start = std::max(start, it->second);
    ++it;
  }
  return std::max(start, busy_.empty() ? start : std::prev(busy_.end())->second);
}

void ChannelSchedule::Reserve(int64_t start_ns, int64_t end_ns) {
  if (end_ns <= start_ns) return;
  // Merge with every interval that touches or overlaps [start, end).
  auto it = busy_.lower_bound(start_ns);
  if (it != busy_.begin()) {
    const auto previous = std::prev(it);
    if (previous->second >= start_ns) it = previous;
  }
  while (it != busy_.end() && it->first <= end_ns) {
    start_ns = std::min(start_ns, it->first);
    end_ns = std::max(end_ns, it->second);
    it = busy_.erase(it);
  }
  busy_.emplace(start_ns, end_ns);
}

void ChannelSchedule::Release(int64_t start_ns, int64_t end_ns) {
  if (end_ns <= start_ns) return;
  auto it = busy_.upper_bound(start_ns);
  if (it == busy_.begin()) return;
  --it;
  const int64_t busy_start = it->first;
  const int64_t busy_end = it->second;
  if (busy_end < end_ns) return;  // not a reservation of ours
  busy_.erase(it);
  if (busy_start < start_ns) busy_.emplace(busy_start, start_ns);
  if (end_ns < busy_end) busy_.emplace(end_ns, busy_end);
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

void LinkSchedule::Reserve(int32_t link, const Slot& slot) {
  channels_[link][slot.channel].Reserve(slot.start_ns, slot.end_ns);
}

void LinkSchedule::Release(int32_t link, const Slot& slot) {
  channels_[link][slot.channel].Release(slot.start_ns, slot.end_ns);
}

}  // namespace hyperplan::planner
