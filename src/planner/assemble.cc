// Selection -> Plan (see assemble.h).
#include "planner/assemble.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include "hyperplan/cost.h"
#include "hyperplan/error.h"
#include "hyperplan/plan/evaluation.h"
#include "planner/crossing_detaches.h"
#include "planner/host_crossings.h"

namespace hyperplan::planner {
namespace {

// Crossings (host_crossings.h) come last before the compute step of their boundary: a Store
// to the host after the Prefetch that brought the value back, a Prefetch from it after the
// planner's own. (A crossing Prefetch first at its boundary, so that no planner Prefetch
// issued there queues ahead of it, changed nothing on Llama-3-70B int4 decode on rtx-4090 and
// slowed 70B 32k decode on the supernode, 78.6 -> 79.2 ms.)
enum Group : int {
  kStoreGroup = 0,
  kDetachGroup = 1,
  kPrefetchGroup = 2,
  kCrossingGroup = 3,
  kComputeGroup = 4
};

struct Pending {
  PlanStep step;
  int group = kComputeGroup;
  int32_t placement = -1;
  int32_t hop = -1;
  bool crossing = false;  // a unit crossing (host_crossings.h), of no placement
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

// The gap's own fields of its decision (what it would free and cost), the verdict aside.
Decision GapDecision(const Candidate& candidate) {
  Decision decision;
  decision.value = candidate.value;
  decision.gap_after_step = candidate.after_step;
  decision.gap_before_step = candidate.before_step;
  decision.tier = candidate.tier;
  decision.bytes = candidate.bytes;
  decision.gap_ns = candidate.gap_ns;
  decision.transfer_ns = candidate.store_ns + candidate.prefetch_ns;
  return decision;
}

// Section 6: the arena layout, the replay and the summary of the assembled plan.
EvaluatedPlan FinishAssembledPlan(const PlanContext& context, const AssembleOptions& options,
                                  Plan plan) {
  return FinishPlan(*context.graph, *context.profile, context.layout,
                    {options.baseline_peak_bytes, options.baseline_arena_bytes}, std::move(plan));
}

// Builds one plan from a selection, section by section (assemble.h); each section reads what
// the ones before it indexed.
class Assembler {
 public:
  Assembler(const PlanContext& context, const Selection& selection, const AssembleOptions& options)
      : context_(context),
        selection_(selection),
        options_(options),
        graph_(*context.graph),
        candidates_(context.candidates.candidates),
        step_count_(context.step_count()),
        placement_count_(std::min(std::max(options.placement_count, selection.must_take_count),
                                  selection.placements.size())),
        crossings_(context.crossings) {}

  // `moved_detaches`: by ValueId, the boundary of each crossing Detach that moves
  // (CrossingDetachBoundaries, crossing_detaches.h), -1 where it stays; empty: none moves.
  Assembler(const PlanContext& context, const Selection& selection, const AssembleOptions& options,
            std::vector<Step> moved_detaches)
      : Assembler(context, selection, options) {
    moved_detaches_ = std::move(moved_detaches);
  }

  EvaluatedPlan Run() {
    Build();
    AddWaits();
    AddDecisions();
    return FinishAssembledPlan(context_, options_, std::move(plan_));
  }

  // Where the crossing Detaches move, from this plan's steps and residency (each Detach right
  // after its value's last host read): a probe, Run is not called after it.
  std::vector<Step> MovedCrossingDetaches() {
    Build();
    std::vector<CrossingDetach> detaches;
    for (size_t id = 0; id < crossing_detach_index_.size(); ++id) {
      if (crossing_detach_index_[id] < 0) continue;
      detaches.push_back(
          {static_cast<ValueId>(id), crossing_detach_index_[id], crossing_store_index_[id]});
    }
    return CrossingDetachBoundaries(context_, plan_, std::move(detaches));
  }

 private:
  const Candidate& CandidateOf(int32_t placement) const {
    return candidates_[selection_.placements[placement].candidate];
  }

