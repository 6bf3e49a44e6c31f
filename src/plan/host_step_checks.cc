// Invariant 1 for host compute steps: the copies on the host tier they read and write (see
// host_step_checks.h).
#include "plan/host_step_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "plan/compute_bounds.h"
#include "plan/step_names.h"

namespace hyperplan {
namespace {

bool Contains(const std::vector<ValueId>& values, ValueId value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

class HostStepChecker {
 public:
  HostStepChecker(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                  const SimulationResult& replay, const HomeCopyCurrentFn& home_copy_current)
      : graph_(graph),
        profile_(profile),
        plan_(plan),
        replay_(replay),
        home_copy_current_(home_copy_current),
        host_tier_(profile.host_compute.memory_tier),
        copies_of_(graph.values.size()),
        intervals_of_(graph.values.size()),
        step_of_node_(graph.nodes.size(), -1) {
    for (size_t c = 0; c < plan.tier_copies.size(); ++c) {
      copies_of_[plan.tier_copies[c].value].push_back(static_cast<int32_t>(c));
    }
    for (size_t r = 0; r < plan.residency.size(); ++r) {
      const ValueId value = plan.residency[r].value;
      if (value != kNoValue) intervals_of_[value].push_back(static_cast<int32_t>(r));
    }
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      if (plan.steps[i].kind == StepKind::kCompute) {
        step_of_node_[plan.steps[i].node] = static_cast<int32_t>(i);
      }
    }
  }

  // The copies' ends first (which steps may open and close them), then each host step in
  // sequence order; the happens-before clocks only for a plan with a host step.
  std::optional<HostStepFailure> Run() {
    if (CheckCopyEndsByComputeSteps()) return failure_;
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      if (!IsHostCompute(static_cast<int32_t>(i))) continue;
      if (!happens_before_) happens_before_.emplace(plan_, profile_);
      const auto index = static_cast<int32_t>(i);
      if (CheckHostUpdates(index) || CheckHostInputs(index) || CheckHostOutputs(index)) {
        return failure_;
      }
    }
    return std::nullopt;
  }

 private:
  // Records the failure; returns true so that callers read `if (Check...()) stop`.
  bool Fail(int32_t step, std::string message) {
    failure_ = HostStepFailure{1, step, std::move(message)};
    return true;
  }

  std::string ValueName(ValueId value) const { return QuotedValueName(graph_, value); }
  std::string HostTierName() const { return TierName(profile_, host_tier_); }
  std::string Describe(int32_t index) const { return DescribeStep(graph_, profile_, plan_, index); }

  bool IsHostCompute(int32_t index) const {
    const PlanStep& step = plan_.steps[index];
    return step.kind == StepKind::kCompute && step.unit == ComputeUnit::kHost;
  }

  // A compute step opens a copy only as a host step writing it on H, and closes one only as a
  // host step reading it there (the last reader frees it).
  bool CheckCopyEndsByComputeSteps() {
    for (size_t c = 0; c < plan_.tier_copies.size(); ++c) {
      const TierCopy& copy = plan_.tier_copies[c];
      const std::string name = fmt::format("tier copy {} ({} on {})", c, ValueName(copy.value),
                                           TierName(profile_, copy.tier));
      if (OpensOrClosesWrongly(copy.opened_by, copy, /*opening=*/true)) {
        return Fail(copy.opened_by,
                    fmt::format("opens {}, but a compute step opens only a copy of a value it "
                                "writes, as a host step, on the host compute tier {}",
                                name, HostTierName()));
      }
      if (OpensOrClosesWrongly(copy.closed_by, copy, /*opening=*/false)) {
        return Fail(copy.closed_by,
                    fmt::format("frees {}, but a compute step frees only a copy of a value it "
                                "reads, as a host step, on the host compute tier {}",
                                name, HostTierName()));
      }
    }
    return false;
  }

  bool OpensOrClosesWrongly(int32_t index, const TierCopy& copy, bool opening) const {
    if (index < 0 || plan_.steps[index].kind != StepKind::kCompute) return false;
    if (!IsHostCompute(index) || copy.tier != host_tier_) return true;
    const Node& node = graph_.nodes[plan_.steps[index].node];
    return !Contains(opening ? node.outputs : node.inputs, copy.value);
  }

  static bool HasBytes(const Value& value) { return value.size_known && value.bytes > 0; }

  // Each input from a copy on H, complete when the step starts and kept until it ends.
  bool CheckHostInputs(int32_t index) {
    const Node& node = graph_.nodes[plan_.steps[index].node];
    for (ValueId input : node.inputs) {
      if (!HasBytes(graph_.values[input])) continue;
      bool readable = false;
      for (int32_t c : copies_of_[input]) readable |= Readable(plan_.tier_copies[c], index);
      if (!readable) return Fail(index, WhyUnreadable(input, index));
    }
    return false;
  }

