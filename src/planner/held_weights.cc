// Weights held whole in the room fetches after route free (see held_weights.h).
#include "planner/held_weights.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "planner/renumber_blocks.h"

namespace hyperplan::planner {
namespace {

// By value: the bytes its Prefetches move, or -1 where the value is no candidate (not a
// read-only weight; a routed Prefetch, a Store, a staging copy, a block not opened by its own
// Prefetch).
std::vector<int64_t> MovedBytesByValue(const Graph& graph, const Plan& plan) {
  std::vector<int64_t> moved(graph.values.size(), 0);
  for (const PlanStep& step : plan.steps) {
    if (step.value == kNoValue || step.kind == StepKind::kCompute) continue;
    if (step.kind == StepKind::kPrefetch && step.routed_by == kNoNode) {
      if (moved[step.value] >= 0) moved[step.value] += step.bytes;
    } else if (step.kind != StepKind::kDetach) {
      moved[step.value] = -1;
    }
  }
  for (const TierCopy& copy : plan.tier_copies) {
    if (copy.opened_by >= 0 || copy.closed_by >= 0) moved[copy.value] = -1;
  }
  std::vector<uint8_t> has_block(graph.values.size(), 0);
  for (const ResidentInterval& block : plan.residency) {
    if (block.value == kNoValue) continue;
    has_block[block.value] = 1;
    const bool own_prefetch = block.opened_by >= 0 &&
                              plan.steps[block.opened_by].kind == StepKind::kPrefetch &&
                              plan.steps[block.opened_by].value == block.value;
    if (!own_prefetch || !block.experts.empty()) moved[block.value] = -1;
  }
  for (size_t v = 0; v < moved.size(); ++v) {
    // A weight some node writes (an optimizer's update) changes in the iteration: its device
    // copy is not the home copy's throughout.
    const Value& value = graph.values[v];
    if (!has_block[v] || value.value_class != ValueClass::kWeight || value.producer != kNoNode ||
        value.written_by != kNoNode) {
      moved[v] = -1;
    }
  }
  return moved;
}

// The stream a step runs on (plan.h): its link's channel for a transfer, the host lane for
// host compute, the compute stream for the rest.
std::pair<int32_t, int32_t> StreamOf(const PlanStep& step) {
  if (step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore) {
    return {step.link, step.channel};
  }
  const bool host = step.kind == StepKind::kCompute && step.unit == ComputeUnit::kHost;
  return {host ? -2 : -1, 0};
}

// Into `waits`: `wait`'s new index, or where it is dropped, those of what it waited for (the
// order it kept, a block freed before the waiter allocates, holds through it). Waits point to
// earlier steps, so the walk ends.
void AddKeptWaits(const std::vector<PlanStep>& steps, const std::vector<int32_t>& new_index,
                  int32_t wait, std::vector<int32_t>& waits) {
  if (new_index[wait] >= 0) {
    waits.push_back(new_index[wait]);
    return;
  }
  for (int32_t earlier : steps[wait].waits_for) AddKeptWaits(steps, new_index, earlier, waits);
}

// `plan`'s steps without the dropped ones, every index renumbered; a wait on a dropped step
// becomes waits on what that step waited for (what it brought is on the device throughout).
void DropSteps(Plan& plan, const std::vector<uint8_t>& dropped) {
  std::vector<int32_t> new_index(plan.steps.size(), -1);
  int32_t next = 0;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (!dropped[i]) new_index[i] = next++;
  }
  auto renumber = [&](int32_t& step) {
    if (step >= 0) step = new_index[step];
  };
  // By stream: what the dropped steps since its last kept one waited for; its next kept step
  // inherits it, since the dropped steps no longer order it after them in the stream.
  std::map<std::pair<int32_t, int32_t>, std::vector<int32_t>> inherited;
  std::vector<PlanStep> steps;
  steps.reserve(static_cast<size_t>(next));
  int32_t last_device_compute = -1;  // in `steps`
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    std::vector<int32_t>& pending = inherited[StreamOf(plan.steps[i])];
    if (dropped[i]) {
      for (int32_t wait : plan.steps[i].waits_for) {
        AddKeptWaits(plan.steps, new_index, wait, pending);
      }
      continue;
    }
    PlanStep step = std::move(plan.steps[i]);
    std::vector<int32_t> waits = std::move(pending);
    pending.clear();
    bool lost_wait = !waits.empty();
    for (int32_t wait : step.waits_for) {
      lost_wait = lost_wait || new_index[wait] < 0;
      AddKeptWaits(plan.steps, new_index, wait, waits);
    }
    // A transfer issued at a boundary starts after the device compute before it (plan.h); a
    // dropped step may have been what ordered it so.
    if (lost_wait && step.kind != StepKind::kCompute && last_device_compute >= 0) {
      waits.push_back(last_device_compute);
    }
    if (step.kind == StepKind::kCompute && step.unit == ComputeUnit::kDevice) {
      last_device_compute = static_cast<int32_t>(steps.size());
    }
    std::sort(waits.begin(), waits.end());
    waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
    step.waits_for = std::move(waits);
    renumber(step.chunk_of);
    steps.push_back(std::move(step));
  }
  plan.steps = std::move(steps);
  RenumberBlockSteps(plan, renumber);
}

}  // namespace