  // Sections 1-3: the steps in sequence order, the device residency and the tier copies.
  void Build() {
    StartPlan();
    Sequence();
    GroupByValue();
    AddResidency();
  }

  void StartPlan() {
    plan_.order = context_.order;
    plan_.periodic =
        !context_.persistent.empty();  // the layout keeps a loop's wrapped blocks whole
    plan_.reordered = context_.reordered;
    if (plan_.reordered) plan_.order_name = context_.order_name;
    plan_.offload_enabled = options_.offload_enabled;
    plan_.budget_bytes = options_.budget_bytes;
    plan_.node_time_ns = context_.cost.node_time_ns;
  }

  // Section 1: every step (compute steps, then each placement's transfers), in sequence order.
  void Sequence() {
    PendComputeSteps();
    for (size_t j = 0; j < placement_count_; ++j) PendTransfers(static_cast<int32_t>(j));
    if (!crossings_.empty()) PendCrossings();
    std::sort(pending_.begin(), pending_.end(), SequencedBefore);
    IndexSteps();
  }

  void PendComputeSteps() {
    const std::vector<int64_t>& start_ns = context_.cost.step_start_ns;
    pending_.reserve(static_cast<size_t>(step_count_) + 4 * placement_count_);
    for (Step k = 0; k < step_count_; ++k) {
      Pending compute;
      compute.step.kind = StepKind::kCompute;
      compute.step.node = context_.order[k];
      if (context_.units.OnHost(compute.step.node)) {
        compute.step.unit = ComputeUnit::kHost;
        compute.step.device_time_ns = context_.units.device_time_ns[compute.step.node];
      }
      compute.step.boundary = k;
      compute.step.planned_start_ns = start_ns[k];
      compute.step.planned_end_ns = start_ns[k + 1];
      pending_.push_back(std::move(compute));
    }
  }

  void PendTransfers(int32_t j) {
    const Placement& placement = selection_.placements[j];
    const Candidate& candidate = candidates_[placement.candidate];
    for (size_t h = 0; h < placement.store_hops.size(); ++h) {
      pending_.push_back({TransferStep(StepKind::kStore, candidate.value, candidate.store_bytes,
                                       placement.store_hops[h]),
                          kStoreGroup, j, static_cast<int32_t>(h)});
    }
    if (placement.detach_boundary >= 0) {
      Pending detach;
      detach.step.kind = StepKind::kDetach;
      detach.step.value = candidate.value;
      detach.step.src_tier = context_.profile->device_tier;
      detach.step.bytes = candidate.bytes;
      detach.step.boundary = placement.detach_boundary;
      detach.step.planned_start_ns = placement.detach_start_ns;
      detach.step.planned_end_ns = placement.detach_start_ns;
      detach.group = kDetachGroup;
      detach.placement = j;
      pending_.push_back(std::move(detach));
    }
    for (size_t h = 0; h < placement.prefetch_hops.size(); ++h) {
      pending_.push_back({TransferStep(StepKind::kPrefetch, candidate.value, candidate.bytes,
                                       placement.prefetch_hops[h]),
                          kPrefetchGroup, j, static_cast<int32_t>(h)});
    }
  }

  // One crossing hop on channel 0 of `link`, planned at its boundary's stall-free start.
  void PendCrossing(StepKind kind, ValueId value, Step boundary, int32_t link) {
    Pending crossing;
    crossing.group = kCrossingGroup;
    crossing.crossing = true;
    PlanStep& step = crossing.step;
    step.kind = kind;
    step.value = value;
    step.link = link;
    step.channel = 0;
    step.src_tier = context_.profile->links[link].from;
    step.dst_tier = context_.profile->links[link].to;
    step.bytes = graph_.values[value].bytes;
    step.boundary = boundary;
    step.planned_start_ns = context_.cost.step_start_ns[boundary];
    step.planned_end_ns =
        step.planned_start_ns + ChannelTransferTimeNs(context_.profile->links[link], step.bytes);
    pending_.push_back(std::move(crossing));
  }

