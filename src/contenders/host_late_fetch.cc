// The host-aware bound's late-fetch conditions (see host_late_fetch.h).
#include "contenders/host_late_fetch.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "hyperplan/routed_fetch.h"
#include "hyperplan/routes.h"

namespace hyperplan::contenders {
namespace {

// The bytes that must come back for `id`: a routed operand (its one reader a MoE node that picks
// experts) may be fetched after route, which moves only the experts the router picks: in
// expectation its slice times the sum of the experts' touch chances (rounded down, lower only);
// any other value whole. As the other routed terms (routed_lane_bound.h), a bound in expectation
// over routings.
int64_t FetchBytes(const Problem& problem, ValueId id) {
  const Value& value = problem.graph->values[id];
  if (value.consumers.size() != 1) return value.bytes;
  const std::optional<RoutedOperand> operand =
      RoutedOperandOf(*problem.graph, value.consumers.front(), id);
  if (!operand) return value.bytes;
  long double touched = 0;
  for (double chance : TouchProbabilities(operand->routing)) touched += chance;
  const auto expected =
      static_cast<int64_t>(std::floor(touched * static_cast<long double>(operand->slice_bytes)));
  return std::min(value.bytes, expected);
}

// Calls visit(first, last, device_reader, reader_parts) for each run of steps [first, last] where
// the value `id` waits in U'(s) (between its reads), with the readers after that run: whether a
// node in no part is one, and the distinct parts of the others.
template <typename Visit>
void ForEachWait(const Problem& problem, const LifetimeAnalysis& lifetimes,
                 const std::vector<int>& part_of, ValueId id, Visit visit) {
  const Value& value = problem.graph->values[id];
  const Lifetime& lifetime = lifetimes.lifetimes[id];
  const std::vector<Step>& uses = lifetime.use_steps;
  const Step exists_from = value.producer != kNoNode ? lifetime.def_step + 1 : 0;
  bool device_reader = false;
  std::vector<int> reader_parts;
  for (size_t i = uses.size(); i-- > 0;) {  // the run before read i has reads i.. after it
    const int part = part_of[lifetimes.order[uses[i]]];
    if (part < 0) {
      device_reader = true;
    } else if (std::find(reader_parts.begin(), reader_parts.end(), part) == reader_parts.end()) {
      reader_parts.push_back(part);
    }
    const Step first = i == 0 ? exists_from : std::max(exists_from, uses[i - 1] + 1);
    if (first <= uses[i] - 1) visit(first, uses[i] - 1, device_reader, reader_parts);
  }
}

// Whether `id` counts in U'(s) at all (as lower_bounds.h's read_later).
bool Waits(const Problem& problem, ValueId id) {
  const Value& value = problem.graph->values[id];
  return value.size_known && value.bytes > 0 && problem.homes.CanLeave(id) &&
         !problem.lifetimes.lifetimes.empty();
}

// Adds a waiting value's relief (`bytes` of it) to `relief` (by part) when no device node reads
// it after the run: all of it to the part producing it or updating it in place, and 1/k of it to
// each other of the k reader parts. Each part counts it once: the relief of an integral
// placement, bytes * min over readers x_p, is at most bytes * max(x_source, min over readers
// x_p), at most sum_p x_p relief_p (the source's share an over-count, which only lowers it).
void AddRelief(const Value& value, int64_t bytes, const std::vector<int>& part_of,
               bool device_reader, const std::vector<int>& reader_parts,
               std::vector<int64_t>& relief) {
  if (device_reader || reader_parts.empty()) return;
  std::vector<int> sources;
  for (NodeId source : {value.producer, value.written_by}) {
    if (source == kNoNode || part_of[source] < 0) continue;
    const int part = part_of[source];
    if (std::find(sources.begin(), sources.end(), part) == sources.end()) sources.push_back(part);
  }
  for (int part : sources) relief[part] += bytes;
  const int64_t share = bytes / static_cast<int64_t>(reader_parts.size());
  for (int part : reader_parts) {
    if (std::find(sources.begin(), sources.end(), part) == sources.end()) relief[part] += share;
  }
}

// C(..s) by step: the time of the nodes in no part at steps 0..s.
std::vector<int64_t> ThroughNs(const Problem& problem, const std::vector<NodeId>& order,
                               const std::vector<int>& part_of) {
  std::vector<int64_t> through(order.size(), 0);
  int64_t ns = 0;
  for (size_t s = 0; s < order.size(); ++s) {
    if (part_of[order[s]] < 0) ns += problem.node_time_ns[order[s]];
    through[s] = ns;
  }
  return through;
}

// The steps to take: the device-only late-fetch step and the kLateFetchTopSteps largest by the
// term with all relief taken, C(..s) + (bytes(U'(s)) - room'(s) - relief) / r_in (as bytes).
std::vector<Step> StepsToTake(const LateFetchWaits& waits, const std::vector<int64_t>& through_ns,
                              const LowerBounds& device, int64_t pinned_touched,
                              int64_t in_bytes_per_s) {
  const auto n = static_cast<Step>(device.order.size());
  std::vector<int64_t> waiting;
  std::vector<int64_t> relieved;
  waits.PerStep(waiting, relieved);
  std::vector<std::pair<int64_t, Step>> ranked;  // (term with all relief, as bytes; step)
  for (Step s = 0; s < n; ++s) {
    if (waits.part_of()[device.order[s]] >= 0) continue;
    const int64_t room = device.room_per_step[s] + pinned_touched;
    if (waiting[s] <= room) continue;
    ranked.push_back(
        {ComputeAsBytes(through_ns[s], in_bytes_per_s) + waiting[s] - room - relieved[s], s});
  }
  const size_t top = std::min<size_t>(kLateFetchTopSteps, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(top), ranked.end(),
                    [](const auto& a, const auto& b) {
                      return a.first != b.first ? a.first > b.first : a.second < b.second;
                    });
  std::vector<Step> steps;
  for (size_t i = 0; i < top; ++i) steps.push_back(ranked[i].second);
  const Step late = device.late_fetch.step;
  if (late >= 0 && waits.part_of()[device.order[late]] < 0 &&
      std::find(steps.begin(), steps.end(), late) == steps.end()) {
    steps.push_back(late);
  }
  return steps;
}

}  // namespace

LateFetchWaits::LateFetchWaits(const Problem& problem, const std::vector<NodeId>& order,
                               const std::vector<HostPart>& parts)
    : problem_(problem),
      lifetimes_(problem, order),
      part_of_(PartIndexOf(*problem.graph, parts)),
      part_count_(parts.size()) {
  fetch_bytes_.resize(problem.graph->values.size());
  for (size_t id = 0; id < problem.graph->values.size(); ++id) {
    fetch_bytes_[id] = FetchBytes(problem, static_cast<ValueId>(id));
  }
}

void LateFetchWaits::PerStep(std::vector<int64_t>& wait_bytes,
                             std::vector<int64_t>& relieved_bytes) const {
  const size_t n = lifetimes_.get().order.size();
  std::vector<int64_t> waiting(n + 1, 0);  // difference arrays
  std::vector<int64_t> relieved(n + 1, 0);
  std::vector<int64_t> relief(part_count_, 0);
  for (size_t id = 0; id < problem_.graph->values.size(); ++id) {
    const auto value_id = static_cast<ValueId>(id);
    if (!Waits(problem_, value_id)) continue;
    const int64_t bytes = fetch_bytes_[id];
    ForEachWait(problem_, lifetimes_.get(), part_of_, value_id,
                [&](Step first, Step last, bool device_reader, const std::vector<int>& readers) {
                  std::fill(relief.begin(), relief.end(), 0);
                  AddRelief(problem_.graph->values[id], bytes, part_of_, device_reader, readers,
                            relief);
                  int64_t relief_bytes = 0;
                  for (int64_t part_bytes : relief) relief_bytes += part_bytes;
                  waiting[first] += bytes;
                  waiting[last + 1] -= bytes;
                  relieved[first] += relief_bytes;
                  relieved[last + 1] -= relief_bytes;
                });
  }
  wait_bytes = RunningSums(waiting, n);
  relieved_bytes = RunningSums(relieved, n);
}

int64_t LateFetchWaits::At(Step s, std::vector<int64_t>& relief) const {
  int64_t wait_bytes = 0;
  for (size_t id = 0; id < problem_.graph->values.size(); ++id) {
    const auto value_id = static_cast<ValueId>(id);
    if (!Waits(problem_, value_id)) continue;
    ForEachWait(problem_, lifetimes_.get(), part_of_, value_id,
                [&](Step first, Step last, bool device_reader, const std::vector<int>& readers) {
                  if (s < first || s > last) return;
                  wait_bytes += fetch_bytes_[id];
                  AddRelief(problem_.graph->values[id], fetch_bytes_[id], part_of_, device_reader,
                            readers, relief);
                });
  }
  return wait_bytes;
}

std::vector<ReliefCondition> HostLateFetchConditions(const Problem& problem,
                                                     const LowerBounds& device,
                                                     const std::vector<HostPart>& parts) {
  std::vector<ReliefCondition> conditions;
  const std::vector<NodeId>& order = device.order;
  if (order.empty() || device.room_per_step.size() != order.size()) return conditions;
  const int64_t in_bytes_per_s = SumDeviceLinkRates(*problem.profile).into_device_bytes_per_s;
  if (in_bytes_per_s <= 0) return conditions;
  const LateFetchWaits waits(problem, order, parts);
  const std::vector<int64_t> through_ns = ThroughNs(problem, order, waits.part_of());
  const int64_t pinned_touched = PinnedBytesPartsTouch(problem, parts);
  for (Step s : StepsToTake(waits, through_ns, device, pinned_touched, in_bytes_per_s)) {
    ReliefCondition condition{0, in_bytes_per_s, std::vector<int64_t>(parts.size(), 0), s};
    const int64_t wait_bytes = waits.At(s, condition.relief_bytes);
    const int64_t room_bytes = device.room_per_step[s] + pinned_touched;
    if (wait_bytes <= room_bytes) continue;
    condition.bytes = wait_bytes - room_bytes + ComputeAsBytes(through_ns[s], in_bytes_per_s);
    conditions.push_back(std::move(condition));
  }
  return conditions;
}

}  // namespace hyperplan::contenders