std::vector<StreamedWeight> FindStreamedWeights(const Graph& graph, const Plan& plan) {
  const std::vector<int64_t> moved = MovedBytesByValue(graph, plan);
  std::vector<StreamedWeight> weights;
  for (size_t v = 0; v < moved.size(); ++v) {
    if (moved[v] <= 0 || graph.values[v].bytes <= 0) continue;
    weights.push_back({static_cast<ValueId>(v), graph.values[v].bytes, moved[v]});
  }
  // Best saving per byte first: a.moved / a.bytes > b.moved / b.bytes, in integers.
  std::stable_sort(weights.begin(), weights.end(), [](const auto& a, const auto& b) {
    const __int128 lhs = static_cast<__int128>(a.moved_bytes) * b.bytes;
    const __int128 rhs = static_cast<__int128>(b.moved_bytes) * a.bytes;
    return lhs != rhs ? lhs > rhs : a.value < b.value;
  });
  return weights;
}

std::vector<ValueId> ChooseHeldWeights(const std::vector<StreamedWeight>& candidates,
                                       int64_t room_bytes) {
  std::vector<ValueId> held;
  for (const StreamedWeight& weight : candidates) {
    if (weight.bytes > room_bytes) continue;
    held.push_back(weight.value);
    room_bytes -= weight.bytes;
  }
  std::sort(held.begin(), held.end());
  return held;
}

int64_t HeldBytes(const Graph& graph, const std::vector<ValueId>& held) {
  int64_t bytes = 0;
  for (ValueId v : held) bytes += graph.values[v].bytes;
  return bytes;
}

Plan HoldWeights(const Graph& graph, const Plan& plan, const std::vector<ValueId>& held) {
  Plan out = plan;
  std::vector<uint8_t> held_value(graph.values.size(), 0);
  for (ValueId v : held) held_value[v] = 1;
  auto holds = [&](ValueId v) { return v != kNoValue && held_value[v]; };
  std::vector<uint8_t> dropped(out.steps.size(), 0);
  for (size_t i = 0; i < out.steps.size(); ++i) {
    const PlanStep& step = out.steps[i];
    dropped[i] =
        holds(step.value) && (step.kind == StepKind::kPrefetch || step.kind == StepKind::kDetach);
  }
  DropSteps(out, dropped);
  std::vector<ResidentInterval> blocks;
  blocks.reserve(out.residency.size());
  for (ResidentInterval& block : out.residency) {
    if (!holds(block.value)) blocks.push_back(std::move(block));
  }
  const auto last_step = static_cast<Step>(out.order.size()) - 1;
  for (ValueId v : held) {
    ResidentInterval block;
    block.value = v;
    block.first_step = 0;
    block.last_step = last_step;
    block.bytes = graph.values[v].bytes;
    blocks.push_back(block);
  }
  out.residency = std::move(blocks);
  return out;
}

}  // namespace hyperplan::planner
