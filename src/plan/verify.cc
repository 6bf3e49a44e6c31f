// The plan verifier: docs/design.md invariants 1-6 and 8, as checks named by what they check
// (see verify.h); the explicit-waits check is in explicit_waits.cc.
#include "hyperplan/plan/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

#include "hyperplan/error.h"
#include "hyperplan/layout/layout.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/names.h"
#include "hyperplan/plan/simulate.h"
#include "layout/tier_layout.h"
#include "plan/chunks.h"
#include "plan/host_step_checks.h"
#include "plan/routed_checks.h"
#include "plan/step_names.h"

namespace hyperplan {
namespace {

class Verifier {
 public:
  Verifier(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
           const PlanEvaluation& evaluation)
      : graph_(graph), profile_(profile), plan_(plan), evaluation_(evaluation) {}

  // The shapes first (every index in range), then the replay and every index, once; then the
  // checks by meaning, each reading only those, in this order (the first failure is reported).
  VerifyResult Run() {
    if (!CheckShapes() || !Replay()) return result_;
    BuildIndexes();
    for (const Check check : kChecks) {
      if (!(this->*check)()) break;
    }
    return result_;
  }

 private:
  bool Fail(int invariant, int32_t step, const std::string& message) {
    result_.ok = false;
    result_.invariant = invariant;
    result_.step = step;
    result_.message = "invariant " + std::to_string(invariant) + ": ";
    if (step >= 0) result_.message += Describe(step) + ": ";
    result_.message += message;
    return false;
  }

  std::string ValueName(ValueId value) const { return QuotedValueName(graph_, value); }
  std::string TierName(TierId tier) const { return hyperplan::TierName(profile_, tier); }
  std::string Describe(int32_t index) const { return DescribeStep(graph_, profile_, plan_, index); }

  std::string IntervalName(size_t index) const {
    const ResidentInterval& interval = plan_.residency[index];
    std::string owner = interval.value != kNoValue
                            ? ValueName(interval.value)
                            : "scratch of node " + std::to_string(interval.scratch_node);
    return "residency " + std::to_string(index) + " (" + owner + ", steps " +
           std::to_string(interval.first_step) + ".." + std::to_string(interval.last_step) + ")";
  }

  bool IsTransfer(const PlanStep& step) const {
    return step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore;
  }

  bool ValidStepIndex(int32_t index) const {
    return index >= 0 && static_cast<size_t>(index) < plan_.steps.size();
  }

  // Every index in range and every step's fields consistent, in the order the failures are
  // reported: the order, then each step, then the residency and the tier copies.
  bool CheckShapes() {
    return CheckDeviceTier() && CheckOrderIsPermutation() && CheckTopologicalOrder() &&
           CheckStepFields() && CheckResidencyWellFormed() && CheckTierCopiesWellFormed();
  }

  bool CheckDeviceTier() {
    const TierId device = profile_.device_tier;
    if (device < 0 || static_cast<size_t>(device) >= profile_.tiers.size()) {
      return Fail(0, -1, "the profile has no device tier");
    }
    return true;
  }

  bool CheckOrderIsPermutation() {
    const size_t node_count = graph_.nodes.size();
    if (plan_.order.size() != node_count) {
      return Fail(4, -1,
                  "the order has " + std::to_string(plan_.order.size()) + " steps for " +
                      std::to_string(node_count) + " nodes");
    }
    if (plan_.node_time_ns.size() != node_count) {
      return Fail(0, -1, "node times do not cover every node");
    }
    std::vector<uint8_t> seen(node_count, 0);
    for (size_t k = 0; k < node_count; ++k) {
      const NodeId node = plan_.order[k];
      if (node < 0 || static_cast<size_t>(node) >= node_count || seen[node]) {
        return Fail(4, -1, "the order is not a permutation at step " + std::to_string(k));
      }
      seen[node] = 1;
    }
    return true;
  }

  bool CheckTopologicalOrder() {
    const std::vector<Step> step_of_node = StepOfNode();
    for (size_t k = 0; k < plan_.order.size(); ++k) {
      const Node& node = graph_.nodes[plan_.order[k]];
      for (ValueId input : node.inputs) {
        const NodeId producer = graph_.values[input].producer;
        if (producer != kNoNode && step_of_node[producer] >= static_cast<Step>(k)) {
          return Fail(4, -1,
                      "the order is not topological: node '" + node.name + "' at step " +
                          std::to_string(k) + " reads " + ValueName(input) + " produced at step " +
                          std::to_string(step_of_node[producer]));
        }
      }
    }
    return true;
  }

  // By node: its position in the order (a permutation, CheckOrderIsPermutation).
  std::vector<Step> StepOfNode() const {
    std::vector<Step> step_of_node(graph_.nodes.size(), -1);
    for (size_t k = 0; k < plan_.order.size(); ++k) {
      step_of_node[plan_.order[k]] = static_cast<Step>(k);
    }
    return step_of_node;
  }

  // Waits point back; compute steps follow the order; each cache op's value, bytes, link,
  // channel and direction.
  bool CheckStepFields() {
    size_t computes = 0;
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const PlanStep& step = plan_.steps[i];
      const auto index = static_cast<int32_t>(i);
      for (int32_t wait : step.waits_for) {
        if (wait < 0 || wait >= index) {
          return Fail(4, index,
                      "waits for step " + std::to_string(wait) + ", which does not come before it");
        }
      }
      if (step.kind != StepKind::kCompute) {
        if (!CheckCacheOpFields(index)) return false;
        continue;
      }
      if (step.unit == ComputeUnit::kHost && !CheckHostUnit(index)) return false;
      if (computes >= plan_.order.size() || step.node != plan_.order[computes] ||
          step.boundary != static_cast<Step>(computes)) {
        return Fail(4, index,
                    "compute steps do not follow the order (expected step " +
                        std::to_string(computes) + ")");
      }
      ++computes;
    }
    if (computes != plan_.order.size()) return Fail(4, -1, "not every node has a compute step");
    return true;
  }

  // Invariant 1 per unit: a host step needs the profile's host unit and its memory tier.
  bool CheckHostUnit(int32_t index) {
    const HostComputeSpec& host = profile_.host_compute;
    if (!host.present()) {
      return Fail(1, index,
                  fmt::format("runs on the host, but profile '{}' has no host_compute section "
                              "(no host unit)",
                              profile_.name));
    }
    if (host.memory_tier < 0 || static_cast<size_t>(host.memory_tier) >= profile_.tiers.size() ||
        host.memory_tier == profile_.device_tier) {
      return Fail(0, index, "runs on the host, but the host unit names no off-device memory tier");
    }
    return true;
  }

