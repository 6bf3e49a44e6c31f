// Candidate gaps and their ranking (see candidates.h).
#include "planner/candidates.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "hyperplan/planner/idle_gaps.h"
#include "planner/spread.h"

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

// The gap time a candidate ranks by: a wrap-around half's whole wrap-around gap, else its own.
int64_t RankGapNs(const Candidate& candidate) {
  return candidate.wrap_gap_ns > 0 ? candidate.wrap_gap_ns : candidate.gap_ns;
}

// Higher bytes x gap per transfer ns first; then the spread key (candidates.h), value id, gap
// start.
bool RanksBefore(const Candidate& a, const Candidate& b) {
  const __int128 a_benefit = static_cast<__int128>(a.bytes) * std::max<int64_t>(RankGapNs(a), 1);
  const __int128 b_benefit = static_cast<__int128>(b.bytes) * std::max<int64_t>(RankGapNs(b), 1);
  const int64_t a_cost = std::max<int64_t>(a.store_ns + a.prefetch_ns, 1);
  const int64_t b_cost = std::max<int64_t>(b.store_ns + b.prefetch_ns, 1);
  const __int128 lhs = a_benefit * b_cost;
  const __int128 rhs = b_benefit * a_cost;
  if (lhs != rhs) return lhs > rhs;
  if (a.spread_key != b.spread_key) return a.spread_key < b.spread_key;
  if (a.value != b.value) return a.value < b.value;
  return a.after_step < b.after_step;
}

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

// What every gap of one value shares: the candidate fields common to its gaps, and the facts
// that decide which gaps it has and what each must move.
struct ValueFacts {
  Candidate base;
  bool produced = false;
  bool wraps = false;  // persistent in a loop: its leading and trailing gaps are one decision
  bool kept = false;   // kept across the boundary (LateWriteBacks::kAtStart)
  bool host_updated = false;  // Lifetime::host_updated: leading and trailing gaps must_take
  bool can_write_back = false;
  Step written_step = 0;  // its in-place writer's step; step_count: none
  Step baseline_last = 0;
  int64_t prefetch_ns = 0;
  int64_t written_bytes = 0;
  int64_t wrap_gap_ns = 0;  // wrapping values: Candidate::wrap_gap_ns
  uint32_t spread_key = 0;  // wrapping values: Candidate::spread_key
};

// Finds and ranks the candidates of every value (candidates.h), one value at a time.
class CandidateFinder {
 public:
  CandidateFinder(const Graph& graph, const HardwareProfile& profile,
                  const LifetimeAnalysis& lifetimes, const CostAnalysis& cost,
                  const ValueHomes& homes, const std::vector<uint8_t>& persistent,
                  CandidateRules rules)
      : graph_(graph),
        profile_(profile),
        lifetimes_(lifetimes),
        cost_(cost),
        homes_(homes),
        persistent_(persistent),
        inner_gaps_(rules.inner_gaps),
        wrap_rank_(rules.wrap_rank),
        step_count_(static_cast<Step>(lifetimes.order.size())),
        late_write_back_(
            rules.late_write_backs == LateWriteBacks::kAtStart &&
                    rules.inner_gaps == InnerGaps::kOwn
                ? LateWriteBackValues(graph, profile, lifetimes, cost, homes, persistent)
                : std::vector<uint8_t>()) {}

  CandidateSet Find() {
    for (size_t id = 0; id < graph_.values.size(); ++id) AddValue(static_cast<ValueId>(id));
    const std::vector<GapKind> ranked_kinds = Rank();
    if (!persistent_.empty()) {
      BundleWrapAround(set_.candidates, ranked_kinds, persistent_, inner_gaps_);
    }
    set_.decision_order = DecisionOrder(set_);
    set_.cover_index = CoverIndex(set_.candidates, step_count_);
    return std::move(set_);
  }

 private:
  // The value's candidates, or the one Decision that says why it has none.
  void AddValue(ValueId value_id) {
    const Value& value = graph_.values[value_id];
    if (!value.size_known) {
      Pin(value_id, 0, DecisionReason::kUnknownSize,
          "size unknown: it stays where the runtime puts it");
      return;
    }
    if (value.bytes <= 0 || step_count_ == 0) return;
    // Host-only values never reach the device; one a host node writes crosses in once and stays.
    const Lifetime& lifetime = lifetimes_.lifetimes[value_id];
    if (!lifetime.on_device || lifetime.crosses_in) return;
    if (value.producer == kNoNode && value.value_class == ValueClass::kWeight &&
        profile_.weight_home_tier == kNoTier) {
      Pin(value_id, value.bytes, DecisionReason::kPinnedByPolicy,
          "the profile keeps weights on the device");
      return;
    }
    std::optional<ValueFacts> facts = Facts(value_id);
    if (!facts) {
      Pin(value_id, value.bytes, DecisionReason::kNoRoute,
          "no link route between the device and a tier for it");
      return;
    }
    const size_t before = set_.candidates.size();
    AddGaps(*facts, RequiredSteps(value, lifetimes_.lifetimes[value_id]));
    if (facts->wraps && !facts->kept && !facts->host_updated) {
      DropUselessWrap(set_.candidates, kinds_, before);
    }
    if (set_.candidates.size() == before) {
      Pin(value_id, value.bytes, DecisionReason::kNoIdleGap, "needed at every step it is resident");
    }
  }

