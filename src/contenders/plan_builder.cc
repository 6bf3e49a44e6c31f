// Plan construction for contenders (see plan_builder.h).
#include "contenders/plan_builder.h"

#include <algorithm>
#include <span>
#include <string>
#include <utility>

#include "hyperplan/cost.h"
#include "hyperplan/error.h"
#include "hyperplan/layout/layout.h"
#include "hyperplan/layout/plan_layout.h"
#include "hyperplan/plan/cold_start.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/simulate.h"

namespace hyperplan::contenders {
namespace {

void Normalise(std::vector<int32_t>& waits) {
  waits.erase(std::remove(waits.begin(), waits.end(), -1), waits.end());
  std::sort(waits.begin(), waits.end());
  waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
}

bool Sized(const Value& value) { return value.size_known && value.bytes > 0; }

}  // namespace

PlanBuilder::PlanBuilder(const ContenderContext& context)
    : context_(context), clock_(*context.profile, context.node_time_ns) {
  const size_t value_count = context.graph->values.size();
  compute_index_.assign(static_cast<size_t>(context.step_count()), -1);
  open_interval_.assign(value_count, -1);
  store_step_.assign(value_count, -1);
  stored_copy_.assign(value_count, -1);
  last_reader_.assign(value_count, -1);
  home_used_.assign(value_count, 0);
  dirty_.assign(value_count, 0);
  staged_hop_.assign(value_count, -1);
  plan_.order = context.order;
  plan_.node_time_ns = context.node_time_ns;
}

int32_t PlanBuilder::Append(PlanStep step, std::vector<int32_t> waits) {
  Normalise(waits);
  step.waits_for = std::move(waits);
  // The step's simulated times, as Simulate will replay them (each depends only on the steps
  // before it): Transfer picks the channel that frees first from them.
  clock_.Add(step);
  plan_.steps.push_back(std::move(step));
  return last_step();
}

void PlanBuilder::Open(ValueId value, Step first_step, int32_t opened_by) {
  if (open_interval_[value] >= 0) {
    throw Error(ErrorKind::kInternal, "baseline: '" + context_.graph->values[value].name +
                                          "' is already resident at step " +
                                          std::to_string(first_step));
  }
  ResidentInterval interval;
  interval.value = value;
  interval.first_step = first_step;
  interval.last_step = first_step;
  interval.bytes = context_.graph->values[value].bytes;
  interval.opened_by = opened_by;
  open_interval_[value] = static_cast<int32_t>(plan_.residency.size());
  plan_.residency.push_back(interval);
}

void PlanBuilder::Close(ValueId value, Step last_step, int32_t closed_by) {
  const int32_t open = open_interval_[value];
  if (open < 0 || plan_.residency[open].first_step > last_step) {
    throw Error(ErrorKind::kInternal, "baseline: '" + context_.graph->values[value].name +
                                          "' cannot leave the device after step " +
                                          std::to_string(last_step));
  }
  plan_.residency[open].last_step = last_step;
  plan_.residency[open].closed_by = closed_by;
  open_interval_[value] = -1;
}

void PlanBuilder::OpenAtStart(ValueId value) {
  // A run of no steps holds nothing on the device (as the planner's plan of it): an interval
  // opened here would start at step 0 and could close only after step -1.
  if (context_.step_count() == 0) return;
  if (Sized(context_.graph->values[value])) Open(value, 0, -1);
}

void PlanBuilder::CloseAfterCompute(ValueId value, Step last_step) {
  Close(value, last_step, compute_index_[last_step]);
}

bool PlanBuilder::HasOffCopy(ValueId value) const {
  return (context_.homes.Homed(value) && !dirty_[value]) || store_step_[value] >= 0;
}

int32_t PlanBuilder::Opener(ValueId value) const {
  const int32_t open = open_interval_[value];
  return open < 0 ? -1 : plan_.residency[open].opened_by;
}

int32_t PlanBuilder::Compute(Step k, std::vector<int32_t> waits) {
  if (k != next_compute_) {
    throw Error(ErrorKind::kInternal, "baseline: compute step " + std::to_string(k) +
                                          " out of order (expected " +
                                          std::to_string(next_compute_) + ")");
  }
  const Graph& graph = *context_.graph;
  const Node& node = graph.nodes[context_.order[k]];
  for (ValueId input : node.inputs) {
    if (!Sized(graph.values[input])) continue;
    if (open_interval_[input] < 0) {
      throw Error(ErrorKind::kInternal, "baseline: node '" + node.name + "' reads '" +
                                            graph.values[input].name +
                                            "', which is not on the device");
    }
    const int32_t opener = Opener(input);
    if (opener >= 0 && plan_.steps[opener].kind == StepKind::kPrefetch) waits.push_back(opener);
  }
  const NodeId node_id = context_.order[k];
  PlanStep step;
  step.kind = StepKind::kCompute;
  step.node = node_id;
  step.boundary = k;
  const int32_t index = Append(std::move(step), std::move(waits));
  compute_index_[k] = index;
  last_stream_ = index;
  ++next_compute_;
  for (ValueId output : node.outputs) {
    if (Sized(graph.values[output])) Open(output, k, index);
  }
  for (ValueId input : node.inputs) {
    if (graph.values[input].written_by == node_id) dirty_[input] = 1;
  }
  return index;
}

int32_t PlanBuilder::Detach(ValueId value, Step boundary, std::vector<int32_t> waits) {
  if (!HasOffCopy(value)) {
    throw Error(ErrorKind::kInternal, "baseline: Detach of '" + context_.graph->values[value].name +
                                          "', which has no copy off the device");
  }
  waits.push_back(store_step_[value]);
  PlanStep step;
  step.kind = StepKind::kDetach;
  step.value = value;
  step.src_tier = context_.profile->device_tier;
  step.bytes = context_.graph->values[value].bytes;
  step.boundary = boundary;
  const int32_t index = Append(std::move(step), std::move(waits));
  last_stream_ = index;
  if (context_.homes.Homed(value)) home_used_[value] = 1;
  Close(value, boundary - 1, index);
  return index;
}

int32_t PlanBuilder::Evict(ValueId value, Step boundary, std::vector<int32_t> waits) {
  if (!HasOffCopy(value)) {
    Store(value, boundary, waits);
    waits = {last_step()};
  }
  return Detach(value, boundary, std::move(waits));
}

int32_t PlanBuilder::Transfer(StepKind kind, ValueId value, int32_t link, Step boundary,
                              std::vector<int32_t> waits, int64_t bytes) {
  const Link& spec = context_.profile->links[link];
  PlanStep step;
  step.kind = kind;
  step.value = value;
  step.src_tier = spec.from;
  step.dst_tier = spec.to;
  step.link = link;
  // The channel that frees first (the lowest of equals): a lone transfer on an idle link
  // still gets one channel's share, but a backlog spreads over every channel.
  const std::span<const int64_t> free_ns = clock_.channel_free_ns(link);
  step.channel =
      static_cast<int32_t>(std::min_element(free_ns.begin(), free_ns.end()) - free_ns.begin());
  step.bytes = bytes;
  step.boundary = boundary;
  return Append(std::move(step), std::move(waits));
}

int32_t PlanBuilder::FetchHops(ValueId value, const Route& route, size_t first, size_t last,
                               Step boundary, std::vector<int32_t> waits, int32_t previous) {
  const int64_t bytes = context_.graph->values[value].bytes;
  for (size_t h = first; h < last; ++h) {
    std::vector<int32_t> hop_waits = h == first ? std::move(waits) : std::vector<int32_t>{};
    if (previous >= 0) hop_waits.push_back(previous);
    // Every hop is issued at the boundary: it waits for the compute stream to reach it. For the
    // device hop that is the format's rule (it never allocates before the frees accounted
    // before that step); for an earlier hop it keeps the staging copy from running ahead.
    if (h == first || h + 1 == route.size()) hop_waits.push_back(last_stream_);
    const int32_t hop = Transfer(StepKind::kPrefetch, value, route[h], boundary, hop_waits, bytes);
    if (h == 0) {
      if (context_.homes.Homed(value)) {
        home_used_[value] = 1;
      } else {
        last_reader_[value] = hop;
      }
    }
    if (previous >= 0) AddStagingCopy(value, route[h - 1], bytes, previous, hop);
    previous = hop;
  }
  return previous;
}

int32_t PlanBuilder::Fetch(ValueId value, Step boundary, std::vector<int32_t> waits) {
  const ValueHomes& homes = context_.homes;
  const TierId source = homes.OffTier(value);
  if (source == kNoTier || !HasOffCopy(value) || !context_.routes.to_device[source]) {
    throw Error(ErrorKind::kInternal,
                "baseline: no copy of '" + context_.graph->values[value].name + "' to fetch");
  }
  const Route& route = *context_.routes.to_device[source];
  waits.push_back(store_step_[value]);
  const int32_t staged = staged_hop_[value];
  staged_hop_[value] = -1;
  const size_t first = staged >= 0 ? route.size() - 1 : 0;
  const int32_t device_hop =
      FetchHops(value, route, first, route.size(), boundary, std::move(waits), staged);
  Open(value, boundary, device_hop);
  return device_hop;
}

int32_t PlanBuilder::Stage(ValueId value, Step boundary, std::vector<int32_t> waits) {
  const TierId source = context_.homes.OffTier(value);
  if (source == kNoTier || !HasOffCopy(value) || !context_.routes.to_device[source] ||
      staged_hop_[value] >= 0) {
    throw Error(ErrorKind::kInternal,
                "baseline: no copy of '" + context_.graph->values[value].name + "' to stage");
  }
  const Route& route = *context_.routes.to_device[source];
  if (route.size() < 2) return -1;
  waits.push_back(store_step_[value]);
  staged_hop_[value] = FetchHops(value, route, 0, route.size() - 1, boundary, std::move(waits), -1);
  return staged_hop_[value];
}

void PlanBuilder::AddStagingCopy(ValueId value, int32_t link, int64_t bytes, int32_t written_by,
                                 int32_t read_by) {
  plan_.tier_copies.push_back(
      {value, context_.profile->links[link].to, bytes, written_by, read_by});
}

int32_t PlanBuilder::StoreHops(ValueId value, const Route& route, Step boundary,
                               std::vector<int32_t> waits, int64_t bytes) {
  int32_t previous = -1;
  for (size_t h = 0; h < route.size(); ++h) {
    std::vector<int32_t> hop_waits = h == 0 ? std::move(waits) : std::vector<int32_t>{previous};
    const int32_t hop = Transfer(StepKind::kStore, value, route[h], boundary, hop_waits, bytes);
    if (previous >= 0) AddStagingCopy(value, route[h - 1], bytes, previous, hop);
    previous = hop;
  }
  return previous;
}

int32_t PlanBuilder::Store(ValueId value, Step boundary, std::vector<int32_t> waits) {
  if (dirty_[value]) return WriteBack(value, boundary, std::move(waits));
  const TierId target = context_.homes.store_tier[value];
  if (target == kNoTier || store_step_[value] >= 0 || !context_.routes.from_device[target]) {
    throw Error(ErrorKind::kInternal,
                "baseline: '" + context_.graph->values[value].name + "' cannot be stored");
  }
  const Route& route = *context_.routes.from_device[target];
  const Value& info = context_.graph->values[value];
  if (info.producer != kNoNode) {
    waits.push_back(compute_index_[context_.lifetimes.step_of_node[info.producer]]);
  }
  const int32_t previous = StoreHops(value, route, boundary, std::move(waits), info.bytes);
  store_step_[value] = previous;
  stored_copy_[value] = static_cast<int32_t>(plan_.tier_copies.size());
  plan_.tier_copies.push_back({value, target, info.bytes, previous, -1});
  return previous;
}

// The Store of an in-place update: the changed bytes, into the home copy (no new copy).
int32_t PlanBuilder::WriteBack(ValueId value, Step boundary, std::vector<int32_t> waits) {
  const Value& info = context_.graph->values[value];
  const TierId home = context_.homes.home_tier[value];
  if (home == kNoTier || store_step_[value] >= 0 || !context_.routes.from_device[home]) {
    throw Error(ErrorKind::kInternal,
                "baseline: the update of '" + info.name + "' cannot be written back");
  }
  const Route& route = *context_.routes.from_device[home];
  waits.push_back(compute_index_[context_.lifetimes.step_of_node[info.written_by]]);
  const int32_t previous = StoreHops(value, route, boundary, std::move(waits), info.written_bytes);
  store_step_[value] = previous;
  dirty_[value] = 0;
  home_used_[value] = 1;
  return previous;
}

// A persistent value resident at the end that did not start resident leaves after the last
// step (written back first when updated in place), so the iteration ends as it began.
void PlanBuilder::CloseLoop() {
  const Step step_count = context_.step_count();
  for (size_t id = 0; id < context_.persistent.size(); ++id) {
    const auto value = static_cast<ValueId>(id);
    if (!context_.persistent[id] || open_interval_[id] < 0 || Opener(value) < 0) continue;
    Evict(value, step_count);
  }
}

PlanDraft PlanBuilder::Draft(const FinishOptions& options) {
  const Graph& graph = *context_.graph;
  const Step step_count = context_.step_count();
  if (next_compute_ != step_count) {
    throw Error(ErrorKind::kInternal, "baseline: not every node has a compute step");
  }
  if (context_.periodic) CloseLoop();
  for (size_t id = 0; id < graph.values.size(); ++id) {
    if (open_interval_[id] >= 0) Close(static_cast<ValueId>(id), step_count - 1, -1);
    if (home_used_[id]) {
      plan_.tier_copies.push_back(
          {static_cast<ValueId>(id), context_.homes.home_tier[id], graph.values[id].bytes, -1, -1});
    }
    // A stored copy lives until its last reader, or to the run's end for an output (the
    // caller reads it there) and for one nobody fetched back.
    const int32_t copy = stored_copy_[id];
    if (copy >= 0 && !graph.values[id].is_graph_output && last_reader_[id] >= 0) {
      plan_.tier_copies[copy].closed_by = last_reader_[id];
    }
  }
  AddBodyScratch(graph, context_.order, compute_index_, plan_.residency);
  plan_.offload_enabled = options.offload_enabled;
  plan_.budget_bytes = options.budget_bytes;
  plan_.periodic = context_.periodic;
  plan_.aliases = context_.aliases;
  return PlanDraft{std::move(plan_)};
}

int64_t DraftLivePeakBytes(const PlanDraft& draft) {
  const Plan& plan = draft.plan;
  const std::vector<int64_t> live =
      LiveBytesPerStep(plan.residency, static_cast<Step>(plan.order.size()));
  return live.empty() ? 0 : std::max<int64_t>(0, *std::max_element(live.begin(), live.end()));
}

EvaluatedPlan CompletePlan(const ContenderContext& context, PlanDraft draft) {
  const Graph& graph = *context.graph;
  const HardwareProfile& profile = *context.profile;
  EvaluatedPlan planned = FinishPlan(graph, profile, LayoutOptions{},
                                     {context.baseline_peak_bytes, context.baseline_arena_bytes},
                                     std::move(draft.plan));
  // A contender plans by replaying as it goes: its planned times are the replay's.
  Plan& plan = planned.plan;
  const SimulationResult& timeline = planned.evaluation.timeline;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    plan.steps[i].planned_start_ns = timeline.steps[i].start_ns;
    plan.steps[i].planned_end_ns = timeline.steps[i].end_ns;
  }
  planned.evaluation.cold_start = ComputeColdStart(graph, profile, context.homes, plan);
  return planned;
}

}  // namespace hyperplan::contenders