  bool CheckCacheOpFields(int32_t index) {
    const PlanStep& step = plan_.steps[index];
    const TierId device = profile_.device_tier;
    if (step.unit != ComputeUnit::kDevice) {
      return Fail(0, index, "a cache op names a compute unit (only compute steps have one)");
    }
    if (step.value < 0 || static_cast<size_t>(step.value) >= graph_.values.size()) {
      return Fail(0, index, "names no valid value");
    }
    const Value& moved = graph_.values[step.value];
    const bool write_back = step.kind == StepKind::kStore && moved.written_by != kNoNode;
    const int64_t expected_bytes = write_back ? moved.written_bytes : moved.bytes;
    // A routed Prefetch moves a routing's experts (CheckRoutedFetchRules); a chunk part of its
    // value (CheckChunkRules).
    if (step.routed_by == kNoNode && step.bytes != expected_bytes && !IsChunk(graph_, step)) {
      return Fail(
          0, index,
          "moves " + std::to_string(step.bytes) + " bytes of a " + std::to_string(moved.bytes) +
              "-byte value" +
              (write_back ? " whose in-place update changes " + std::to_string(moved.written_bytes)
                          : std::string()));
    }
    if (step.kind == StepKind::kDetach) {
      if (step.src_tier != device) return Fail(0, index, "a Detach must drop the device copy");
      return true;
    }
    if (step.link < 0 || static_cast<size_t>(step.link) >= profile_.links.size()) {
      return Fail(0, index, "names no valid link");
    }
    const Link& link = profile_.links[step.link];
    if (step.channel < 0 || step.channel >= std::max(1, link.channels)) {
      return Fail(0, index, "names no valid channel of its link");
    }
    if (link.from != step.src_tier || link.to != step.dst_tier) {
      return Fail(0, index, "its tiers do not match its link");
    }
    if (step.kind == StepKind::kPrefetch && step.src_tier == device) {
      return Fail(0, index, "a Prefetch must move towards the device");
    }
    if (step.kind == StepKind::kStore && step.dst_tier == device) {
      return Fail(0, index, "a Store must move away from the device");
    }
    return true;
  }

  bool CheckResidencyWellFormed() {
    if (plan_.layout.offset_bytes.size() != plan_.residency.size()) {
      return Fail(3, -1, "the layout does not give every residency an offset");
    }
    const auto step_count = static_cast<Step>(graph_.nodes.size());
    for (size_t r = 0; r < plan_.residency.size(); ++r) {
      const ResidentInterval& interval = plan_.residency[r];
      const bool has_value =
          interval.value >= 0 && static_cast<size_t>(interval.value) < graph_.values.size();
      const bool has_node = interval.scratch_node >= 0 &&
                            static_cast<size_t>(interval.scratch_node) < graph_.nodes.size();
      if (has_value == has_node || interval.first_step < 0 || interval.last_step >= step_count ||
          interval.first_step > interval.last_step ||
          (interval.opened_by >= 0 && !ValidStepIndex(interval.opened_by)) ||
          (interval.closed_by >= 0 && !ValidStepIndex(interval.closed_by))) {
        return Fail(0, -1, IntervalName(r) + " is malformed");
      }
    }
    return true;
  }

  bool CheckTierCopiesWellFormed() {
    for (size_t c = 0; c < plan_.tier_copies.size(); ++c) {
      const TierCopy& copy = plan_.tier_copies[c];
      if (copy.value < 0 || static_cast<size_t>(copy.value) >= graph_.values.size() ||
          copy.tier < 0 || static_cast<size_t>(copy.tier) >= profile_.tiers.size() ||
          copy.tier == profile_.device_tier ||
          (copy.opened_by >= 0 && !ValidStepIndex(copy.opened_by)) ||
          (copy.closed_by >= 0 && !ValidStepIndex(copy.closed_by))) {
        return Fail(0, -1, "tier copy " + std::to_string(c) + " is malformed");
      }
    }
    return true;
  }

  // A plan whose shapes hold can still name a wait the replay rejects.
  bool Replay() {
    try {
      sim_ = Simulate(graph_, profile_, plan_);
    } catch (const Error& error) {
      return Fail(4, -1, error.what());
    }
    return true;
  }

  // Every index the checks read, built once from a plan whose shapes hold, and its replay.
  void BuildIndexes() {
    step_of_node_ = StepOfNode();
    last_chunk_ = LastChunks(plan_);
    compute_index_.assign(plan_.order.size(), -1);
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const PlanStep& step = plan_.steps[i];
      if (step.kind == StepKind::kCompute) compute_index_[step.boundary] = static_cast<int32_t>(i);
      if (step.kind == StepKind::kStore) stores_of_[step.value].push_back(static_cast<int32_t>(i));
    }
    device_compute_before_.assign(plan_.order.size() + 1, -1);
    for (size_t k = 0; k < plan_.order.size(); ++k) {
      const int32_t compute = compute_index_[k];
      device_compute_before_[k + 1] =
          plan_.steps[compute].unit == ComputeUnit::kHost ? device_compute_before_[k] : compute;
    }
    free_ns_.resize(plan_.residency.size());
    for (size_t r = 0; r < plan_.residency.size(); ++r) {
      const ResidentInterval& interval = plan_.residency[r];
      free_ns_[r] =
          interval.closed_by < 0 ? sim_.makespan_ns : sim_.steps[interval.closed_by].end_ns;
      // A partial block (resident experts) makes no reader's value resident by itself.
      if (interval.value != kNoValue && interval.experts.empty()) {
        intervals_of_[interval.value].push_back(r);
      }
    }
    for (auto& [value, list] : intervals_of_) {
      std::sort(list.begin(), list.end(), [&](size_t a, size_t b) {
        return plan_.residency[a].first_step < plan_.residency[b].first_step;
      });
    }
    for (size_t c = 0; c < plan_.tier_copies.size(); ++c) {
      copies_by_opener_.emplace(plan_.tier_copies[c].opened_by, c);
      copies_of_[plan_.tier_copies[c].value].push_back(c);
    }
  }

  int64_t Start(int32_t step) const { return sim_.steps[step].start_ns; }
  int64_t End(int32_t step) const { return sim_.steps[step].end_ns; }

