// Selection -> Plan (see assemble.h).
#include "planner/assemble.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include "hyperplan/plan/evaluation.h"

namespace hyperplan::planner {
namespace {

enum Group : int { kStoreGroup = 0, kDetachGroup = 1, kPrefetchGroup = 2, kComputeGroup = 3 };

struct Pending {
  PlanStep step;
  int group = kComputeGroup;
  int32_t placement = -1;
  int32_t hop = -1;
};

bool SequencedBefore(const Pending& a, const Pending& b) {
  return std::tie(a.step.boundary, a.group, a.step.planned_start_ns, a.step.link, a.step.channel,
                  a.step.value, a.placement,
                  a.hop) < std::tie(b.step.boundary, b.group, b.step.planned_start_ns, b.step.link,
                                    b.step.channel, b.step.value, b.placement, b.hop);
}

PlanStep TransferStep(StepKind kind, ValueId value, int64_t bytes, const HopPlacement& hop) {
  PlanStep step;
  step.kind = kind;
  step.value = value;
  step.src_tier = hop.src_tier;
  step.dst_tier = hop.dst_tier;
  step.link = hop.link;
  step.channel = hop.slot.channel;
  step.bytes = bytes;
  step.boundary = hop.boundary;
  step.planned_start_ns = hop.slot.start_ns;
  step.planned_end_ns = hop.slot.end_ns;
  return step;
}

void AddWait(std::vector<int32_t>& waits, int32_t step) {
  if (step >= 0) waits.push_back(step);
}

void Normalise(std::vector<int32_t>& waits) {
  std::sort(waits.begin(), waits.end());
  waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
}

std::string OffloadedDetail(const Placement& placement) {
  std::string detail = "frees steps " + std::to_string(placement.freed_first) + ".." +
                       std::to_string(placement.freed_last);
  if (!placement.prefetch_hops.empty()) {
    detail +=
        ", Prefetch issued before step " + std::to_string(placement.prefetch_hops.back().boundary);
  }
  detail += ", predicted stall " + std::to_string(placement.stall_ns) + " ns";
  return detail;
}

}  // namespace

Plan AssemblePlan(const PlanContext& context, const Selection& selection,
                  const AssembleOptions& options) {
  const Graph& graph = *context.graph;
  const HardwareProfile& profile = *context.profile;
  const Step step_count = context.step_count();
  const std::vector<int64_t>& start_ns = context.cost.step_start_ns;
  const std::vector<Candidate>& candidates = context.candidates.candidates;
  const size_t placement_count = std::min(options.placement_count, selection.placements.size());

  Plan plan;
  plan.order = context.order;
  plan.periodic = !context.persistent.empty();  // the layout keeps a loop's wrapped blocks whole
  plan.reordered = context.reordered;
  if (plan.reordered) plan.order_name = context.order_name;
  plan.offload_enabled = options.offload_enabled;
  plan.budget_bytes = options.budget_bytes;
  plan.node_time_ns = context.cost.node_time_ns;

  // 1. Every step, then the sequence.
  std::vector<Pending> pending;
  pending.reserve(static_cast<size_t>(step_count) + 4 * placement_count);
  for (Step k = 0; k < step_count; ++k) {
    Pending compute;
    compute.step.kind = StepKind::kCompute;
    compute.step.node = context.order[k];
    compute.step.boundary = k;
    compute.step.planned_start_ns = start_ns[k];
    compute.step.planned_end_ns = start_ns[k + 1];
    pending.push_back(std::move(compute));
  }
  for (size_t j = 0; j < placement_count; ++j) {
    const Placement& placement = selection.placements[j];
    const Candidate& candidate = candidates[placement.candidate];
    for (size_t h = 0; h < placement.store_hops.size(); ++h) {
      pending.push_back({TransferStep(StepKind::kStore, candidate.value, candidate.store_bytes,
                                      placement.store_hops[h]),
                         kStoreGroup, static_cast<int32_t>(j), static_cast<int32_t>(h)});
    }
    if (placement.detach_boundary >= 0) {
      Pending detach;
      detach.step.kind = StepKind::kDetach;
      detach.step.value = candidate.value;
      detach.step.src_tier = profile.device_tier;
      detach.step.bytes = candidate.bytes;
      detach.step.boundary = placement.detach_boundary;
      detach.step.planned_start_ns = placement.detach_start_ns;
      detach.step.planned_end_ns = placement.detach_start_ns;
      detach.group = kDetachGroup;
      detach.placement = static_cast<int32_t>(j);
      pending.push_back(std::move(detach));
    }
    for (size_t h = 0; h < placement.prefetch_hops.size(); ++h) {
      pending.push_back({TransferStep(StepKind::kPrefetch, candidate.value, candidate.bytes,
                                      placement.prefetch_hops[h]),
                         kPrefetchGroup, static_cast<int32_t>(j), static_cast<int32_t>(h)});
    }
  }
  std::sort(pending.begin(), pending.end(), SequencedBefore);

  std::vector<int32_t> compute_index(static_cast<size_t>(step_count), -1);
  std::vector<std::vector<int32_t>> store_index(placement_count);
  std::vector<int32_t> detach_index(placement_count, -1);
  std::vector<std::vector<int32_t>> prefetch_index(placement_count);
  for (size_t j = 0; j < placement_count; ++j) {
    store_index[j].resize(selection.placements[j].store_hops.size(), -1);
    prefetch_index[j].resize(selection.placements[j].prefetch_hops.size(), -1);
  }
  plan.steps.reserve(pending.size());
  for (size_t i = 0; i < pending.size(); ++i) {
    const Pending& p = pending[i];
    const auto index = static_cast<int32_t>(i);
    switch (p.group) {
      case kComputeGroup:
        compute_index[p.step.boundary] = index;
        break;
      case kStoreGroup:
        store_index[p.placement][p.hop] = index;
        break;
      case kDetachGroup:
        detach_index[p.placement] = index;
        break;
      default:
        prefetch_index[p.placement][p.hop] = index;
        break;
    }
    plan.steps.push_back(p.step);
  }

  // 2. Placements per value, in gap order, and each stored value's final Store hop.
  std::vector<int32_t> by_value(placement_count);
  for (size_t j = 0; j < placement_count; ++j) by_value[j] = static_cast<int32_t>(j);
  std::sort(by_value.begin(), by_value.end(), [&](int32_t a, int32_t b) {
    const Candidate& ca = candidates[selection.placements[a].candidate];
    const Candidate& cb = candidates[selection.placements[b].candidate];
    return std::tie(ca.value, ca.after_step) < std::tie(cb.value, cb.after_step);
  });
  std::vector<int32_t> final_store(graph.values.size(), -1);
  for (size_t j = 0; j < placement_count; ++j) {
    if (!store_index[j].empty()) {
      final_store[candidates[selection.placements[j].candidate].value] = store_index[j].back();
    }
  }

  // 3. Device residency.
  const LifetimeAnalysis& lifetimes = context.lifetimes;
  std::vector<std::vector<int32_t>> intervals_of(graph.values.size());
  auto add_interval = [&](ValueId value, Step first, Step last, int32_t opened_by,
                          int32_t closed_by) {
    ResidentInterval interval;
    interval.value = value;
    interval.first_step = first;
    interval.last_step = last;
    interval.bytes = graph.values[value].bytes;
    interval.opened_by = opened_by;
    interval.closed_by = closed_by;
    intervals_of[value].push_back(static_cast<int32_t>(plan.residency.size()));
    plan.residency.push_back(interval);
  };
  size_t cursor = 0;  // into by_value
  for (size_t id = 0; id < graph.values.size() && step_count > 0; ++id) {
    const auto value = static_cast<ValueId>(id);
    const Value& info = graph.values[id];
    const size_t begin = cursor;
    while (cursor < by_value.size() &&
           candidates[selection.placements[by_value[cursor]].candidate].value == value) {
      ++cursor;
    }
    if (!info.size_known || info.bytes <= 0) continue;
    const Lifetime& lifetime = lifetimes.lifetimes[id];
    const bool produced = info.producer != kNoNode;
    const bool to_run_end = !produced || info.is_graph_output;
    bool open = true;
    Step first = produced ? lifetime.def_step : 0;
    int32_t opened_by = produced ? compute_index[lifetime.def_step] : -1;
    if (begin < cursor) {
      const Candidate& lead = candidates[selection.placements[by_value[begin]].candidate];
      if (StartsOffTheDevice(lead)) open = false;
    }
    for (size_t k = begin; k < cursor; ++k) {
      const int32_t j = by_value[k];
      const Placement& placement = selection.placements[j];
      if (placement.detach_boundary >= 0 && open) {
        add_interval(value, first, placement.detach_boundary - 1, opened_by, detach_index[j]);
        open = false;
      }
      if (!placement.prefetch_hops.empty()) {
        open = true;
        first = placement.prefetch_hops.back().boundary;
        opened_by = prefetch_index[j].back();
      }
    }
    if (open) {
      const Step last = lifetime.baseline_last_step;
      add_interval(value, first, last, opened_by, to_run_end ? -1 : compute_index[last]);
    }

    // Off-device copies of this value.
    if (begin == cursor) continue;
    const Candidate& any = candidates[selection.placements[by_value[begin]].candidate];
    if (any.homed) {
      plan.tier_copies.push_back({value, any.tier, info.bytes, -1, -1});
    }
    int32_t last_read = -1;  // the last Prefetch reading the stored copy
    bool kept_to_end = false;
    for (size_t k = begin; k < cursor; ++k) {
      const int32_t j = by_value[k];
      const Placement& placement = selection.placements[j];
      if (placement.prefetch_hops.empty()) {
        kept_to_end = true;
      } else {
        last_read = std::max(last_read, prefetch_index[j].front());
        for (size_t h = 0; h + 1 < placement.prefetch_hops.size(); ++h) {
          plan.tier_copies.push_back({value, placement.prefetch_hops[h].dst_tier, info.bytes,
                                      prefetch_index[j][h], prefetch_index[j][h + 1]});
        }
      }
    }
    for (size_t k = begin; k < cursor; ++k) {
      const int32_t j = by_value[k];
      const Placement& placement = selection.placements[j];
      for (size_t h = 0; h < placement.store_hops.size(); ++h) {
        const bool final_hop = h + 1 == placement.store_hops.size();
        if (final_hop && any.homed) break;  // an in-place write goes back into the home copy
        const int32_t closed_by =
            !final_hop ? store_index[j][h + 1] : (kept_to_end ? -1 : last_read);
        plan.tier_copies.push_back(
            {value, placement.store_hops[h].dst_tier, info.bytes, store_index[j][h], closed_by});
      }
    }
  }
  AddBodyScratch(graph, context.order, compute_index, plan.residency);

  // 4. Waits.
  // A gap relies on the value's Store unless its copy elsewhere is a home copy that is current
  // (a weight, or state before its in-place update).
  // A gap before a value's in-place write relies on the Store after that write, made in the
  // previous iteration (candidates.h): nothing in this one waits for it.
  auto reads_store = [&](const Pending& p) {
    const Candidate& candidate = candidates[selection.placements[p.placement].candidate];
    return candidate.needs_store && !candidate.write_back_last_iteration;
  };
  int32_t last_compute = -1;
  int32_t last_stream = -1;  // compute or Detach
  for (size_t i = 0; i < pending.size(); ++i) {
    const Pending& p = pending[i];
    PlanStep& step = plan.steps[i];
    const auto index = static_cast<int32_t>(i);
    switch (p.group) {
      case kComputeGroup: {
        const Node& node = graph.nodes[step.node];
        for (ValueId input : node.inputs) {
          const auto& list = intervals_of[input];
          for (int32_t r : list) {
            const ResidentInterval& interval = plan.residency[r];
            if (interval.first_step <= step.boundary && step.boundary <= interval.last_step &&
                interval.opened_by >= 0 &&
                plan.steps[interval.opened_by].kind == StepKind::kPrefetch) {
              AddWait(step.waits_for, interval.opened_by);
            }
          }
        }
        last_compute = index;
        last_stream = index;
        break;
      }
      case kStoreGroup: {
        if (p.hop == 0) {
          const Value& stored = graph.values[step.value];
          const NodeId writer = stored.producer != kNoNode ? stored.producer : stored.written_by;
          const bool before_writer =
              candidates[selection.placements[p.placement].candidate].write_back_at_start;
          if (writer != kNoNode && !before_writer) {
            AddWait(step.waits_for, compute_index[lifetimes.step_of_node[writer]]);
          }
          AddWait(step.waits_for, last_compute);
        } else {
          AddWait(step.waits_for, store_index[p.placement][p.hop - 1]);
        }
        break;
      }
      case kDetachGroup:
        if (reads_store(p)) AddWait(step.waits_for, final_store[step.value]);
        last_stream = index;
        break;
      default:
        AddWait(step.waits_for, last_stream);
        if (p.hop == 0) {
          if (reads_store(p)) AddWait(step.waits_for, final_store[step.value]);
        } else {
          AddWait(step.waits_for, prefetch_index[p.placement][p.hop - 1]);
        }
        break;
    }
    Normalise(step.waits_for);
  }

  // 5. Decisions: every candidate, then the values that had none.
  std::vector<int32_t> placement_of(candidates.size(), -1);
  for (size_t j = 0; j < placement_count; ++j) {
    placement_of[selection.placements[j].candidate] = static_cast<int32_t>(j);
  }
  plan.decisions.reserve(candidates.size() + context.candidates.pinned.size());
  for (size_t c = 0; c < candidates.size(); ++c) {
    const Candidate& candidate = candidates[c];
    Decision decision;
    decision.value = candidate.value;
    decision.gap_after_step = candidate.after_step;
    decision.gap_before_step = candidate.before_step;
    decision.tier = candidate.tier;
    decision.bytes = candidate.bytes;
    decision.gap_ns = candidate.gap_ns;
    decision.transfer_ns = candidate.store_ns + candidate.prefetch_ns;
    if (placement_of[c] >= 0) {
      const Placement& placement = selection.placements[placement_of[c]];
      decision.reason = DecisionReason::kOffloaded;
      decision.freed_first_step = placement.freed_first;
      decision.freed_last_step = placement.freed_last;
      decision.predicted_stall_ns = placement.stall_ns;
      decision.detail = OffloadedDetail(placement);
    } else if (selection.reason[c] == DecisionReason::kOffloaded) {
      decision.reason = DecisionReason::kStallOverLimit;
      decision.detail = "dropped: with it the simulated slowdown exceeded the overhead limit";
    } else {
      decision.reason = selection.reason[c];
      decision.detail = selection.detail[c];
      if (decision.reason == DecisionReason::kNotNeeded && decision.detail.empty()) {
        decision.detail = "not needed: the peak was settled without it";
      }
    }
    plan.decisions.push_back(std::move(decision));
  }
  for (const Decision& pinned : context.candidates.pinned) plan.decisions.push_back(pinned);
  std::stable_sort(
      plan.decisions.begin(), plan.decisions.end(), [](const Decision& a, const Decision& b) {
        return std::tie(a.value, a.gap_after_step) < std::tie(b.value, b.gap_after_step);
      });

  // 6. Layout and evaluation.
  FinishPlan(graph, profile, context.layout,
             {options.baseline_peak_bytes, options.baseline_arena_bytes}, plan);
  return plan;
}

}  // namespace hyperplan::planner