  bool CompleteAtStart(const TierCopy& copy, int32_t reader) const {
    if (copy.opened_by < 0) {
      return home_copy_current_(copy.value, copy.tier, replay_.steps[reader].start_ns);
    }
    const PlanStep& opener = plan_.steps[copy.opened_by];
    const bool writes_host_tier =
        IsHostCompute(copy.opened_by) ||
        ((opener.kind == StepKind::kStore || opener.kind == StepKind::kPrefetch) &&
         opener.dst_tier == host_tier_);
    return writes_host_tier && (*happens_before_)(copy.opened_by, reader);
  }

  bool KeptUntilEnd(const TierCopy& copy, int32_t reader) const {
    return copy.closed_by < 0 || copy.closed_by == reader ||
           (*happens_before_)(reader, copy.closed_by);
  }

  bool Readable(const TierCopy& copy, int32_t reader) const {
    return copy.tier == host_tier_ && CompleteAtStart(copy, reader) && KeptUntilEnd(copy, reader);
  }

  // The rule the most recent copy on H opened before the reader breaks, or that there is none.
  std::string WhyUnreadable(ValueId input, int32_t reader) const {
    const TierCopy* latest = nullptr;
    for (int32_t c : copies_of_[input]) {
      const TierCopy& copy = plan_.tier_copies[c];
      if (copy.tier != host_tier_ || copy.opened_by >= reader) continue;
      if (latest == nullptr || copy.opened_by > latest->opened_by) latest = &copy;
    }
    const std::string head =
        fmt::format("the host step reads {} on {}, the host compute tier, but ", ValueName(input),
                    HostTierName());
    if (latest == nullptr) {
      return head + "no copy of it is there (a value computed on the device reaches the host " +
             "by a Store the host step waits for)";
    }
    if (!CompleteAtStart(*latest, reader)) {
      if (latest->opened_by < 0) {
        return head + "its home copy there is stale (an in-place update not yet written back)";
      }
      return head + "it does not wait, directly, through other waits or in host-lane order, " +
             "for " + Describe(latest->opened_by) + ", which writes that copy";
    }
    return head + Describe(latest->closed_by) + " frees that copy before the host step ends";
  }

  // Each output into a copy on H the step opens (an update in place writes the input's home
  // copy instead: CheckHostUpdates).
  bool CheckHostOutputs(int32_t index) {
    const Node& node = graph_.nodes[plan_.steps[index].node];
    for (ValueId output : node.outputs) {
      if (!HasBytes(graph_.values[output])) continue;
      bool written = false;
      for (int32_t c : copies_of_[output]) {
        const TierCopy& copy = plan_.tier_copies[c];
        written |= copy.tier == host_tier_ && copy.opened_by == index;
      }
      if (!written) {
        return Fail(index, fmt::format("the host step writes {} with no copy on {}, the host "
                                       "compute tier, opened by it",
                                       ValueName(output), HostTierName()));
      }
    }
    return false;
  }

  // Each value the step updates in place (docs/design.md "Compute units", in-place updates on
  // the host): its home copy is on H, nothing writes that copy back, device reads see the
  // update only through a Prefetch after it, and no device copy outlives the iteration.
  bool CheckHostUpdates(int32_t index) {
    const NodeId node_id = plan_.steps[index].node;
    for (ValueId input : graph_.nodes[node_id].inputs) {
      if (graph_.values[input].written_by != node_id || !HasBytes(graph_.values[input])) continue;
      if (CheckHomeOnHostTier(index, input) || CheckNoStoreOver(index, input) ||
          CheckHomeReadsOrdered(index, input) || CheckNotCarried(index, input) ||
          CheckDeviceReadsFresh(index, input)) {
        return true;
      }
    }
    return false;
  }

  bool CheckHomeOnHostTier(int32_t writer, ValueId value) {
    std::optional<TierId> home;
    for (int32_t c : copies_of_[value]) {
      if (plan_.tier_copies[c].opened_by < 0) home = plan_.tier_copies[c].tier;
    }
    if (home == host_tier_) return false;
    return Fail(writer,
                fmt::format("the host step updates {} in place, but its home copy is {}, "
                            "not on {}, the host compute tier (a host step updates only "
                            "a home copy there)",
                            ValueName(value), home ? "on " + TierName(profile_, *home) : "nowhere",
                            HostTierName()));
  }

  bool IsTransferOf(int32_t index, ValueId value) const {
    const PlanStep& step = plan_.steps[index];
    return (step.kind == StepKind::kStore || step.kind == StepKind::kPrefetch) &&
           step.value == value;
  }