  // A transfer reads a copy that is complete when it starts and still there when it ends.
  bool CopyAvailable(ValueId value, TierId tier, int64_t start_ns, int64_t end_ns,
                     int32_t reader) const {
    if (tier == profile_.device_tier) {
      auto it = intervals_of_.find(value);
      if (it == intervals_of_.end()) return false;
      for (size_t r : it->second) {
        const ResidentInterval& interval = plan_.residency[r];
        const int64_t ready_ns = interval.opened_by < 0 ? 0 : End(last_chunk_[interval.opened_by]);
        if (ready_ns <= start_ns && free_ns_[r] >= end_ns) return true;
      }
      return false;
    }
    auto copies = copies_of_.find(value);
    if (copies == copies_of_.end()) return false;
    for (size_t c : copies->second) {
      const TierCopy& copy = plan_.tier_copies[c];
      if (copy.tier != tier) continue;
      if (copy.opened_by < 0 && !HomeCopyCurrent(value, tier, start_ns)) continue;
      const int64_t ready_ns = copy.opened_by < 0 ? 0 : End(copy.opened_by);
      const int64_t gone_ns = copy.closed_by < 0 ? sim_.makespan_ns : End(copy.closed_by);
      if (copy.opened_by != reader && ready_ns <= start_ns && gone_ns >= end_ns) return true;
    }
    return false;
  }

  // A Store reads the device copy once its producer has ended. A value updated in place and
  // owned outside the run may also be stored before its writer starts, straight into its home
  // copy: it then writes back the update the previous iteration left on the device (a one-shot
  // plan: the preloaded bytes). Only straight into it: StoredBetween judges a Store by the hop
  // that reaches the home tier, so on a two-hop route that hop must read a copy the device
  // wrote after the write.
  bool ReadsAWrittenCopy(int32_t store, const Value& moved) const {
    if (moved.producer != kNoNode) {
      return Start(store) >= End(compute_index_[step_of_node_[moved.producer]]);
    }
    if (moved.written_by == kNoNode) return true;
    const int32_t write = compute_index_[step_of_node_[moved.written_by]];
    if (Start(store) >= End(write)) return true;
    return End(store) <= Start(write) &&
           HomeCopyOn(plan_.steps[store].value, plan_.steps[store].dst_tier);
  }

  bool HomeCopyOn(ValueId value, TierId tier) const {
    auto copies = copies_of_.find(value);
    if (copies == copies_of_.end()) return false;
    for (size_t c : copies->second) {
      const TierCopy& copy = plan_.tier_copies[c];
      if (copy.tier == tier && copy.opened_by < 0) return true;
    }
    return false;
  }

  // A home copy holds the value's bytes, except after an in-place update on the device and
  // before a Store has written that update back to it. In a loop the update to hold before this
  // iteration's write is the previous iteration's: the home copy starts the iteration stale when
  // no Store after the write wrote it back by the end (the value stayed on the device), and a
  // Store before the write (of the device copy, still the previous iteration's) makes it
  // current again. A one-shot plan starts from a free preload, current everywhere.
  // A host step updates the home copy itself (docs/design.md "Compute units"), so that copy is
  // always current; CheckHostSteps checks the update's rules.
  bool HomeCopyCurrent(ValueId value, TierId tier, int64_t at_ns) const {
    const NodeId writer = graph_.values[value].written_by;
    if (writer == kNoNode) return true;
    const int32_t write = compute_index_[step_of_node_[writer]];
    if (plan_.steps[write].unit == ComputeUnit::kHost) return true;
    const bool before_write = at_ns <= Start(write);
    const bool stale_at_start =
        plan_.periodic && !StoredBetween(value, tier, End(write), sim_.makespan_ns);
    if (before_write && !stale_at_start) return true;
    return StoredBetween(value, tier, before_write ? 0 : End(write), at_ns);
  }

  // Whether a Store of `value` to `tier` starts at or after `from_ns` and ends by `until_ns`.
  bool StoredBetween(ValueId value, TierId tier, int64_t from_ns, int64_t until_ns) const {
    auto stores = stores_of_.find(value);
    if (stores == stores_of_.end()) return false;
    for (int32_t index : stores->second) {
      const PlanStep& step = plan_.steps[index];
      if (step.dst_tier == tier && Start(index) >= from_ns && End(index) <= until_ns) return true;
    }
    return false;
  }