  void Pin(ValueId value, int64_t bytes, DecisionReason reason, std::string detail) {
    set_.pinned.push_back(PinnedDecision(value, bytes, step_count_, reason, std::move(detail)));
  }

  // The value's tier, routes and write-back facts; none without a route for its gaps.
  std::optional<ValueFacts> Facts(ValueId value_id) const {
    const Value& value = graph_.values[value_id];
    ValueFacts facts;
    facts.base.value = value_id;
    facts.base.bytes = value.bytes;
    facts.base.homed = homes_.Homed(value_id);
    facts.base.tier = homes_.OffTier(value_id);
    const TierId tier = facts.base.tier;
    const bool has_to_device = tier != kNoTier && cost_.routes.to_device[tier];
    const bool has_from_device = tier != kNoTier && cost_.routes.from_device[tier];
    if (!has_to_device || (!facts.base.homed && !has_from_device)) return std::nullopt;
    facts.produced = value.producer != kNoNode;
    facts.wraps = !persistent_.empty() && persistent_[value_id];
    facts.kept = facts.wraps && !late_write_back_.empty() && late_write_back_[value_id];
    facts.can_write_back = has_from_device;
    // An in-place write leaves the home copy stale: gaps after it write the change back. A
    // host update writes the home copy itself: the device copy never changes.
    facts.host_updated = lifetimes_.lifetimes[value_id].host_updated;
    facts.written_step = value.written_by != kNoNode && !facts.host_updated
                             ? lifetimes_.step_of_node[value.written_by]
                             : step_count_;
    facts.baseline_last = lifetimes_.lifetimes[value_id].baseline_last_step;
    facts.prefetch_ns = RouteTimeNs(profile_, *cost_.routes.to_device[tier], value.bytes);
    facts.written_bytes = value.written_bytes;
    return facts;
  }

  // A wrap-around value's ranking facts (candidates.h): the time it could be away, from after
  // its last use around the iteration's end to its first, and where that first use falls.
  void SetWrapRanking(Step first_step, Step last_step, ValueFacts& facts) const {
    const std::vector<int64_t>& start_ns = cost_.step_start_ns;
    facts.wrap_gap_ns = start_ns[first_step] + start_ns[step_count_] - start_ns[last_step + 1];
    // The first step it is needed at, spread (spread.h). Steps, not time: on the supernode's
    // 70B decode, spread by start time ran at 86.7 ms, by step 79.2 ms.
    facts.spread_key = SpreadKey(first_step, step_count_);
  }

  // Which idle gaps (idle_gaps.h) the value has, and the steps each could free.
  void AddGaps(ValueFacts facts, const std::vector<Step>& required) {
    // A stored value that starts on the device keeps step 0 (its Store needs a moment).
    const Step first_free = facts.base.homed ? 0 : 1;
    if (facts.wraps && !facts.kept && !required.empty() && wrap_rank_ == WrapRank::kWholeGap) {
      SetWrapRanking(required.front(), required.back(), facts);
    }
    for (const IdleGap& gap : IdleGaps(required, step_count_)) {
      const Step after = gap.after_step;
      const Step before = gap.before_step;
      if (facts.kept) {
        // Its device copy holds the last update from the start: a Store frees it from step 1.
        if (gap.kind == GapKind::kLeading) AddGap(facts, gap, 1, before - 1);
        if (gap.kind == GapKind::kInner && before <= facts.written_step) {
          AddGap(facts, gap, after + 1, before - 1);
        }
        continue;
      }
      switch (gap.kind) {
        case GapKind::kWholeRun:
          if (!facts.wraps) AddGap(facts, gap, first_free, facts.baseline_last);
          break;
        case GapKind::kLeading:
          if (!facts.produced) AddGap(facts, gap, first_free, before - 1);
          break;
        case GapKind::kInner:
          AddGap(facts, gap, after + 1, before - 1);
          break;
        case GapKind::kTrailing:
          if (facts.baseline_last > after || facts.wraps) {
            AddGap(facts, gap, after + 1, facts.baseline_last);
          }
          break;
      }
    }
  }

