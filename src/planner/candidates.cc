// Candidate gaps and their ranking (see candidates.h).
#include "planner/candidates.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace hyperplan::planner {
namespace {

Decision PinnedDecision(ValueId value, int64_t bytes, Step step_count, DecisionReason reason,
                        std::string detail) {
  Decision decision;
  decision.value = value;
  decision.gap_after_step = -1;
  decision.gap_before_step = step_count;
  decision.reason = reason;
  decision.detail = std::move(detail);
  decision.bytes = bytes;
  return decision;
}

// Higher bytes x gap per transfer ns first; then value id, then gap start.
bool RanksBefore(const Candidate& a, const Candidate& b) {
  const __int128 a_benefit = static_cast<__int128>(a.bytes) * std::max<int64_t>(a.gap_ns, 1);
  const __int128 b_benefit = static_cast<__int128>(b.bytes) * std::max<int64_t>(b.gap_ns, 1);
  const int64_t a_cost = std::max<int64_t>(a.store_ns + a.prefetch_ns, 1);
  const int64_t b_cost = std::max<int64_t>(b.store_ns + b.prefetch_ns, 1);
  const __int128 lhs = a_benefit * b_cost;
  const __int128 rhs = b_benefit * a_cost;
  if (lhs != rhs) return lhs > rhs;
  if (a.value != b.value) return a.value < b.value;
  return a.after_step < b.after_step;
}

// Which of a value's gaps a candidate is, to tie the wrap-around ones together after sorting.
enum class GapKind : uint8_t { kLeading, kInner, kTrailing };

// Ties each persistent value's leading and trailing gaps into one decision, and with
// InnerGaps::kWithWrap its inner gaps to that decision too (see candidates.h). Runs after
// ranking: bundles hold indices.
// A persistent value keeps its candidates only with both wrap halves (one alone would leave the
// iteration ending elsewhere than it began), and only if something frees a step: two empty
// halves (used at the first and the last step) with no inner gap free nothing.
void DropUselessWrap(std::vector<Candidate>& candidates, std::vector<GapKind>& kinds,
                     size_t first_of_value) {
  bool has_leading = false;
  bool has_trailing = false;
  bool frees_a_step = false;
  for (size_t c = first_of_value; c < candidates.size(); ++c) {
    has_leading = has_leading || kinds[c] == GapKind::kLeading;
    has_trailing = has_trailing || kinds[c] == GapKind::kTrailing;
    frees_a_step = frees_a_step || candidates[c].cover_first <= candidates[c].cover_last;
  }
  if (has_leading && has_trailing && frees_a_step) return;
  candidates.resize(first_of_value);
  kinds.resize(first_of_value);
}

void BundleWrapAround(std::vector<Candidate>& candidates, const std::vector<GapKind>& kinds,
                      const std::vector<uint8_t>& persistent, InnerGaps inner_gaps) {
  std::vector<int32_t> leading(persistent.size(), -1);
  std::vector<int32_t> trailing(persistent.size(), -1);
  for (size_t c = 0; c < candidates.size(); ++c) {
    const ValueId value = candidates[c].value;
    if (!persistent[value]) continue;
    if (kinds[c] == GapKind::kLeading) leading[value] = static_cast<int32_t>(c);
    if (kinds[c] == GapKind::kTrailing) trailing[value] = static_cast<int32_t>(c);
  }
  for (size_t c = 0; c < candidates.size(); ++c) {
    const ValueId value = candidates[c].value;
    if (!persistent[value]) continue;
    if (kinds[c] == GapKind::kInner && inner_gaps == InnerGaps::kOwn) continue;
    for (int32_t other : {leading[value], trailing[value]}) {
      if (other >= 0 && other != static_cast<int32_t>(c)) candidates[c].bundle.push_back(other);
    }
  }
}

}  // namespace