  // Data movement: producers before Stores, copies before the transfers that read them, and
  // every off-device copy written by a transfer is accounted.
  bool CheckTransfersReadCompleteCopies() {
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const PlanStep& step = plan_.steps[i];
      if (!IsTransfer(step)) continue;
      const auto index = static_cast<int32_t>(i);
      const Value& moved = graph_.values[step.value];
      if (step.src_tier == profile_.device_tier && !ReadsAWrittenCopy(index, moved)) {
        const NodeId writer = moved.producer != kNoNode ? moved.producer : moved.written_by;
        return Fail(4, index,
                    (moved.producer != kNoNode
                         ? "starts before its producer '" + graph_.nodes[writer].name + "' ends"
                         : "reads the device copy before its in-place writer '" +
                               graph_.nodes[writer].name +
                               "' ends, and neither before it starts nor into the home copy"));
      }
      if (!CopyAvailable(step.value, step.src_tier, Start(index), End(index), index)) {
        if (moved.written_by != kNoNode && HomeCopyOn(step.value, step.src_tier) &&
            !HomeCopyCurrent(step.value, step.src_tier, Start(index))) {
          return Fail(4, index,
                      "reads the home copy of " + ValueName(step.value) + " on " +
                          TierName(step.src_tier) + " at " + std::to_string(Start(index)) +
                          " ns, before a Store wrote back the in-place update by '" +
                          graph_.nodes[moved.written_by].name + "'" +
                          (Start(index) <= Start(compute_index_[step_of_node_[moved.written_by]])
                               ? " in the previous iteration"
                               : ""));
        }
        return Fail(4, index,
                    "no complete copy of " + ValueName(step.value) + " on " +
                        TierName(step.src_tier) + " when it starts at " +
                        std::to_string(Start(index)) +
                        " ns (e.g. the Store or host step that writes it has not completed)");
      }
      if (step.dst_tier != profile_.device_tier) {
        bool accounted = false;
        const auto range = copies_by_opener_.equal_range(index);
        for (auto it = range.first; it != range.second; ++it) {
          const TierCopy& copy = plan_.tier_copies[it->second];
          accounted |= copy.value == step.value && copy.tier == step.dst_tier;
        }
        // An in-place update is written back into the value's home copy.
        accounted |= step.kind == StepKind::kStore && moved.written_by != kNoNode &&
                     HomeCopyOn(step.value, step.dst_tier);
        if (!accounted) return Fail(2, index, "writes a copy no tier accounts for");
      }
    }
    return true;
  }

  // Invariant 1: a chunked Prefetch moves every byte, in order, on one channel (chunks.h).
  bool CheckChunkRules() {
    const std::optional<ChunkFailure> failure = CheckChunks(graph_, profile_, plan_);
    if (!failure) return true;
    return Fail(1, failure->step, failure->message);
  }

  // Invariant 1 per unit: what host steps read and write on the host tier (host_step_checks.h).
  bool CheckHostStepsReadHostCopies() {
    const HomeCopyCurrentFn home_copy_current = [this](ValueId value, TierId tier, int64_t at_ns) {
      return HomeCopyCurrent(value, tier, at_ns);
    };
    const std::optional<HostStepFailure> failure =
        CheckHostSteps(graph_, profile_, plan_, sim_, home_copy_current);
    if (!failure) return true;
    return Fail(failure->invariant, failure->step, failure->message);
  }

  // Fetch-after-route: routed Prefetches and resident experts (routed_checks.h).
  bool CheckRoutedFetchRules() {
    const std::optional<HostStepFailure> failure = CheckRoutedFetches(graph_, profile_, plan_);
    if (!failure) return true;
    return Fail(failure->invariant, failure->step, failure->message);
  }

  // Invariant 1: a value's residencies do not overlap one another.
  bool CheckResidenciesDisjointPerValue() {
    for (const auto& [value, list] : intervals_of_) {
      for (size_t k = 1; k < list.size(); ++k) {
        if (plan_.residency[list[k]].first_step <= plan_.residency[list[k - 1]].last_step) {
          return Fail(1, -1, IntervalName(list[k]) + " overlaps " + IntervalName(list[k - 1]));
        }
      }
    }
    return true;
  }

  // Invariant 1: scratch lives exactly during its node; every other residency opens by its
  // producer, a Prefetch or the run's start, and closes by its last step, a Detach or the end.
  bool CheckResidencyEnds() {
    for (size_t r = 0; r < plan_.residency.size(); ++r) {
      const ResidentInterval& interval = plan_.residency[r];
      if (interval.value == kNoValue) {
        const int32_t compute = compute_index_[step_of_node_[interval.scratch_node]];
        if (interval.opened_by != compute || interval.closed_by != compute) {
          return Fail(1, -1, IntervalName(r) + " must live exactly during its node");
        }
        continue;
      }
      if (!CheckResidencyOpening(r) || !CheckResidencyClosing(r)) return false;
    }
    return true;
  }

  bool CheckResidencyOpening(size_t r) {
    const ResidentInterval& interval = plan_.residency[r];
    const Value& value = graph_.values[interval.value];
    const std::string name = IntervalName(r);
    if (interval.opened_by < 0) {
      if (value.producer != kNoNode || interval.first_step != 0) {
        return Fail(1, -1, name + " is resident from the run's start but is not an input");
      }
      return true;
    }
    const PlanStep& opener = plan_.steps[interval.opened_by];
    if (opener.kind == StepKind::kCompute && opener.unit == ComputeUnit::kHost) {
      return Fail(1, interval.opened_by,
                  name + " is opened by a host step, which writes its outputs on the host tier; " +
                      "a device copy of one is opened by a Prefetch from there");
    }
    if (opener.kind == StepKind::kCompute) {
      if (opener.node != value.producer || opener.boundary != interval.first_step) {
        return Fail(1, interval.opened_by, name + " is not opened by its producer");
      }
      return true;
    }
    if (opener.kind != StepKind::kPrefetch) {
      return Fail(1, interval.opened_by, name + " cannot be opened by this step");
    }
    if (opener.value != interval.value || opener.dst_tier != profile_.device_tier ||
        opener.boundary != interval.first_step) {
      return Fail(1, interval.opened_by,
                  name + " must be opened by a Prefetch to the device issued before step " +
                      std::to_string(interval.first_step));
    }
    const int32_t freeing = device_compute_before_[interval.first_step];
    if (freeing >= 0 && Start(interval.opened_by) < End(freeing)) {
      return Fail(1, interval.opened_by,
                  "allocates before step " + std::to_string(plan_.steps[freeing].boundary) +
                      " ends, outside " + name);
    }
    return true;
  }

  bool CheckResidencyClosing(size_t r) {
    const ResidentInterval& interval = plan_.residency[r];
    const std::string name = IntervalName(r);
    if (interval.closed_by < 0) {
      if (interval.last_step != static_cast<Step>(plan_.order.size()) - 1) {
        return Fail(1, -1, name + " ends before the last step but is not closed");
      }
      return true;
    }
    const int32_t closer = interval.closed_by;
    if (plan_.steps[closer].kind == StepKind::kCompute &&
        plan_.steps[closer].unit == ComputeUnit::kHost) {
      // Device steps do not follow the host lane, so a block it freed could be reused while
      // the host step still runs: a device copy ends on the compute stream.
      return Fail(1, closer,
                  name + " is freed by a host step, which holds no device memory: free it at " +
                      "its last device reader, or by a Detach after its Store");
    }
    if (plan_.steps[closer].kind == StepKind::kCompute) {
      if (plan_.steps[closer].boundary != interval.last_step) {
        return Fail(1, closer, name + " is not closed by its last step");
      }
      return true;
    }
    if (plan_.steps[closer].kind != StepKind::kDetach) {
      return Fail(1, closer, name + " cannot be closed by this step");
    }
    if (plan_.steps[closer].value != interval.value ||
        plan_.steps[closer].boundary != interval.last_step + 1) {
      return Fail(1, closer,
                  name + " must be closed by a Detach right after step " +
                      std::to_string(interval.last_step));
    }
    // A host step reads the host tier's copy, never the device block (schemas/README.md): when
    // the interval ends at one, the block's last device reader is the device step before it
    // (the Store that copied it out is a wait, checked with the other waits).
    int32_t last_reader = compute_index_[interval.last_step];
    if (plan_.steps[last_reader].unit == ComputeUnit::kHost) {
      last_reader = device_compute_before_[interval.last_step];
    }
    if (last_reader >= 0 && Start(closer) < End(last_reader)) {
      return Fail(1, closer,
                  "drops the copy before step " +
                      std::to_string(plan_.steps[last_reader].boundary) + " ends");
    }
    if (!HasOtherCopy(interval.value, Start(closer))) {
      return Fail(1, closer,
                  "drops the only copy of " + ValueName(interval.value) +
                      " (no home copy, no completed Store)");
    }
    return true;
  }

  // Invariant 1: every Prefetch to the device opens a residency and every Detach closes one
  // (CheckResidencyEnds has checked the kinds of the steps that do).
  bool CheckCacheOpsAccounted() {
    std::vector<uint8_t> opens(plan_.steps.size(), 0);
    std::vector<uint8_t> closes(plan_.steps.size(), 0);
    for (const ResidentInterval& interval : plan_.residency) {
      if (interval.value == kNoValue) continue;
      if (interval.opened_by >= 0) opens[interval.opened_by] = 1;
      if (interval.closed_by >= 0) closes[interval.closed_by] = 1;
    }
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const PlanStep& step = plan_.steps[i];
      if (step.kind == StepKind::kPrefetch && step.dst_tier == profile_.device_tier && !opens[i] &&
          step.chunk_of < 0) {
        return Fail(1, static_cast<int32_t>(i),
                    "brings a value to the device that no residency accounts for");
      }
      if (step.kind == StepKind::kDetach && !closes[i]) {
        return Fail(1, static_cast<int32_t>(i), "drops a copy that no residency ends with");
      }
    }
    return true;
  }

  // Invariant 1: every device node finds its inputs (and its outputs) on the device when it
  // starts, an input brought by a Prefetch only once that Prefetch has ended. A host node reads
  // and writes the host tier instead (CheckHostStepsReadHostCopies).
  bool CheckInputsResident() {
    for (Step k = 0; k < static_cast<Step>(plan_.order.size()); ++k) {
      const int32_t compute = compute_index_[k];
      if (plan_.steps[compute].unit == ComputeUnit::kHost) continue;
      const Node& node = graph_.nodes[plan_.order[k]];
      for (ValueId input : node.inputs) {
        if (!graph_.values[input].size_known || graph_.values[input].bytes <= 0) continue;
        const size_t* covering = Covering(input, k);
        if (covering == nullptr) {
          return Fail(1, compute,
                      "reads " + ValueName(input) +
                          ", which is not resident on the device then (Detached and "
                          "not re-fetched, or never fetched)");
        }
        const int32_t opener = plan_.residency[*covering].opened_by;
        if (opener < 0 || plan_.steps[opener].kind != StepKind::kPrefetch) continue;
        // A chunked Prefetch completes with its last chunk.
        const int32_t complete = last_chunk_[opener];
        if (End(complete) > Start(compute)) {
          return Fail(1, compute,
                      "starts at " + std::to_string(Start(compute)) +
                          " ns before the Prefetch of " + ValueName(input) + " (step " +
                          std::to_string(complete) + ") completes at " +
                          std::to_string(End(complete)) + " ns");
        }
      }
      for (ValueId output : node.outputs) {
        if (!graph_.values[output].size_known || graph_.values[output].bytes <= 0) continue;
        const size_t* covering = Covering(output, k);
        if (covering == nullptr || plan_.residency[*covering].first_step != k) {
          return Fail(1, compute, "writes " + ValueName(output) + " with no residency from it");
        }
      }
    }
    return true;
  }

  const size_t* Covering(ValueId value, Step step) const {
    auto it = intervals_of_.find(value);
    if (it == intervals_of_.end()) return nullptr;
    for (const size_t& r : it->second) {
      if (plan_.residency[r].first_step <= step && step <= plan_.residency[r].last_step) {
        return &r;
      }
    }
    return nullptr;
  }

  bool HasOtherCopy(ValueId value, int64_t at_ns) const {
    auto copies = copies_of_.find(value);
    if (copies == copies_of_.end()) return false;
    for (size_t c : copies->second) {
      const TierCopy& copy = plan_.tier_copies[c];
      if (copy.opened_by < 0) {
        if (HomeCopyCurrent(value, copy.tier, at_ns)) return true;
        continue;
      }
      // A Store's copy, or the one a host step wrote (its output, on the host tier).
      const PlanStep& writer = plan_.steps[copy.opened_by];
      const bool writes = writer.kind == StepKind::kStore || writer.kind == StepKind::kCompute;
      if (writes && End(copy.opened_by) <= at_ns) return true;
    }
    return false;
  }

  // Invariant 2: the replay stays within every off-device tier's capacity; a plan that claims
  // to fit keeps its arena within the device and the budget.
  bool CheckTierCapacity() {
    const TierId device = profile_.device_tier;
    for (size_t tier = 0; tier < profile_.tiers.size(); ++tier) {
      const int64_t capacity = profile_.tiers[tier].capacity_bytes;
      if (capacity <= 0 || static_cast<TierId>(tier) == device) continue;
      if (sim_.peak_bytes_per_tier[tier] > capacity) {
        return Fail(2, -1,
                    "tier '" + profile_.tiers[tier].name + "' holds " +
                        std::to_string(sim_.peak_bytes_per_tier[tier]) +
                        " bytes, over its capacity of " + std::to_string(capacity));
      }
    }
    const int64_t device_capacity = profile_.tiers[device].capacity_bytes;
    if (evaluation_.fits) {
      if (device_capacity > 0 && (sim_.peak_bytes_per_tier[device] > device_capacity ||
                                  plan_.layout.arena_bytes > device_capacity)) {
        return Fail(2, -1,
                    "the device arena (" + std::to_string(plan_.layout.arena_bytes) +
                        " bytes) exceeds the device capacity of " +
                        std::to_string(device_capacity));
      }
      if (plan_.budget_bytes && plan_.layout.arena_bytes > *plan_.budget_bytes) {
        return Fail(2, -1,
                    "the arena (" + std::to_string(plan_.layout.arena_bytes) +
                        " bytes) exceeds the budget of " + std::to_string(*plan_.budget_bytes));
      }
    }
    return true;
  }

  // Invariant 2: the summary's peak is the maximum of the replayed device timeline.
  bool CheckReportedPeak() {
    const TierId device = profile_.device_tier;
    int64_t curve_max = 0;
    for (const TierUsagePoint& point : sim_.bytes_per_tier[device]) {
      curve_max = std::max(curve_max, point.bytes);
    }
    if (evaluation_.summary.peak_bytes != sim_.peak_bytes_per_tier[device] ||
        curve_max != sim_.peak_bytes_per_tier[device]) {
      return Fail(2, -1,
                  "the reported peak (" + std::to_string(evaluation_.summary.peak_bytes) +
                      " bytes) is not the maximum of the timeline (" + std::to_string(curve_max) +
                      " bytes)");
    }
    return true;
  }

  // Invariant 3: every block lies in the arena and no two live blocks overlap (a sweep over
  // the compute-step axis).
  bool CheckArenaDisjoint() {
    const int64_t arena = plan_.layout.arena_bytes;
    std::vector<size_t> by_start;
    for (size_t r = 0; r < plan_.residency.size(); ++r) {
      const int64_t offset = plan_.layout.offset_bytes[r];
      const int64_t bytes = plan_.residency[r].bytes;
      if (bytes <= 0) continue;
      if (offset < 0 || offset + bytes > arena) {
        return Fail(3, -1,
                    IntervalName(r) + " at offset " + std::to_string(offset) +
                        " lies outside the arena of " + std::to_string(arena) + " bytes");
      }
      by_start.push_back(r);
    }
    std::sort(by_start.begin(), by_start.end(), [&](size_t a, size_t b) {
      return std::tie(plan_.residency[a].first_step, a) <
             std::tie(plan_.residency[b].first_step, b);
    });
    using Ending = std::pair<Step, size_t>;  // (last step, interval)
    std::priority_queue<Ending, std::vector<Ending>, std::greater<Ending>> live_until;
    std::map<int64_t, size_t> live;  // offset -> interval
    for (size_t r : by_start) {
      const ResidentInterval& interval = plan_.residency[r];
      while (!live_until.empty() && live_until.top().first < interval.first_step) {
        live.erase(plan_.layout.offset_bytes[live_until.top().second]);
        live_until.pop();
      }
      const int64_t offset = plan_.layout.offset_bytes[r];
      const int64_t end = offset + interval.bytes;
      auto next = live.lower_bound(offset);
      if (next != live.end() && next->first < end) {
        return Fail(3, -1,
                    IntervalName(r) + " overlaps " + IntervalName(next->second) + " in the arena");
      }
      if (next != live.begin()) {
        const size_t previous = std::prev(next)->second;
        if (plan_.layout.offset_bytes[previous] + plan_.residency[previous].bytes > offset) {
          return Fail(3, -1,
                      IntervalName(r) + " overlaps " + IntervalName(previous) + " in the arena");
        }
      }
      live.emplace(offset, r);
      live_until.emplace(interval.last_step, r);
    }
    return true;
  }

  bool CheckArenaCoversReplay() {
    // The arena covers every simulated instant only if the replay stays within the per-step
    // accounting it was laid out for.
    const int64_t device_peak = sim_.peak_bytes_per_tier[profile_.device_tier];
    if (device_peak > plan_.layout.live_peak_bytes) {
      return Fail(3, -1,
                  "the replay holds " + std::to_string(device_peak) +
                      " bytes on the device, more than the " +
                      std::to_string(plan_.layout.live_peak_bytes) +
                      " bytes the arena was laid out for");
    }
    return true;
  }

  static bool PowerOfTwo(int64_t bytes) { return bytes >= 1 && (bytes & (bytes - 1)) == 0; }

  std::string CopyName(size_t index, const LayoutBlock& block) const {
    const TierCopy& copy = plan_.tier_copies[index];
    return fmt::format("tier copy {} ({} on {}, {} bytes at offset {}, compute steps {}..{})",
                       index, ValueName(copy.value), TierName(copy.tier), copy.bytes,
                       copy.offset_bytes, block.first, block.last);
  }

  // Invariant 3, alignment: the arena's alignment is a power of two that honours the device
  // tier's; every block starts at a multiple of it and, padded to it, ends inside the arena.
  bool CheckArenaAlignment() {
    const int64_t alignment = plan_.layout.alignment_bytes;
    const int64_t required = profile_.tiers[profile_.device_tier].alignment_bytes;
    if (!PowerOfTwo(alignment)) {
      return Fail(3, -1,
                  fmt::format("the arena's alignment ({} bytes) is not a power of two", alignment));
    }
    if (required > 1 && alignment % required != 0) {
      return Fail(3, -1,
                  fmt::format("the arena is aligned to {} bytes, but device tier '{}' needs {}",
                              alignment, TierName(profile_.device_tier), required));
    }
    for (size_t r = 0; r < plan_.residency.size(); ++r) {
      const int64_t bytes = plan_.residency[r].bytes;
      if (bytes <= 0) continue;
      const int64_t offset = plan_.layout.offset_bytes[r];
      if (offset % alignment != 0) {
        return Fail(3, -1,
                    fmt::format("{} is at offset {}, not a multiple of the arena's {}-byte "
                                "alignment",
                                IntervalName(r), offset, alignment));
      }
      if (offset + AlignUp(bytes, alignment) > plan_.layout.arena_bytes) {
        return Fail(3, -1,
                    fmt::format("{} at offset {}, padded to {} bytes, ends past the arena of {} "
                                "bytes (the arena size must count the padding)",
                                IntervalName(r), offset, AlignUp(bytes, alignment),
                                plan_.layout.arena_bytes));
      }
    }
    return true;
  }

  // Invariants 2 and 3 for the off-device buffers: one buffer per tier holding a copy, within
  // its capacity (when the plan claims to fit); every copy aligned and inside its buffer; no
  // two copies of a tier overlap in it unless the waits order one's free before the other's
  // allocation (tier_layout.h).
  bool CheckTierBuffers() {
    std::map<TierId, const TierBuffer*> buffer_of;
    for (const TierBuffer& buffer : plan_.tier_buffers) {
      const bool valid = buffer.tier >= 0 &&
                         static_cast<size_t>(buffer.tier) < profile_.tiers.size() &&
                         buffer.tier != profile_.device_tier;
      if (!valid || !buffer_of.emplace(buffer.tier, &buffer).second) {
        return Fail(
            0, -1,
            fmt::format("the tier buffer for tier {} is malformed or listed twice", buffer.tier));
      }
      const int64_t required = profile_.tiers[buffer.tier].alignment_bytes;
      if (!PowerOfTwo(buffer.alignment_bytes) ||
          (required > 1 && buffer.alignment_bytes % required != 0)) {
        return Fail(3, -1,
                    fmt::format("the buffer of tier '{}' is aligned to {} bytes; the tier needs "
                                "a power of two that is a multiple of {}",
                                TierName(buffer.tier), buffer.alignment_bytes, required));
      }
      const int64_t capacity = profile_.tiers[buffer.tier].capacity_bytes;
      if (evaluation_.fits && capacity > 0 && buffer.size_bytes > capacity) {
        return Fail(2, -1,
                    fmt::format("the buffer of tier '{}' ({} bytes) exceeds its capacity of {}",
                                TierName(buffer.tier), buffer.size_bytes, capacity));
      }
    }
    const std::vector<LayoutBlock> blocks = planner::TierCopyBlocks(plan_, profile_);
    std::map<TierId, std::vector<size_t>> copies_on;
    for (size_t c = 0; c < plan_.tier_copies.size(); ++c) {
      const TierCopy& copy = plan_.tier_copies[c];
      auto buffer = buffer_of.find(copy.tier);
      if (buffer == buffer_of.end()) {
        return Fail(3, -1, CopyName(c, blocks[c]) + " has no buffer on its tier");
      }
      const int64_t alignment = buffer->second->alignment_bytes;
      if (copy.offset_bytes < 0 || copy.offset_bytes % alignment != 0 ||
          copy.offset_bytes + AlignUp(copy.bytes, alignment) > buffer->second->size_bytes) {
        return Fail(3, -1,
                    fmt::format("{} is not at a multiple of {} bytes inside the tier's buffer of "
                                "{} bytes (padding counted)",
                                CopyName(c, blocks[c]), alignment, buffer->second->size_bytes));
      }
      if (copy.bytes > 0) copies_on[copy.tier].push_back(c);
    }
    for (const auto& [tier, copies] : copies_on) {
      if (!CheckCopiesDisjoint(copies, blocks)) return false;
    }
    return true;
  }

  // A sweep over the compute-step axis, as CheckArenaDisjoint does for the arena.
  bool CheckCopiesDisjoint(std::vector<size_t> copies, const std::vector<LayoutBlock>& blocks) {
    std::sort(copies.begin(), copies.end(), [&](size_t a, size_t b) {
      return std::tie(blocks[a].first, a) < std::tie(blocks[b].first, b);
    });
    using Ending = std::pair<int32_t, size_t>;  // (last position, copy)
    std::priority_queue<Ending, std::vector<Ending>, std::greater<Ending>> live_until;
    std::multimap<int64_t, size_t> live;  // offset -> copy
    for (const size_t c : copies) {
      while (!live_until.empty() && live_until.top().first < blocks[c].first) {
        const size_t gone = live_until.top().second;
        live_until.pop();
        auto range = live.equal_range(plan_.tier_copies[gone].offset_bytes);
        for (auto it = range.first; it != range.second; ++it) {
          if (it->second == gone) {
            live.erase(it);
            break;
          }
        }
      }
      const int64_t offset = plan_.tier_copies[c].offset_bytes;
      const int64_t end = offset + plan_.tier_copies[c].bytes;
      auto next = live.lower_bound(offset);
      std::optional<size_t> clash;
      if (next != live.end() && next->first < end) clash = next->second;
      if (!clash && next != live.begin()) {
        const size_t previous = std::prev(next)->second;
        const TierCopy& below = plan_.tier_copies[previous];
        if (below.offset_bytes + below.bytes > offset) clash = previous;
      }
      if (clash) {
        return Fail(3, -1,
                    fmt::format("{} overlaps {} in the tier's buffer, and the waits do not order "
                                "the free of one before the allocation of the other",
                                CopyName(c, blocks[c]), CopyName(*clash, blocks[*clash])));
      }
      live.emplace(offset, c);
      live_until.emplace(blocks[c].last, c);
    }
    return true;
  }

  // Invariant 5: makespan >= each unit's compute total (the device's compute stream and the
  // host lane run side by side), and >= each link's bytes over its bandwidth.
  bool CheckMakespanBounds() {
    int64_t compute_ns[2] = {0, 0};  // by ComputeUnit
    for (const PlanStep& step : plan_.steps) {
      if (step.kind != StepKind::kCompute) continue;
      compute_ns[step.unit == ComputeUnit::kHost ? 1 : 0] += plan_.node_time_ns[step.node];
    }
    for (const ComputeUnit unit : {ComputeUnit::kDevice, ComputeUnit::kHost}) {
      const int64_t unit_ns = compute_ns[unit == ComputeUnit::kHost ? 1 : 0];
      if (sim_.makespan_ns < unit_ns) {
        return Fail(5, -1,
                    fmt::format("makespan {} ns is below the {}'s compute total of {} ns",
                                sim_.makespan_ns, ComputeUnitName(unit), unit_ns));
      }
    }
    for (size_t l = 0; l < profile_.links.size(); ++l) {
      const __int128 moved = static_cast<__int128>(sim_.bytes_moved_per_link[l]) * 1'000'000'000;
      const __int128 capacity =
          static_cast<__int128>(sim_.makespan_ns) * profile_.links[l].bandwidth_bytes_per_s;
      if (moved > capacity) {
        return Fail(5, -1,
                    "link " + std::to_string(l) + " moves " +
                        std::to_string(sim_.bytes_moved_per_link[l]) +
                        " bytes, more than its bandwidth allows in the makespan");
      }
    }
    return true;
  }

  // Invariant 6: with offloading off, the plan is the no-offload baseline.
  bool CheckNoOffloadIsBaseline() {
    if (plan_.offload_enabled) return true;
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      if (plan_.steps[i].kind == StepKind::kCompute && plan_.steps[i].unit == ComputeUnit::kHost) {
        return Fail(6, static_cast<int32_t>(i), "offloading is off but the step runs on the host");
      }
    }
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      if (plan_.steps[i].kind != StepKind::kCompute) {
        return Fail(6, static_cast<int32_t>(i), "offloading is off but the plan has a cache op");
      }
    }
    if (plan_.order != ModelOrder(graph_)) {
      return Fail(6, -1, "offloading is off but the order is not the model's");
    }
    if (sim_.makespan_ns != sim_.compute_ns) {
      return Fail(6, -1, "offloading is off but the makespan differs from the compute total");
    }
    const int64_t baseline_peak = AnalyzeLifetimes(graph_, plan_.order).timeline.peak_bytes;
    if (plan_.layout.live_peak_bytes != baseline_peak) {
      return Fail(
          6, -1,
          "offloading is off but the peak (" + std::to_string(plan_.layout.live_peak_bytes) +
              " bytes) differs from the baseline (" + std::to_string(baseline_peak) + " bytes)");
    }
    return true;
  }

  // Invariant 8: a periodic plan ends as it began. Every persistent value (a weight, an aliased
  // input) is resident at the end exactly when it was at the start, at the same arena offset,
  // and has its copies on the same off-device tiers.
  bool CheckLoopClosed() {
    if (!plan_.periodic) return true;
    const std::vector<uint8_t> persistent = PersistentValues(graph_, plan_.aliases);
    std::map<ValueId, int64_t> start_offset;
    std::map<ValueId, int64_t> end_offset;
    for (size_t r = 0; r < plan_.residency.size(); ++r) {
      const ResidentInterval& interval = plan_.residency[r];
      // Resident experts live the whole iteration in one block (CheckRoutedFetchRules).
      if (interval.value == kNoValue || !persistent[interval.value] || !interval.experts.empty()) {
        continue;
      }
      if (interval.opened_by < 0) start_offset[interval.value] = plan_.layout.offset_bytes[r];
      if (interval.closed_by < 0) end_offset[interval.value] = plan_.layout.offset_bytes[r];
    }
    for (size_t id = 0; id < persistent.size(); ++id) {
      if (!persistent[id]) continue;
      const auto value = static_cast<ValueId>(id);
      const auto start = start_offset.find(value);
      const auto end = end_offset.find(value);
      const bool at_start = start != start_offset.end();
      const bool at_end = end != end_offset.end();
      if (at_start != at_end) {
        return Fail(8, -1,
                    ValueName(value) + " is on the device at the iteration's " +
                        (at_start ? "start but not at its end" : "end but not at its start"));
      }
      if (at_start && start->second != end->second) {
        return Fail(8, -1,
                    ValueName(value) + " starts the iteration at arena offset " +
                        std::to_string(start->second) + " but ends it at " +
                        std::to_string(end->second));
      }
    }
    std::map<std::pair<ValueId, TierId>, int> copies_balance;  // start copies minus end copies
    for (const TierCopy& copy : plan_.tier_copies) {
      if (!persistent[copy.value]) continue;
      if (copy.opened_by < 0) ++copies_balance[{copy.value, copy.tier}];
      if (copy.closed_by < 0) --copies_balance[{copy.value, copy.tier}];
    }
    for (const auto& [key, balance] : copies_balance) {
      if (balance != 0) {
        return Fail(8, -1,
                    ValueName(key.first) + " has " + (balance > 0 ? "fewer" : "more") +
                        " copies on " + TierName(key.second) +
                        " at the iteration's end than at "
                        "its start");
      }
    }
    return true;
  }

  // Every check after the replay, in the order Run applies them.
  using Check = bool (Verifier::*)();
  static constexpr Check kChecks[] = {
      &Verifier::CheckChunkRules,
      &Verifier::CheckTransfersReadCompleteCopies,
      &Verifier::CheckHostStepsReadHostCopies,
      &Verifier::CheckRoutedFetchRules,
      &Verifier::CheckResidenciesDisjointPerValue,
      &Verifier::CheckResidencyEnds,
      &Verifier::CheckCacheOpsAccounted,
      &Verifier::CheckInputsResident,
      &Verifier::CheckTierCapacity,
      &Verifier::CheckReportedPeak,
      &Verifier::CheckArenaDisjoint,
      &Verifier::CheckArenaCoversReplay,
      &Verifier::CheckArenaAlignment,
      &Verifier::CheckTierBuffers,
      &Verifier::CheckMakespanBounds,
      &Verifier::CheckNoOffloadIsBaseline,
      &Verifier::CheckLoopClosed,
  };

  const Graph& graph_;
  const HardwareProfile& profile_;
  const Plan& plan_;
  // What is claimed of the plan (whether it fits, its summary); the timeline the checks read
  // is the verifier's own replay (sim_).
  const PlanEvaluation& evaluation_;
  VerifyResult result_;
  SimulationResult sim_;
  std::vector<Step> step_of_node_;
  std::vector<int32_t> compute_index_;  // by step
  // By step k: the last device compute step at a position before k (index into Plan::steps);
  // -1 when none. Host steps hold no device memory, so an allocation need not wait for them.
  std::vector<int32_t> device_compute_before_;
  std::vector<int64_t> free_ns_;
  std::vector<int32_t> last_chunk_;  // by step: the step completing its transfer (chunks.h)
  std::map<ValueId, std::vector<size_t>> intervals_of_;
  std::multimap<int32_t, size_t> copies_by_opener_;
  std::map<ValueId, std::vector<size_t>> copies_of_;
  std::map<ValueId, std::vector<int32_t>> stores_of_;
};

}  // namespace

