// The host-aware bound's cut conditions (see host_cut.h).
#include "contenders/host_cut.h"

#include <algorithm>
#include <utility>

#include "contenders/host_late_fetch.h"
#include "contenders/host_timed_terms.h"
#include "hyperplan/routes.h"

namespace hyperplan::contenders {
namespace {

// Calls visit(first, last) for each run of steps where the value waits in P(s): from after its
// producer's step through its last read (the order's end, for an output), but its reads.
template <typename Visit>
void ForEachStoredRun(const Value& value, const Lifetime& lifetime, Step steps, Visit visit) {
  const Step last = value.is_graph_output ? steps - 1 : lifetime.last_use_step - 1;
  Step first = lifetime.def_step + 1;
  for (Step use : lifetime.use_steps) {
    if (use > last) break;
    if (use < first) continue;
    if (first <= use - 1) visit(first, use - 1);
    first = use + 1;
  }
  if (first <= last) visit(first, last);
}

// Whether `id` counts in P(s) at all (as lower_bounds.h's store sums): produced in the iteration,
// of known bytes, and able to leave the device.
bool Stored(const Problem& problem, ValueId id) {
  const Value& value = problem.graph->values[id];
  return value.producer != kNoNode && value.size_known && value.bytes > 0 &&
         problem.homes.CanLeave(id);
}

// The parts that produce `value` or update it in place: on the host, it was never on the device
// there to Store (each counts it whole: an over-count only lowers the condition).
std::vector<int> SourceParts(const Value& value, const std::vector<int>& part_of) {
  std::vector<int> sources;
  for (NodeId source : {value.producer, value.written_by}) {
    if (source == kNoNode || part_of[source] < 0) continue;
    if (std::find(sources.begin(), sources.end(), part_of[source]) == sources.end()) {
      sources.push_back(part_of[source]);
    }
  }
  return sources;
}

// P(s) in the order for the parts: per step its bytes and the relief with every part on the
// host, and at one step the relief per part.
class StoreWaits {
 public:
  // The lifetimes in the order and the part of each node, held by the caller.
  StoreWaits(const Problem& problem, const LifetimeAnalysis& lifetimes,
             const std::vector<int>& part_of)
      : problem_(problem), lifetimes_(lifetimes), part_of_(part_of) {}

  void PerStep(std::vector<int64_t>& stored_bytes, std::vector<int64_t>& relieved_bytes) const {
    const auto n = static_cast<Step>(lifetimes_.order.size());
    std::vector<int64_t> stored(static_cast<size_t>(n) + 1, 0);  // difference arrays
    std::vector<int64_t> relieved(static_cast<size_t>(n) + 1, 0);
    for (size_t id = 0; id < problem_.graph->values.size(); ++id) {
      if (!Stored(problem_, static_cast<ValueId>(id))) continue;
      const Value& value = problem_.graph->values[id];
      const int64_t relief =
          value.bytes * static_cast<int64_t>(SourceParts(value, part_of_).size());
      ForEachStoredRun(value, lifetimes_.lifetimes[id], n, [&](Step first, Step last) {
        stored[first] += value.bytes;
        stored[last + 1] -= value.bytes;
        relieved[first] += relief;
        relieved[last + 1] -= relief;
      });
    }
    stored_bytes = RunningSums(stored, static_cast<size_t>(n));
    relieved_bytes = RunningSums(relieved, static_cast<size_t>(n));
  }

  // bytes(P(s)); adds each part's relief at s to `relief` (by part).
  int64_t At(Step s, std::vector<int64_t>& relief) const {
    const auto n = static_cast<Step>(lifetimes_.order.size());
    int64_t stored_bytes = 0;
    for (size_t id = 0; id < problem_.graph->values.size(); ++id) {
      if (!Stored(problem_, static_cast<ValueId>(id))) continue;
      const Value& value = problem_.graph->values[id];
      ForEachStoredRun(value, lifetimes_.lifetimes[id], n, [&](Step first, Step last) {
        if (s < first || s > last) return;
        stored_bytes += value.bytes;
        for (int part : SourceParts(value, part_of_)) relief[part] += value.bytes;
      });
    }
    return stored_bytes;
  }

 private:
  const Problem& problem_;
  const LifetimeAnalysis& lifetimes_;
  const std::vector<int>& part_of_;
};

// bytes * r_in / r_out, rounded down (a condition's bytes) or up (a relief).
int64_t ScaleDown(int64_t bytes, int64_t in_bytes_per_s, int64_t out_bytes_per_s) {
  return static_cast<int64_t>(static_cast<__int128>(bytes) * in_bytes_per_s / out_bytes_per_s);
}
int64_t ScaleUp(int64_t bytes, int64_t in_bytes_per_s, int64_t out_bytes_per_s) {
  return static_cast<int64_t>(
      (static_cast<__int128>(bytes) * in_bytes_per_s + out_bytes_per_s - 1) / out_bytes_per_s);
}

// What ranking and taking the steps share.
struct CutScan {
  const Problem* problem = nullptr;
  const LowerBounds* device = nullptr;
  const std::vector<int>* part_of = nullptr;
  int64_t pinned_touched = 0;
  int64_t in_bytes_per_s = 0;
  int64_t out_bytes_per_s = 0;