  // A Detach right after a host step that was the last read of a device value: its crossing
  // Store read the device copy, and a device block is freed by a device-stream step (a host
  // step freeing it would let the device reuse the block while the host still runs).
  void PendCrossingDetach(ValueId value, Step boundary) {
    Pending detach;
    detach.group = kDetachGroup;
    detach.crossing = true;
    detach.step.kind = StepKind::kDetach;
    detach.step.value = value;
    detach.step.src_tier = context_.profile->device_tier;
    detach.step.bytes = graph_.values[value].bytes;
    detach.step.boundary = boundary;
    detach.step.planned_start_ns = context_.cost.step_start_ns[boundary];
    detach.step.planned_end_ns = detach.step.planned_start_ns;
    pending_.push_back(std::move(detach));
  }

  // Whether the value's device residency would end at a host step (its last read).
  bool EndsAtHostRead(ValueId value) const {
    const Lifetime& lifetime = context_.lifetimes.lifetimes[value];
    const Value& info = graph_.values[value];
    const bool to_run_end = info.producer == kNoNode || info.is_graph_output;
    return lifetime.on_device && !lifetime.crosses_in && !to_run_end &&
           context_.units.OnHost(context_.order[lifetime.baseline_last_step]);
  }

  // Section 1b: a Store before the first host read of each device value a host node reads
  // (and a Detach after its last read, when a host step is that), a Prefetch before the first
  // device read of each value a host node writes.
  void PendCrossings() {
    for (size_t id = 0; id < graph_.values.size(); ++id) {
      const auto value = static_cast<ValueId>(id);
      if (crossings_.store_boundary[id] >= 0) {
        PendCrossing(StepKind::kStore, value, crossings_.store_boundary[id], crossings_.store_link);
        if (EndsAtHostRead(value)) {
          const Step moved = moved_detaches_.empty() ? -1 : moved_detaches_[id];
          PendCrossingDetach(
              value, moved >= 0 ? moved : context_.lifetimes.lifetimes[id].baseline_last_step + 1);
        }
      }
      const Lifetime& lifetime = context_.lifetimes.lifetimes[id];
      if (lifetime.crosses_in && graph_.values[id].bytes > 0) {
        PendCrossing(StepKind::kPrefetch, value, lifetime.def_step, crossings_.prefetch_link);
      }
    }
  }

  // Where each compute step and each placement's hops landed in the sequence.
  void IndexSteps() {
    compute_index_.assign(static_cast<size_t>(step_count_), -1);
    store_index_.resize(placement_count_);
    detach_index_.assign(placement_count_, -1);
    prefetch_index_.resize(placement_count_);
    for (size_t j = 0; j < placement_count_; ++j) {
      store_index_[j].resize(selection_.placements[j].store_hops.size(), -1);
      prefetch_index_[j].resize(selection_.placements[j].prefetch_hops.size(), -1);
    }
    crossing_store_index_.assign(crossings_.empty() ? 0 : graph_.values.size(), -1);
    crossing_prefetch_index_.assign(crossings_.empty() ? 0 : graph_.values.size(), -1);
    crossing_detach_index_.assign(crossings_.empty() ? 0 : graph_.values.size(), -1);
    plan_.steps.reserve(pending_.size());
    for (size_t i = 0; i < pending_.size(); ++i) {
      const Pending& p = pending_[i];
      const auto index = static_cast<int32_t>(i);
      plan_.steps.push_back(p.step);
      if (p.crossing) {
        CrossingIndex(p.step.kind)[p.step.value] = index;
        continue;
      }
      switch (p.group) {
        case kComputeGroup:
          compute_index_[p.step.boundary] = index;
          break;
        case kStoreGroup:
          store_index_[p.placement][p.hop] = index;
          break;
        case kDetachGroup:
          detach_index_[p.placement] = index;
          break;
        default:
          prefetch_index_[p.placement][p.hop] = index;
          break;
      }
    }
  }