CandidateSet FindCandidates(const Graph& graph, const HardwareProfile& profile,
                            const LifetimeAnalysis& lifetimes, const CostAnalysis& cost,
                            const ValueHomes& homes, const std::vector<uint8_t>& persistent,
                            CandidateRules rules) {
  const InnerGaps inner_gaps = rules.inner_gaps;
  const std::vector<uint8_t> late_write_back =
      rules.late_write_backs == LateWriteBacks::kAtStart && inner_gaps == InnerGaps::kOwn
          ? LateWriteBackValues(graph, profile, lifetimes, cost, homes, persistent)
          : std::vector<uint8_t>();
  CandidateSet set;
  std::vector<GapKind> kinds;
  const bool loop = !persistent.empty();
  const auto step_count = static_cast<Step>(lifetimes.order.size());
  const std::vector<int64_t>& start_ns = cost.step_start_ns;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const auto value_id = static_cast<ValueId>(id);
    const Value& value = graph.values[id];
    if (!value.size_known) {
      set.pinned.push_back(PinnedDecision(value_id, 0, step_count, DecisionReason::kUnknownSize,
                                          "size unknown: it stays where the runtime puts it"));
      continue;
    }
    if (value.bytes <= 0 || step_count == 0) continue;
    const Lifetime& lifetime = lifetimes.lifetimes[id];
    const bool produced = value.producer != kNoNode;
    const bool wraps = loop && persistent[id];

    if (!produced && value.value_class == ValueClass::kWeight &&
        profile.weight_home_tier == kNoTier) {
      set.pinned.push_back(PinnedDecision(value_id, value.bytes, step_count,
                                          DecisionReason::kPinnedByPolicy,
                                          "the profile keeps weights on the device"));
      continue;
    }
    Candidate base;
    base.value = value_id;
    base.bytes = value.bytes;
    base.homed = homes.Homed(value_id);
    base.tier = homes.OffTier(value_id);
    const bool has_to_device = base.tier != kNoTier && cost.routes.to_device[base.tier];
    const bool has_from_device = base.tier != kNoTier && cost.routes.from_device[base.tier];
    if (!has_to_device || (!base.homed && !has_from_device)) {
      set.pinned.push_back(PinnedDecision(value_id, value.bytes, step_count,
                                          DecisionReason::kNoRoute,
                                          "no link route between the device and a tier for it"));
      continue;
    }
    const int64_t prefetch_ns =
        RouteTimeNs(profile, *cost.routes.to_device[base.tier], value.bytes);
    // An in-place write leaves the home copy stale: gaps after it write the change back.
    const Step written_step =
        value.written_by != kNoNode ? lifetimes.step_of_node[value.written_by] : step_count;
    const bool can_write_back = has_from_device;

    // Steps that need it on the device: its producer's and its consumers'.
    std::vector<Step> required;
    if (produced) required.push_back(lifetime.def_step);
    for (Step use : lifetime.use_steps) {
      if (required.empty() || required.back() != use) required.push_back(use);
    }
    const bool kept = wraps && !late_write_back.empty() && late_write_back[id];
    const size_t before = set.candidates.size();
    auto add_gap = [&](GapKind kind, Step after, Step before_step, Step cover_first,
                       Step cover_last) {
      // A wrap-around half may be empty (used at the first or last step): it still carries
      // the Prefetch or the Detach that keeps the iteration periodic.
      const bool wrap_half = wraps && !kept && kind != GapKind::kInner;
      if (cover_first > cover_last && !wrap_half) return;
      Candidate candidate = base;
      candidate.after_step = after;
      candidate.before_step = before_step;
      candidate.cover_first = cover_first;
      candidate.cover_last = cover_last;
      candidate.gap_ns = start_ns[std::max(before_step, after + 1)] - start_ns[after + 1];
      const bool after_write = after >= written_step;
      // Before the write, a persistent value's home copy may still lack the last update.
      candidate.write_back_last_iteration =
          base.homed && wraps && !kept && kind == GapKind::kInner &&
          inner_gaps == InnerGaps::kOwn && written_step < step_count && !after_write;
      candidate.write_back_at_start = kept;
      candidate.needs_store = !base.homed || (after_write && can_write_back) ||
                              (candidate.write_back_last_iteration && can_write_back) ||
                              candidate.write_back_at_start;
      if (base.homed && (after_write || candidate.write_back_last_iteration) && !can_write_back) {
        return;
      }
      candidate.store_bytes = base.homed ? value.written_bytes : value.bytes;
      candidate.store_ns =
          candidate.needs_store
              ? RouteTimeNs(profile, *cost.routes.from_device[base.tier], candidate.store_bytes)
              : 0;
      candidate.prefetch_ns = before_step < step_count ? prefetch_ns : 0;
      set.candidates.push_back(candidate);
      kinds.push_back(kind);
    };
    // A stored value that starts on the device keeps step 0 (its Store needs a moment).
    const Step first_free = base.homed ? 0 : 1;
    const Step baseline_last = lifetime.baseline_last_step;
    if (kept) {
      // Its device copy holds the last update from the start: a Store frees it from step 1.
      add_gap(GapKind::kLeading, -1, required.front(), 1, required.front() - 1);
      for (size_t i = 0; i + 1 < required.size() && required[i + 1] <= written_step; ++i) {
        add_gap(GapKind::kInner, required[i], required[i + 1], required[i] + 1,
                required[i + 1] - 1);
      }
    } else if (required.empty()) {
      if (!wraps) add_gap(GapKind::kInner, -1, step_count, first_free, baseline_last);
    } else {
      if (!produced) {
        add_gap(GapKind::kLeading, -1, required.front(), first_free, required.front() - 1);
      }
      for (size_t i = 0; i + 1 < required.size(); ++i) {
        add_gap(GapKind::kInner, required[i], required[i + 1], required[i] + 1,
                required[i + 1] - 1);
      }
      if (baseline_last > required.back() || wraps) {
        add_gap(GapKind::kTrailing, required.back(), step_count, required.back() + 1,
                baseline_last);
      }
    }
    if (wraps && !kept) DropUselessWrap(set.candidates, kinds, before);
    if (set.candidates.size() == before) {
      set.pinned.push_back(PinnedDecision(value_id, value.bytes, step_count,
                                          DecisionReason::kNoIdleGap,
                                          "needed at every step it is resident"));
    }
  }
  std::vector<size_t> by_rank(set.candidates.size());
  for (size_t i = 0; i < by_rank.size(); ++i) by_rank[i] = i;
  std::sort(by_rank.begin(), by_rank.end(),
            [&](size_t a, size_t b) { return RanksBefore(set.candidates[a], set.candidates[b]); });
  std::vector<Candidate> ranked;
  std::vector<GapKind> ranked_kinds;
  ranked.reserve(by_rank.size());
  for (size_t i : by_rank) {
    ranked.push_back(std::move(set.candidates[i]));
    ranked_kinds.push_back(kinds[i]);
  }
  set.candidates = std::move(ranked);
  for (size_t i = 0; i < set.candidates.size(); ++i) {
    set.candidates[i].rank = static_cast<int32_t>(i);
  }
  if (loop) BundleWrapAround(set.candidates, ranked_kinds, persistent, inner_gaps);
  return set;
}