  int64_t Room(Step s) const { return device->room_per_step[s] + pinned_touched; }
  int64_t StepNs(Step s) const { return problem->node_time_ns[device->order[s]]; }
};

// The steps to take: the device-only cut step and, for each of no part and every part on the
// host, the kCutTopSteps largest conditions (as bytes) where both halves exceed the room.
std::vector<Step> StepsToTake(const CutScan& scan, const StoreWaits& stores,
                              const LateFetchWaits& fetches) {
  std::vector<int64_t> stored, store_relieved, waiting, fetch_relieved;
  stores.PerStep(stored, store_relieved);
  fetches.PerStep(waiting, fetch_relieved);
  std::vector<std::pair<int64_t, Step>> none_on_host;  // (condition as bytes; step)
  std::vector<std::pair<int64_t, Step>> all_on_host;
  for (Step s = 0; s < static_cast<Step>(scan.device->order.size()); ++s) {
    if ((*scan.part_of)[scan.device->order[s]] >= 0) continue;
    const int64_t room = scan.Room(s);
    if (stored[s] <= room || waiting[s] <= room) continue;
    const int64_t bytes = ScaleDown(stored[s] - room, scan.in_bytes_per_s, scan.out_bytes_per_s) +
                          ComputeAsBytes(scan.StepNs(s), scan.in_bytes_per_s) + waiting[s] - room;
    none_on_host.push_back({bytes, s});
    all_on_host.push_back(
        {bytes - ScaleUp(store_relieved[s], scan.in_bytes_per_s, scan.out_bytes_per_s) -
             fetch_relieved[s],
         s});
  }
  std::vector<Step> steps;
  for (auto* ranked : {&none_on_host, &all_on_host}) {
    const size_t top = std::min<size_t>(kCutTopSteps, ranked->size());
    std::partial_sort(ranked->begin(), ranked->begin() + static_cast<std::ptrdiff_t>(top),
                      ranked->end(), [](const auto& a, const auto& b) {
                        return a.first != b.first ? a.first > b.first : a.second < b.second;
                      });
    for (size_t i = 0; i < top; ++i) {
      const Step s = (*ranked)[i].second;
      if (std::find(steps.begin(), steps.end(), s) == steps.end()) steps.push_back(s);
    }
  }
  const Step cut = scan.device->cut.step;
  if (cut >= 0 && (*scan.part_of)[scan.device->order[cut]] < 0 &&
      std::find(steps.begin(), steps.end(), cut) == steps.end()) {
    steps.push_back(cut);
  }
  return steps;
}

// The condition at step s, if both halves exceed room'(s).
void AddConditionAt(const CutScan& scan, const StoreWaits& stores, const LateFetchWaits& fetches,
                    Step s, size_t part_count, std::vector<ReliefCondition>& out) {
  std::vector<int64_t> store_relief(part_count, 0);
  ReliefCondition condition{0, scan.in_bytes_per_s, std::vector<int64_t>(part_count, 0), s};
  const int64_t stored = stores.At(s, store_relief);
  const int64_t waiting = fetches.At(s, condition.relief_bytes);
  const int64_t room = scan.Room(s);
  if (stored <= room || waiting <= room) return;
  condition.bytes = ScaleDown(stored - room, scan.in_bytes_per_s, scan.out_bytes_per_s) +
                    ComputeAsBytes(scan.StepNs(s), scan.in_bytes_per_s) + waiting - room;
  for (size_t p = 0; p < part_count; ++p) {
    condition.relief_bytes[p] +=
        ScaleUp(store_relief[p], scan.in_bytes_per_s, scan.out_bytes_per_s);
  }
  out.push_back(std::move(condition));
}

}  // namespace

std::vector<ReliefCondition> HostCutConditions(const Problem& problem, const LowerBounds& device,
                                               const std::vector<HostPart>& parts) {
  std::vector<ReliefCondition> conditions;
  const std::vector<NodeId>& order = device.order;
  if (order.empty() || device.room_per_step.size() != order.size() ||
      problem.lifetimes.lifetimes.empty()) {
    return conditions;
  }
  const DeviceLinkRates rates = SumDeviceLinkRates(*problem.profile);
  if (rates.into_device_bytes_per_s <= 0 || rates.out_of_device_bytes_per_s <= 0) {
    return conditions;
  }
  const LateFetchWaits fetches(problem, order, parts);
  const StoreWaits stores(problem, fetches.lifetimes(), fetches.part_of());
  CutScan scan{&problem,
               &device,
               &fetches.part_of(),
               PinnedBytesPartsTouch(problem, parts),
               rates.into_device_bytes_per_s,
               rates.out_of_device_bytes_per_s};
  for (Step s : StepsToTake(scan, stores, fetches)) {
    AddConditionAt(scan, stores, fetches, s, parts.size(), conditions);
  }
  return conditions;
}

}  // namespace hyperplan::contenders