  std::vector<int32_t>& CrossingIndex(StepKind kind) {
    if (kind == StepKind::kStore) return crossing_store_index_;
    return kind == StepKind::kDetach ? crossing_detach_index_ : crossing_prefetch_index_;
  }

  // Section 2: placements per value, in gap order, and each stored value's final Store hop.
  void GroupByValue() {
    by_value_.resize(placement_count_);
    for (size_t j = 0; j < placement_count_; ++j) by_value_[j] = static_cast<int32_t>(j);
    std::sort(by_value_.begin(), by_value_.end(), [&](int32_t a, int32_t b) {
      const Candidate& ca = CandidateOf(a);
      const Candidate& cb = CandidateOf(b);
      return std::tie(ca.value, ca.after_step) < std::tie(cb.value, cb.after_step);
    });
    final_store_.assign(graph_.values.size(), -1);
    for (size_t j = 0; j < placement_count_; ++j) {
      if (!store_index_[j].empty()) {
        final_store_[CandidateOf(static_cast<int32_t>(j)).value] = store_index_[j].back();
      }
    }
  }

  // Section 3: device residency and off-device copies, value by value, then control-flow
  // scratch (plan.h, AddBodyScratch).
  void AddResidency() {
    intervals_of_.resize(graph_.values.size());
    size_t cursor = 0;  // into by_value_
    for (size_t id = 0; id < graph_.values.size() && step_count_ > 0; ++id) {
      const auto value = static_cast<ValueId>(id);
      const size_t begin = cursor;
      while (cursor < by_value_.size() && CandidateOf(by_value_[cursor]).value == value) ++cursor;
      const Value& info = graph_.values[id];
      if (!info.size_known || info.bytes <= 0) continue;
      const Lifetime& lifetime = context_.lifetimes.lifetimes[id];
      if (lifetime.crosses_in) {
        AddCrossedInInterval(value);
      } else if (lifetime.on_device) {
        AddDeviceIntervals(value, begin, cursor);
      }
      if (begin < cursor) AddTierCopies(value, begin, cursor);
      if (!crossings_.empty()) AddHostCopies(value, begin < cursor);
    }
    AddBodyScratch(graph_, context_.order, compute_index_, plan_.residency);
  }

  void AddInterval(ValueId value, Step first, Step last, int32_t opened_by, int32_t closed_by) {
    ResidentInterval interval;
    interval.value = value;
    interval.first_step = first;
    interval.last_step = last;
    interval.bytes = graph_.values[value].bytes;
    interval.opened_by = opened_by;
    interval.closed_by = closed_by;
    intervals_of_[value].push_back(static_cast<int32_t>(plan_.residency.size()));
    plan_.residency.push_back(interval);
  }

  // The value's device intervals: closed by each Detach, opened by each Prefetch; its
  // placements are by_value_[begin, end).
  void AddDeviceIntervals(ValueId value, size_t begin, size_t end) {
    const Value& info = graph_.values[value];
    const Lifetime& lifetime = context_.lifetimes.lifetimes[value];
    const bool produced = info.producer != kNoNode;
    const bool to_run_end = !produced || info.is_graph_output;
    bool open = true;
    Step first = produced ? lifetime.def_step : 0;
    int32_t opened_by = produced ? compute_index_[lifetime.def_step] : -1;
    if (begin < end && StartsOffTheDevice(CandidateOf(by_value_[begin]))) open = false;
    for (size_t k = begin; k < end; ++k) {
      const int32_t j = by_value_[k];
      const Placement& placement = selection_.placements[j];
      if (placement.detach_boundary >= 0 && open) {
        AddInterval(value, first, placement.detach_boundary - 1, opened_by, detach_index_[j]);
        open = false;
      }
      if (!placement.prefetch_hops.empty()) {
        open = true;
        first = placement.prefetch_hops.back().boundary;
        opened_by = prefetch_index_[j].back();
      }
    }
    if (open) {
      const int32_t crossing_detach = crossings_.empty() ? -1 : crossing_detach_index_[value];
      // Open up to the crossing Detach (CrossingDetachBoundary), else to the last read.
      const Step last = crossing_detach >= 0 ? plan_.steps[crossing_detach].boundary - 1
                                             : lifetime.baseline_last_step;
      const int32_t closer = crossing_detach >= 0 ? crossing_detach : compute_index_[last];
      AddInterval(value, first, last, opened_by, to_run_end ? -1 : closer);
    }
  }