  // One candidate for `gap`, freeing [cover_first, cover_last], with what its transfers move.
  void AddGap(const ValueFacts& facts, const IdleGap& gap, Step cover_first, Step cover_last) {
    // A wrap-around half may be empty (used at the first or last step): it still carries
    // the Prefetch or the Detach that keeps the iteration periodic.
    const bool wrap_half =
        (facts.wraps || facts.host_updated) && !facts.kept && gap.kind != GapKind::kInner;
    if (cover_first > cover_last && !wrap_half) return;
    const std::vector<int64_t>& start_ns = cost_.step_start_ns;
    const Candidate& base = facts.base;
    Candidate candidate = base;
    candidate.after_step = gap.after_step;
    candidate.before_step = gap.before_step;
    candidate.cover_first = cover_first;
    candidate.cover_last = cover_last;
    candidate.gap_ns =
        start_ns[std::max(gap.before_step, gap.after_step + 1)] - start_ns[gap.after_step + 1];
    const bool after_write = gap.after_step >= facts.written_step;
    // Before the write, a persistent value's home copy may still lack the last update.
    candidate.write_back_last_iteration =
        base.homed && facts.wraps && !facts.kept && gap.kind == GapKind::kInner &&
        inner_gaps_ == InnerGaps::kOwn && facts.written_step < step_count_ && !after_write;
    candidate.write_back_at_start = facts.kept;
    candidate.needs_store = !base.homed || (after_write && facts.can_write_back) ||
                            (candidate.write_back_last_iteration && facts.can_write_back) ||
                            candidate.write_back_at_start;
    if (base.homed && (after_write || candidate.write_back_last_iteration) &&
        !facts.can_write_back) {
      return;
    }
    candidate.store_bytes = base.homed ? facts.written_bytes : base.bytes;
    candidate.store_ns =
        candidate.needs_store
            ? RouteTimeNs(profile_, *cost_.routes.from_device[base.tier], candidate.store_bytes)
            : 0;
    candidate.prefetch_ns = gap.before_step < step_count_ ? facts.prefetch_ns : 0;
    candidate.must_take = facts.host_updated && gap.kind != GapKind::kInner;
    if (wrap_half) {
      candidate.wrap_gap_ns = facts.wrap_gap_ns;
      candidate.spread_key = facts.spread_key;
    }
    set_.candidates.push_back(candidate);
    kinds_.push_back(gap.kind);
  }

  // Sorts the candidates by RanksBefore and numbers them; returns their kinds in that order.
  std::vector<GapKind> Rank() {
    std::vector<size_t> by_rank(set_.candidates.size());
    for (size_t i = 0; i < by_rank.size(); ++i) by_rank[i] = i;
    std::sort(by_rank.begin(), by_rank.end(), [&](size_t a, size_t b) {
      return RanksBefore(set_.candidates[a], set_.candidates[b]);
    });
    std::vector<Candidate> ranked;
    std::vector<GapKind> ranked_kinds;
    ranked.reserve(by_rank.size());
    for (size_t i : by_rank) {
      ranked.push_back(std::move(set_.candidates[i]));
      ranked_kinds.push_back(kinds_[i]);
    }
    set_.candidates = std::move(ranked);
    for (size_t i = 0; i < set_.candidates.size(); ++i) {
      set_.candidates[i].rank = static_cast<int32_t>(i);
    }
    return ranked_kinds;
  }

  // What the candidates are found in.
  const Graph& graph_;
  const HardwareProfile& profile_;
  const LifetimeAnalysis& lifetimes_;
  const CostAnalysis& cost_;
  const ValueHomes& homes_;
  // The rules, and the loop's values they apply to.
  const std::vector<uint8_t>& persistent_;  // by ValueId; empty: a one-shot plan
  const InnerGaps inner_gaps_;
  const WrapRank wrap_rank_;
  const Step step_count_;
  const std::vector<uint8_t> late_write_back_;  // by ValueId; empty: none kept
  // What is found, in the order found.
  CandidateSet set_;
  std::vector<GapKind> kinds_;  // beside set_.candidates
};

}  // namespace

StabbingIndex CoverIndex(const std::vector<Candidate>& candidates, Step step_count) {
  StabbingIndex index(step_count);
  for (size_t c = 0; c < candidates.size(); ++c) {
    index.Add(static_cast<int32_t>(c), candidates[c].cover_first, candidates[c].cover_last);
  }
  return index;
}

std::vector<int32_t> DecisionOrder(const CandidateSet& set) {
  struct Key {
    ValueId value;
    Step gap_after_step;
    int32_t index;
  };
  std::vector<Key> keys;
  keys.reserve(set.candidates.size() + set.pinned.size());
  for (const Candidate& candidate : set.candidates) {
    keys.push_back({candidate.value, candidate.after_step, static_cast<int32_t>(keys.size())});
  }
  for (const Decision& decision : set.pinned) {
    keys.push_back({decision.value, decision.gap_after_step, static_cast<int32_t>(keys.size())});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    return std::tie(a.value, a.gap_after_step, a.index) <
           std::tie(b.value, b.gap_after_step, b.index);
  });
  std::vector<int32_t> order;
  order.reserve(keys.size());
  for (const Key& key : keys) order.push_back(key.index);
  return order;
}

CandidateSet FindCandidates(const Graph& graph, const HardwareProfile& profile,
                            const LifetimeAnalysis& lifetimes, const CostAnalysis& cost,
                            const ValueHomes& homes, const std::vector<uint8_t>& persistent,
                            CandidateRules rules) {
  return CandidateFinder(graph, profile, lifetimes, cost, homes, persistent, rules).Find();
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
        !homes.Homed(value_id) || lifetimes.lifetimes[id].host_updated) {
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