std::string DescribeStep(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                         int32_t index) {
  const PlanStep& step = plan.steps[index];
  std::string text =
      "step " + std::to_string(index) + " (" + std::string(StepKindName(step.kind)) + " ";
  if (step.kind == StepKind::kCompute) {
    const bool valid = step.node >= 0 && static_cast<size_t>(step.node) < graph.nodes.size();
    text += valid ? "'" + graph.nodes[step.node].name + "'" : "?";
    if (step.unit == ComputeUnit::kHost) text += " on the host";
  } else {
    text += QuotedValueName(graph, step.value);
    if (step.kind != StepKind::kDetach) {
      text += " " + TierName(profile, step.src_tier) + "->" + TierName(profile, step.dst_tier);
    }
  }
  return text + ")";
}

VerifyResult VerifyPlan(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                        const PlanEvaluation& evaluation) {
  if (!plan.periodic) {
    if (!plan.aliases.empty()) {
      VerifyResult result;
      result.ok = false;
      result.invariant = 8;
      result.message = "invariant 8: a one-shot plan has no aliases";
      return result;
    }
    return Verifier(graph, profile, plan, evaluation).Run();
  }
  Graph loop_graph;
  try {
    loop_graph = LoopGraph(graph, plan.aliases);
  } catch (const Error& error) {
    VerifyResult result;
    result.ok = false;
    result.invariant = 8;
    result.message = std::string("invariant 8: ") + error.what();
    return result;
  }
  return Verifier(loop_graph, profile, plan, evaluation).Run();
}

}  // namespace hyperplan