  // A host-written value on the device: from the crossing Prefetch to its last device read.
  void AddCrossedInInterval(ValueId value) {
    const Lifetime& lifetime = context_.lifetimes.lifetimes[value];
    const Step last = lifetime.baseline_last_step;
    const bool to_run_end = graph_.values[value].is_graph_output;
    AddInterval(value, lifetime.def_step, last, crossing_prefetch_index_[value],
                to_run_end ? -1 : compute_index_[last]);
  }

  // The value's copies on the host tier that host nodes read: the crossing Store's, freed by
  // its last host reader; a host output, freed by its last reader (a host node or the
  // crossing Prefetch; a graph output at the run's end); a home copy there (unless
  // AddTierCopies, for a value the planner moves, wrote it already).
  void AddHostCopies(ValueId value, bool copies_added) {
    const Value& info = graph_.values[value];
    const TierId host = crossings_.host_tier;
    const Step last_read = crossings_.last_host_read[value];
    if (crossings_.store_boundary[value] >= 0) {
      plan_.tier_copies.push_back(
          {value, host, info.bytes, crossing_store_index_[value], compute_index_[last_read]});
    } else if (info.producer != kNoNode && context_.units.OnHost(info.producer)) {
      const int32_t closer = info.is_graph_output ? -1 : HostCopyCloser(value);
      plan_.tier_copies.push_back({value, host, info.bytes,
                                   compute_index_[context_.lifetimes.step_of_node[info.producer]],
                                   closer});
    } else if (last_read >= 0 && context_.units.read_from_home[value] &&
               !(copies_added && context_.homes.Homed(value))) {
      plan_.tier_copies.push_back({value, host, info.bytes, -1, -1});
    }
  }

  // The last reader, in sequence order, of a host output's copy; -1 when nothing reads it.
  int32_t HostCopyCloser(ValueId value) const {
    const Step last_read = crossings_.last_host_read[value];
    int32_t closer = last_read >= 0 ? compute_index_[last_read] : -1;
    closer = std::max(closer, crossing_prefetch_index_[value]);
    return closer;
  }

  // The value's off-device copies: its home copy, the staging copies between Prefetch hops,
  // and the copies its Store hops write (the last read by the last Prefetch of it).
  void AddTierCopies(ValueId value, size_t begin, size_t end) {
    const int64_t bytes = graph_.values[value].bytes;
    const bool homed = CandidateOf(by_value_[begin]).homed;
    if (homed)
      plan_.tier_copies.push_back({value, CandidateOf(by_value_[begin]).tier, bytes, -1, -1});
    int32_t last_read = -1;  // the last Prefetch reading the stored copy
    bool kept_to_end = false;
    for (size_t k = begin; k < end; ++k) {
      const int32_t j = by_value_[k];
      const Placement& placement = selection_.placements[j];
      if (placement.prefetch_hops.empty()) {
        kept_to_end = true;
        continue;
      }
      last_read = std::max(last_read, prefetch_index_[j].front());
      for (size_t h = 0; h + 1 < placement.prefetch_hops.size(); ++h) {
        plan_.tier_copies.push_back({value, placement.prefetch_hops[h].dst_tier, bytes,
                                     prefetch_index_[j][h], prefetch_index_[j][h + 1]});
      }
    }
    for (size_t k = begin; k < end; ++k) {
      const int32_t j = by_value_[k];
      const Placement& placement = selection_.placements[j];
      for (size_t h = 0; h < placement.store_hops.size(); ++h) {
        const bool final_hop = h + 1 == placement.store_hops.size();
        if (final_hop && homed) break;  // an in-place write goes back into the home copy
        const int32_t closed_by =
            !final_hop ? store_index_[j][h + 1] : (kept_to_end ? -1 : last_read);
        plan_.tier_copies.push_back(
            {value, placement.store_hops[h].dst_tier, bytes, store_index_[j][h], closed_by});
      }
    }
  }