std::vector<uint8_t> LateWriteBackValues(const Graph& graph, const HardwareProfile& profile,
                                         const LifetimeAnalysis& lifetimes,
                                         const CostAnalysis& cost, const ValueHomes& homes,
                                         const std::vector<uint8_t>& persistent) {
  std::vector<uint8_t> late(graph.values.size(), 0);
  const auto step_count = static_cast<Step>(lifetimes.order.size());
  if (persistent.empty() || step_count == 0) return late;
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    const auto value_id = static_cast<ValueId>(id);
    if (!persistent[id] || value.written_by == kNoNode || !value.size_known ||
        !homes.Homed(value_id)) {
      continue;
    }
    const Step written_step = lifetimes.step_of_node[value.written_by];
    const std::vector<Step>& uses = lifetimes.lifetimes[id].use_steps;
    if (uses.empty() || uses.back() != written_step) continue;
    const TierId tier = homes.OffTier(value_id);
    if (tier == kNoTier) continue;
    const std::optional<Route>& write_back = cost.routes.from_device[tier];
    if (!write_back || write_back->size() != 1) continue;
    const int64_t after_write_ns =
        cost.step_start_ns[step_count] - cost.step_start_ns[written_step + 1];
    late[id] = RouteTimeNs(profile, *write_back, value.written_bytes) > after_write_ns;
  }
  return late;
}

}  // namespace hyperplan::planner
