// Compute-step bounds of every step (see compute_bounds.h).
#include "plan/compute_bounds.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace hyperplan::planner {
namespace {

bool OnComputeStream(const PlanStep& step) {
  return step.kind == StepKind::kCompute || step.kind == StepKind::kDetach;
}

// Per step: the previous step on its stream, or -1.
std::vector<int32_t> StreamPredecessors(const Plan& plan) {
  std::vector<int32_t> previous(plan.steps.size(), -1);
  int32_t last_compute_stream = -1;
  std::unordered_map<int64_t, int32_t> last_on_channel;  // (link, channel) -> step
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    const auto index = static_cast<int32_t>(i);
    if (OnComputeStream(step)) {
      previous[i] = last_compute_stream;
      last_compute_stream = index;
      continue;
    }
    const int64_t channel = int64_t{step.link} << 32 | static_cast<uint32_t>(step.channel);
    auto [it, inserted] = last_on_channel.try_emplace(channel, index);
    if (!inserted) {
      previous[i] = it->second;
      it->second = index;
    }
  }
  return previous;
}

}  // namespace

ComputeBounds BoundByCompute(const Plan& plan) {
  const size_t count = plan.steps.size();
  const auto order_size = static_cast<Step>(plan.order.size());
  const std::vector<int32_t> previous = StreamPredecessors(plan);
  auto for_each_predecessor = [&](size_t i, auto&& visit) {
    if (previous[i] >= 0) visit(previous[i]);
    for (const int32_t wait : plan.steps[i].waits_for) {
      if (wait >= 0 && static_cast<size_t>(wait) < i) visit(wait);
    }
  };
  auto is_compute = [&](size_t i) { return plan.steps[i].kind == StepKind::kCompute; };

  ComputeBounds bounds;
  // Forward: what has ended before a step starts is what had ended before, or was, one of its
  // predecessors.
  bounds.ended_before.assign(count, -1);
  std::vector<Step> ended_through(count, -1);
  for (size_t i = 0; i < count; ++i) {
    Step ended = -1;
    for_each_predecessor(i, [&](int32_t p) { ended = std::max(ended, ended_through[p]); });
    bounds.ended_before[i] = ended;
    ended_through[i] = is_compute(i) ? std::max(ended, plan.steps[i].boundary) : ended;
  }
  // Backward: the first compute step after a step is the first one among (or after) its
  // successors.
  bounds.starts_after.assign(count, order_size);
  for (size_t i = count; i-- > 0;) {
    const Step at = is_compute(i) ? plan.steps[i].boundary : bounds.starts_after[i];
    for_each_predecessor(
        i, [&](int32_t p) { bounds.starts_after[p] = std::min(bounds.starts_after[p], at); });
  }
  return bounds;
}

}  // namespace hyperplan::planner
