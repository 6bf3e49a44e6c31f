// Re-checking a plan from a file (see plan_check.h).
#include "planio/plan_check.h"

#include "hyperplan/plan/simulate.h"
#include "hyperplan/plan/verify.h"

namespace hyperplan::planio {
namespace {

std::string Mismatch(const std::string& what, int64_t predicted, int64_t replayed) {
  return what + ": the plan predicts " + std::to_string(predicted) + ", a replay gives " +
         std::to_string(replayed);
}

// The first prediction in the file that the replay does not reproduce, or "".
std::string ComparePredictions(const SimulationResult& stored, const SimulationResult& replay) {
  if (stored.steps.size() != replay.steps.size() ||
      stored.peak_bytes_per_tier.size() != replay.peak_bytes_per_tier.size() ||
      stored.bytes_moved_per_link.size() != replay.bytes_moved_per_link.size() ||
      stored.stall_ns_per_node.size() != replay.stall_ns_per_node.size()) {
    return "its timeline does not cover every step, tier, link and node";
  }
  for (size_t i = 0; i < replay.steps.size(); ++i) {
    const StepTiming& predicted = stored.steps[i];
    const StepTiming& replayed = replay.steps[i];
    if (predicted.start_ns != replayed.start_ns || predicted.end_ns != replayed.end_ns) {
      return "step " + std::to_string(i) + ": the plan predicts " +
             std::to_string(predicted.start_ns) + ".." + std::to_string(predicted.end_ns) +
             " ns, a replay gives " + std::to_string(replayed.start_ns) + ".." +
             std::to_string(replayed.end_ns) + " ns";
    }
  }
  if (stored.makespan_ns != replay.makespan_ns) {
    return Mismatch("makespan (ns)", stored.makespan_ns, replay.makespan_ns);
  }
  if (stored.stall_ns != replay.stall_ns) {
    return Mismatch("stall (ns)", stored.stall_ns, replay.stall_ns);
  }
  if (stored.compute_ns != replay.compute_ns) {
    return Mismatch("compute (ns)", stored.compute_ns, replay.compute_ns);
  }
  for (size_t t = 0; t < replay.peak_bytes_per_tier.size(); ++t) {
    if (stored.peak_bytes_per_tier[t] != replay.peak_bytes_per_tier[t]) {
      return Mismatch("peak bytes of tier " + std::to_string(t), stored.peak_bytes_per_tier[t],
                      replay.peak_bytes_per_tier[t]);
    }
  }
  for (size_t l = 0; l < replay.bytes_moved_per_link.size(); ++l) {
    if (stored.bytes_moved_per_link[l] != replay.bytes_moved_per_link[l]) {
      return Mismatch("bytes moved on link " + std::to_string(l), stored.bytes_moved_per_link[l],
                      replay.bytes_moved_per_link[l]);
    }
  }
  for (size_t n = 0; n < replay.stall_ns_per_node.size(); ++n) {
    if (stored.stall_ns_per_node[n] != replay.stall_ns_per_node[n]) {
      return Mismatch("stall (ns) of node " + std::to_string(n), stored.stall_ns_per_node[n],
                      replay.stall_ns_per_node[n]);
    }
  }
  return "";
}

}  // namespace

LoadedPlanCheck CheckLoadedPlan(const Graph& graph, const HardwareProfile& profile,
                                const Plan& from_file, const PlanEvaluation& recorded) {
  LoadedPlanCheck check;
  // The replay below needs every wait to point back; VerifyPlan reports the same rule.
  for (size_t i = 0; i < from_file.steps.size(); ++i) {
    for (int32_t wait : from_file.steps[i].waits_for) {
      if (wait < 0 || static_cast<size_t>(wait) >= i) {
        check.ok = false;
        check.message = "invariant 4: step " + std::to_string(i) + ": waits for step " +
                        std::to_string(wait) + ", which does not come before it";
        return check;
      }
    }
  }
  check.replay = Simulate(graph, profile, from_file);
  const VerifyResult verdict = VerifyPlan(graph, profile, from_file, recorded);
  if (!verdict.ok) {
    check.ok = false;
    check.message = verdict.message;
    return check;
  }
  const std::string waits = CheckExplicitWaits(graph, profile, from_file);
  if (!waits.empty()) {
    check.ok = false;
    check.message = waits;
    return check;
  }
  const std::string predictions = ComparePredictions(recorded.timeline, check.replay);
  if (!predictions.empty()) {
    check.ok = false;
    check.message =
        "the plan's predictions are not what its steps replay to on this profile: " + predictions;
  }
  return check;
}

}  // namespace hyperplan::planio
