// Fetch-after-route as the verifier checks it (docs/design.md "Fetch after route"; plan.h
// PlanStep::routed_by, ResidentInterval::experts). VerifyPlan calls CheckRoutedFetches after its
// shape checks; partial residencies are kept out of its per-value residency index, so they never
// make a value resident for a reader by themselves.
//
// Rules, each failure naming the step and the numbers:
// - a routed step is a Prefetch (towards the device) of a stacked expert operand of its MoE node
//   or the table of its expert Gather (routed_fetch.h RoutedOperandOf) that waits for the
//   router's compute step (the producer of the node's routing input: router_probs, or the
//   Gather's indices) directly, so a runtime has the routing when it starts;
// - to the device, it opens one residency, of exactly `reserved_bytes`, which ends at the MoE
//   node's step (the node is its only reader); a hop before it (NVMe -> DDR) writes a staging
//   copy of exactly `reserved_bytes` that the next routed hop of the value frees; and
//   reserved_bytes is the worst case min(E - h, k * T) slices for the h experts the value's
//   partial residencies hold: the plan holds for every routing, and 0 <= bytes <=
//   reserved_bytes (bytes: the expectation, or a sampled routing's);
// - a partial residency (experts non-empty) lists distinct experts in ascending order within
//   [0, E), holds exactly their slices, lives the whole iteration (opened and closed by none),
//   and belongs to a value that has a routed Prefetch.
// Cost: O(steps + residencies + E per routed step). Limits: expects a plan whose shapes
// VerifyPlan has checked.
#pragma once

#include <optional>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"
#include "plan/host_step_checks.h"

namespace hyperplan {

// Empty when every routed step and partial residency follows the rules; else the first
// failure (invariant 1 or 2: the worst case of a routing not reserved).
std::optional<HostStepFailure> CheckRoutedFetches(const Graph& graph,
                                                  const HardwareProfile& profile, const Plan& plan);

}  // namespace hyperplan