  // Section 4: each step's waits (assemble.h), in sequence order.
  void AddWaits() {
    int32_t last_compute = -1;
    int32_t last_stream = -1;  // compute or Detach
    for (size_t i = 0; i < pending_.size(); ++i) {
      const Pending& p = pending_[i];
      PlanStep& step = plan_.steps[i];
      const auto index = static_cast<int32_t>(i);
      if (p.crossing && step.kind == StepKind::kDetach) {
        AddHostReadWaits(step, index);
        last_stream = index;
        Normalise(step.waits_for);
        continue;
      }
      switch (p.group) {
        case kComputeGroup:
          // Host steps free no device block (a crossing Detach does), so they order nothing
          // for the device's Prefetches and Stores.
          if (step.unit == ComputeUnit::kHost) {
            AddHostComputeWaits(step, index);
            break;
          }
          AddComputeWaits(step);
          last_compute = index;
          last_stream = index;
          break;
        case kCrossingGroup:
          AddCrossingWaits(step, index, last_stream);
          break;
        case kStoreGroup:
          AddStoreWaits(p, step, last_compute);
          break;
        case kDetachGroup:
          if (ReadsStore(p)) AddWait(step.waits_for, final_store_[step.value]);
          AddHostReadWaits(step, index);
          last_stream = index;
          break;
        default:
          AddWait(step.waits_for, last_stream);
          if (p.hop == 0) {
            if (ReadsStore(p)) AddWait(step.waits_for, final_store_[step.value]);
          } else {
            AddWait(step.waits_for, prefetch_index_[p.placement][p.hop - 1]);
          }
          break;
      }
      Normalise(step.waits_for);
    }
  }

  // A gap relies on the value's Store unless its copy elsewhere is a home copy that is current
  // (a weight, or state before its in-place update).
  // A gap before a value's in-place write relies on the Store after that write, made in the
  // previous iteration (candidates.h): nothing in this one waits for it.
  bool ReadsStore(const Pending& p) const {
    const Candidate& candidate = CandidateOf(p.placement);
    return candidate.needs_store && !candidate.write_back_last_iteration;
  }

  // A host step waits for the crossing Store of each device value it reads; closing a host
  // output's copy, for the crossing Prefetch that read it first (host_crossings.h).
  void AddHostComputeWaits(PlanStep& step, int32_t index) {
    for (ValueId input : graph_.nodes[step.node].inputs) {
      if (input == kNoValue || graph_.values[input].bytes <= 0) continue;
      if (crossings_.store_boundary[input] >= 0) {
        AddWait(step.waits_for, crossing_store_index_[input]);
      }
      // An update in place waits for the Prefetch that reads the home copy it overwrites.
      const int32_t prefetch = crossing_prefetch_index_[input];
      const bool updates = graph_.values[input].written_by == step.node;
      if (prefetch >= 0 && prefetch < index && (updates || HostCopyCloser(input) == index)) {
        AddWait(step.waits_for, prefetch);
      }
      if (updates) WaitForDeviceCopies(step, index, input);
    }
  }

  // An update in place of a value the device streams (Lifetime::host_updated) waits for every
  // Prefetch sequenced before it that opened a device copy: each read the home copy it
  // overwrites.
  void WaitForDeviceCopies(PlanStep& step, int32_t index, ValueId value) {
    for (int32_t r : intervals_of_[value]) {
      const int32_t opener = plan_.residency[r].opened_by;
      if (opener >= 0 && opener < index && plan_.steps[opener].kind == StepKind::kPrefetch) {
        AddWait(step.waits_for, opener);
      }
    }
  }

