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

ComputeBounds BoundByCompute(const Plan& plan, const HappensBefore& happens_before) {
  const size_t count = plan.steps.size();
  const auto order_size = static_cast<Step>(plan.order.size());
  auto is_compute = [&](size_t i) { return plan.steps[i].kind == StepKind::kCompute; };
  ComputeBounds bounds;
  // Forward: the last compute step at or before the latest compute-stream step that ended.
  std::vector<Step> compute_through(count, -1);  // by step: the last compute step up to it
  for (size_t i = 0; i < count; ++i) {
    const Step before = i > 0 ? compute_through[i - 1] : -1;
    compute_through[i] = is_compute(i) ? plan.steps[i].boundary : before;
  }
  bounds.ended_before.assign(count, -1);
  for (size_t i = 0; i < count; ++i) {
    const int32_t ended = happens_before.LatestEnded(static_cast<int32_t>(i), 0);
    bounds.ended_before[i] = ended < 0 ? -1 : compute_through[ended];
  }
  // Each stream's steps, in sequence order: a compute step's clock only grows along the
  // compute stream, so each stream's steps are assigned their first later compute step in
  // one walk.
  std::vector<std::vector<int32_t>> steps_of(static_cast<size_t>(happens_before.stream_count()));
  for (size_t i = 0; i < count; ++i) {
    steps_of[happens_before.stream_of(static_cast<int32_t>(i))].push_back(static_cast<int32_t>(i));
  }
  bounds.starts_after.assign(count, order_size);
  std::vector<size_t> next(steps_of.size(), 0);  // by stream: its first step not yet assigned
  for (size_t j = 0; j < count; ++j) {
    if (!is_compute(j)) continue;
    for (size_t s = 0; s < steps_of.size(); ++s) {
      const int32_t ended =
          happens_before.LatestEnded(static_cast<int32_t>(j), static_cast<int32_t>(s));
      for (; next[s] < steps_of[s].size() && steps_of[s][next[s]] <= ended; ++next[s]) {
        bounds.starts_after[steps_of[s][next[s]]] = plan.steps[j].boundary;
      }
    }
  }
  return bounds;
}

ComputeBounds BoundByCompute(const Plan& plan, const HardwareProfile& profile) {
  return BoundByCompute(plan, HappensBefore(plan, profile));
}

}  // namespace hyperplan::planner