  // The host's update is the home copy's current bytes: a Store there would overwrite it with
  // the device's stale copy.
  bool CheckNoStoreOver(int32_t writer, ValueId value) {
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const auto index = static_cast<int32_t>(i);
      if (!IsTransferOf(index, value) || plan_.steps[i].kind != StepKind::kStore ||
          plan_.steps[i].dst_tier != host_tier_) {
        continue;
      }
      return Fail(index, fmt::format("writes the home copy of {} on {}, which {} updates in place "
                                     "(the update is the current copy: nothing is written back)",
                                     ValueName(value), HostTierName(), Describe(writer)));
    }
    return false;
  }

  // Every transfer reading the home copy is ordered with the update, so none reads it half
  // written.
  bool CheckHomeReadsOrdered(int32_t writer, ValueId value) {
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const auto index = static_cast<int32_t>(i);
      if (!IsTransferOf(index, value) || plan_.steps[i].src_tier != host_tier_) continue;
      if ((*happens_before_)(index, writer) || (*happens_before_)(writer, index)) continue;
      return Fail(writer, fmt::format("the host step updates {} in place while {} may still read "
                                      "its home copy (neither waits for the other, directly or "
                                      "through other waits and stream order)",
                                      ValueName(value), Describe(index)));
    }
    return false;
  }

  // A device step reads the bytes of its place in the order: before the update, a copy
  // fetched before it; after the update, a copy a Prefetch after it brought.
  bool CheckDeviceReadsFresh(int32_t writer, ValueId value) {
    const Step write_step = plan_.steps[writer].boundary;
    for (NodeId reader : graph_.values[value].consumers) {
      const int32_t index = step_of_node_[reader];
      if (index < 0 || plan_.steps[index].unit != ComputeUnit::kDevice) continue;
      const int32_t opener = DeviceCopyOpener(value, plan_.steps[index].boundary);
      if (opener == kNoOpener) continue;  // CheckInputsResident names a missing copy
      const bool after = plan_.steps[index].boundary > write_step;
      const bool fresh = opener >= 0 && (after ? (*happens_before_)(writer, opener)
                                               : (*happens_before_)(opener, writer));
      if (fresh) continue;
      return Fail(index, fmt::format("reads {} {} {} updates it in place, from a device copy {} (a "
                                     "Prefetch that {} that update brings the bytes of this step)",
                                     ValueName(value), after ? "after" : "before", Describe(writer),
                                     opener < 0 ? "resident from the run's start"
                                                : "opened by " + Describe(opener),
                                     after ? "waits for" : "happens before"));
    }
    return false;
  }

  static constexpr int32_t kNoOpener = -2;

  // The step that opened the device residency covering `at` (-1: the run's start), or
  // kNoOpener.
  int32_t DeviceCopyOpener(ValueId value, Step at) const {
    for (int32_t r : intervals_of_[value]) {
      const ResidentInterval& interval = plan_.residency[r];
      if (interval.first_step <= at && at <= interval.last_step) return interval.opened_by;
    }
    return kNoOpener;
  }

  // In a loop, a device copy open at the iteration's end would start the next one holding
  // bytes the next update makes stale; the next iteration fetches afresh.
  bool CheckNotCarried(int32_t writer, ValueId value) {
    if (!plan_.periodic) return false;
    for (int32_t r : intervals_of_[value]) {
      const ResidentInterval& interval = plan_.residency[r];
      if (interval.opened_by >= 0 && interval.closed_by >= 0) continue;
      return Fail(interval.closed_by < 0 ? -1 : interval.opened_by,
                  fmt::format("{}, which {} updates in place, is on the device when the "
                              "iteration {} (each iteration's device reads fetch it from its "
                              "home copy: docs/design.md \"Compute units\")",
                              ValueName(value), Describe(writer),
                              interval.closed_by < 0 ? "ends" : "starts"));
    }
    return false;
  }

  const Graph& graph_;
  const HardwareProfile& profile_;
  const Plan& plan_;
  const SimulationResult& replay_;
  const HomeCopyCurrentFn& home_copy_current_;
  const TierId host_tier_;
  std::optional<planner::HappensBefore> happens_before_;
  std::vector<std::vector<int32_t>> copies_of_;     // by value: indices into Plan::tier_copies
  std::vector<std::vector<int32_t>> intervals_of_;  // by value: indices into Plan::residency
  std::vector<int32_t> step_of_node_;               // by node: its compute step, or -1
  HostStepFailure failure_;
};

}  // namespace

std::optional<HostStepFailure> CheckHostSteps(const Graph& graph, const HardwareProfile& profile,
                                              const Plan& plan, const SimulationResult& replay,
                                              const HomeCopyCurrentFn& home_copy_current) {
  return HostStepChecker(graph, profile, plan, replay, home_copy_current).Run();
}

}  // namespace hyperplan
