// Happens-before between steps and its compute-step bounds (see compute_bounds.h).
#include "plan/compute_bounds.h"

#include <algorithm>

namespace hyperplan::planner {

HappensBefore::HappensBefore(const Plan& plan, const HardwareProfile& profile) {
  const StreamNumbering numbering(profile);
  streams_ = numbering.count();
  const size_t count = plan.steps.size();
  stream_of_.resize(count);
  clock_.assign(count * static_cast<size_t>(streams_), -1);
  std::vector<int32_t> last_on_stream(static_cast<size_t>(streams_), -1);
  for (size_t i = 0; i < count; ++i) {
    int32_t* clock = &clock_[i * streams_];
    // What had ended before `earlier` started, and `earlier` itself.
    auto merge = [&](int32_t earlier) {
      const int32_t* other = &clock_[static_cast<size_t>(earlier) * streams_];
      for (int32_t s = 0; s < streams_; ++s) clock[s] = std::max(clock[s], other[s]);
      clock[stream_of_[earlier]] = std::max(clock[stream_of_[earlier]], earlier);
    };
    for (const int32_t wait : plan.steps[i].waits_for) {
      if (wait >= 0 && static_cast<size_t>(wait) < i) merge(wait);
    }
    const int32_t stream = numbering.Of(plan.steps[i]);
    stream_of_[i] = stream;
    if (last_on_stream[stream] >= 0) merge(last_on_stream[stream]);
    last_on_stream[stream] = static_cast<int32_t>(i);
  }
}

bool HappensBefore::operator()(int32_t earlier, int32_t later) const {
  if (earlier >= later) return false;
  return LatestEnded(later, stream_of_[earlier]) >= earlier;
}

namespace {

// The compute steps of one lane (the compute stream, or the host lane) and where they sit in
// the order: a lane runs its compute steps in order, so "every compute step of the lane up to
// position p has ended" follows from its latest ended step.
struct Lane {
  int32_t stream = 0;
  std::vector<int32_t> steps;       // its compute steps, in sequence order
  std::vector<Step> through;        // by step index: its last position at or before it
  std::vector<Step> next_position;  // by position q (to the order size): its first at or after q
  std::vector<Step> previous_position;  // by position q (to the order size): its last before q
};

std::vector<Lane> ComputeLanes(const Plan& plan, const HappensBefore& happens_before) {
  const size_t count = plan.steps.size();
  const auto order_size = static_cast<Step>(plan.order.size());
  std::vector<Lane> lanes;
  for (size_t i = 0; i < count; ++i) {
    if (plan.steps[i].kind != StepKind::kCompute) continue;
    const int32_t stream = happens_before.stream_of(static_cast<int32_t>(i));
    auto lane = std::find_if(lanes.begin(), lanes.end(),
                             [&](const Lane& known) { return known.stream == stream; });
    if (lane == lanes.end()) lane = lanes.insert(lanes.end(), Lane{stream, {}, {}, {}, {}});
    lane->steps.push_back(static_cast<int32_t>(i));
  }
  for (Lane& lane : lanes) {
    lane.through.assign(count, -1);
    for (const int32_t step : lane.steps) lane.through[step] = plan.steps[step].boundary;
    for (size_t i = 1; i < count; ++i)
      lane.through[i] = std::max(lane.through[i], lane.through[i - 1]);
    lane.next_position.assign(static_cast<size_t>(order_size) + 1, order_size);
    lane.previous_position.assign(static_cast<size_t>(order_size) + 1, -1);
    std::vector<uint8_t> on_lane(static_cast<size_t>(order_size), 0);
    for (const int32_t step : lane.steps) on_lane[plan.steps[step].boundary] = 1;
    for (Step p = order_size - 1; p >= 0; --p) {
      lane.next_position[p] = on_lane[p] ? p : lane.next_position[p + 1];
    }
    for (Step p = 0; p < order_size; ++p) {
      lane.previous_position[p + 1] = on_lane[p] ? p : lane.previous_position[p];
    }
  }
  return lanes;
}

}  // namespace

ComputeBounds BoundByCompute(const Plan& plan, const HappensBefore& happens_before) {
  const size_t count = plan.steps.size();
  const auto order_size = static_cast<Step>(plan.order.size());
  const std::vector<Lane> lanes = ComputeLanes(plan, happens_before);
  ComputeBounds bounds;
  // Forward: every compute step up to c has ended when each lane's have: c is below each
  // lane's first position after its last ended compute step.
  bounds.ended_before.assign(count, order_size - 1);
  for (size_t i = 0; i < count; ++i) {
    for (const Lane& lane : lanes) {
      const int32_t ended = happens_before.LatestEnded(static_cast<int32_t>(i), lane.stream);
      const Step done = ended < 0 ? -1 : lane.through[ended];
      bounds.ended_before[i] = std::min(bounds.ended_before[i], lane.next_position[done + 1] - 1);
    }
  }
  if (lanes.empty()) bounds.ended_before.assign(count, -1);
  // Backward, per lane: a compute step's clock only grows along its lane, so each stream's
  // steps are assigned the lane's first compute step after them in one walk; every compute step
  // from c on starts after a step when each lane's from that first one on do.
  std::vector<std::vector<int32_t>> steps_of(static_cast<size_t>(happens_before.stream_count()));
  for (size_t i = 0; i < count; ++i) {
    steps_of[happens_before.stream_of(static_cast<int32_t>(i))].push_back(static_cast<int32_t>(i));
  }
  bounds.starts_after.assign(count, lanes.empty() ? order_size : 0);
  for (const Lane& lane : lanes) {
    std::vector<Step> first_after(count, order_size);  // by step: the lane's first after it
    std::vector<size_t> next(steps_of.size(), 0);      // by stream: its first step not yet assigned
    for (const int32_t j : lane.steps) {
      for (size_t s = 0; s < steps_of.size(); ++s) {
        const int32_t ended = happens_before.LatestEnded(j, static_cast<int32_t>(s));
        for (; next[s] < steps_of[s].size() && steps_of[s][next[s]] <= ended; ++next[s]) {
          first_after[steps_of[s][next[s]]] = plan.steps[j].boundary;
        }
      }
    }
    for (size_t i = 0; i < count; ++i) {
      const Step bound = lane.previous_position[first_after[i]] + 1;
      bounds.starts_after[i] = std::max(bounds.starts_after[i], bound);
    }
  }
  return bounds;
}

ComputeBounds BoundByCompute(const Plan& plan, const HardwareProfile& profile) {
  return BoundByCompute(plan, HappensBefore(plan, profile));
}

}  // namespace hyperplan::planner