  // A crossing Store reads the device copy: it waits for the step that opened the interval
  // covering its boundary. A crossing Prefetch waits for the host step that wrote the value,
  // the last compute-stream step before it (its block may be memory that step freed) and,
  // closing the host copy, the last host reader sequenced before it.
  void AddCrossingWaits(PlanStep& step, int32_t index, int32_t last_stream) {
    const Value& value = graph_.values[step.value];
    if (step.kind == StepKind::kStore) {
      for (int32_t r : intervals_of_[step.value]) {
        const ResidentInterval& interval = plan_.residency[r];
        if (interval.first_step <= step.boundary && step.boundary <= interval.last_step) {
          AddWait(step.waits_for, interval.opened_by);
        }
      }
      return;
    }
    if (value.producer != kNoNode) {  // else a home copy the host updates, read before that
      AddWait(step.waits_for, compute_index_[context_.lifetimes.step_of_node[value.producer]]);
    }
    AddWait(step.waits_for, last_stream);
    const Step last_read = crossings_.last_host_read[step.value];
    if (last_read >= 0 && compute_index_[last_read] < index &&
        HostCopyCloser(step.value) == index) {
      AddWait(step.waits_for, compute_index_[last_read]);
    }
  }

  // A Detach after a host step's read of a device value waits for the crossing Store that
  // copied the value to the host tier: the only step that reads the device copy it drops (a
  // host step reads the host tier's copy, schemas/README.md). With detach_waits_for_host
  // (problem.h) it waits for the host step too, which the compute stream does not order;
  // without, the compute stream runs on while the host still reads its own copy (the shared
  // experts beside the routed experts on the host). A Detach before the crossing, of a gap
  // before the host read, waits for neither.
  void AddHostReadWaits(PlanStep& detach, int32_t index) {
    if (crossings_.empty()) return;
    const int32_t crossing_store = crossing_store_index_[detach.value];
    if (crossing_store < index) AddWait(detach.waits_for, crossing_store);
    if (!context_.detach_waits_for_host || detach.boundary == 0) return;
    const int32_t before = compute_index_[detach.boundary - 1];
    if (plan_.steps[before].unit == ComputeUnit::kHost) AddWait(detach.waits_for, before);
  }

  // A compute step waits for the Prefetches that opened its inputs' residency.
  void AddComputeWaits(PlanStep& step) {
    for (ValueId input : graph_.nodes[step.node].inputs) {
      for (int32_t r : intervals_of_[input]) {
        const ResidentInterval& interval = plan_.residency[r];
        if (interval.first_step <= step.boundary && step.boundary <= interval.last_step &&
            interval.opened_by >= 0 &&
            plan_.steps[interval.opened_by].kind == StepKind::kPrefetch) {
          AddWait(step.waits_for, interval.opened_by);
        }
      }
    }
  }

  // A Store's first hop waits for the value's writer and the compute step before it; later
  // hops for the hop before.
  void AddStoreWaits(const Pending& p, PlanStep& step, int32_t last_compute) {
    if (p.hop > 0) {
      AddWait(step.waits_for, store_index_[p.placement][p.hop - 1]);
      return;
    }
    const Value& stored = graph_.values[step.value];
    const NodeId writer = stored.producer != kNoNode ? stored.producer : stored.written_by;
    const bool before_writer = CandidateOf(p.placement).write_back_at_start;
    if (writer != kNoNode && !before_writer) {
      AddWait(step.waits_for, compute_index_[context_.lifetimes.step_of_node[writer]]);
      return;
    }
    AddWait(step.waits_for, last_compute);
  }

  // Section 5: decisions, every candidate's, then those of the values that had none.
  void AddDecisions() {
    std::vector<int32_t> placement_of(candidates_.size(), -1);
    for (size_t j = 0; j < placement_count_; ++j) {
      placement_of[selection_.placements[j].candidate] = static_cast<int32_t>(j);
    }
    const std::vector<Decision>& pinned = context_.candidates.pinned;
    if (context_.candidates.decision_order.size() != candidates_.size() + pinned.size()) {
      throw Error(ErrorKind::kInternal, "a candidate set without its decision order");
    }
    plan_.decisions.reserve(candidates_.size() + pinned.size());
    for (const int32_t decision : context_.candidates.decision_order) {
      const auto index = static_cast<size_t>(decision);
      plan_.decisions.push_back(index < candidates_.size() ? DecisionFor(index, placement_of[index])
                                                           : pinned[index - candidates_.size()]);
    }
  }

  // Candidate `c`'s decision; `placement` is its index in the selection, -1 when not taken.
  Decision DecisionFor(size_t c, int32_t placement_index) const {
    const Candidate& candidate = candidates_[c];
    Decision decision = GapDecision(candidate);
    if (placement_index >= 0) {
      const Placement& placement = selection_.placements[placement_index];
      decision.reason = DecisionReason::kOffloaded;
      decision.freed_first_step = placement.freed_first;
      decision.freed_last_step = placement.freed_last;
      decision.predicted_stall_ns = placement.stall_ns;
      decision.detail = OffloadedDetail(placement);
    } else if (selection_.reason[c] == DecisionReason::kOffloaded) {
      decision.reason = DecisionReason::kStallOverLimit;
      decision.detail = "dropped: with it the simulated slowdown exceeded the overhead limit";
    } else {
      decision.reason = selection_.reason[c];
      decision.detail = selection_.detail[c];
      if (decision.reason == DecisionReason::kNotNeeded && decision.detail.empty()) {
        decision.detail = "not needed: the peak was settled without it";
      }
    }
    return decision;
  }

  // What the plan is assembled from.
  const PlanContext& context_;
  const Selection& selection_;
  const AssembleOptions& options_;
  const Graph& graph_;
  const std::vector<Candidate>& candidates_;
  const Step step_count_;
  const size_t placement_count_;  // the selection's first placements used
  // The plan, and where its steps landed.
  Plan plan_;
  std::vector<Pending> pending_;                      // the sequence, beside plan_.steps
  std::vector<int32_t> compute_index_;                // by step: its compute step in the plan
  std::vector<std::vector<int32_t>> store_index_;     // by placement and hop
  std::vector<int32_t> detach_index_;                 // by placement; -1: none
  std::vector<std::vector<int32_t>> prefetch_index_;  // by placement and hop
  std::vector<int32_t> by_value_;                     // placements by value, then gap start
  std::vector<int32_t> final_store_;                  // by ValueId: its Store's last hop; -1: none
  std::vector<std::vector<int32_t>> intervals_of_;    // by ValueId: its residency intervals
  const HostCrossings& crossings_;                    // context.h; empty: every node on the device
  std::vector<int32_t> crossing_store_index_;         // by ValueId; -1: none
  std::vector<int32_t> crossing_prefetch_index_;      // by ValueId; -1: none
  std::vector<int32_t> crossing_detach_index_;        // by ValueId; -1: none
  std::vector<Step>
      moved_detaches_;  // by ValueId: a crossing Detach's boundary; -1, empty: not moved
};

}  // namespace

EvaluatedPlan AssemblePlan(const PlanContext& context, const Selection& selection,
                           const AssembleOptions& options) {
  // A crossing Detach that waits for its Store alone moves to where the Store has had its time
  // (crossing_detaches.h): a probe's residency says how long the plan's values stay.
  std::vector<Step> moved;
  if (!context.crossings.empty() && !context.detach_waits_for_host) {
    moved = Assembler(context, selection, options).MovedCrossingDetaches();
  }
  return Assembler(context, selection, options, std::move(moved)).Run();
}

}  // namespace hyperplan::planner
