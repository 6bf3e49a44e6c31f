// Invariant 1 per compute unit (docs/design.md "Compute units"): what a host compute step reads
// and writes, as the verifier checks it (VerifyPlan calls CheckHostSteps after its device
// checks; verify.h lists the rules).
//
// With H the host compute tier (HostComputeSpec::memory_tier):
// - only a host compute step opens or closes a TierCopy among the compute steps: it opens a copy
//   on H of a value it writes, and may close a copy on H of a value it reads (the last reader);
// - a host step reads each input (a value with known, non-zero bytes) from a TierCopy on H that
//   is complete when it starts, in every execution the waits allow: a current home copy, or a
//   copy whose opener (a transfer into H, or a host step) happens before it (HappensBefore,
//   compute_bounds.h: waits, stream order and host-lane order); and that is not freed before it
//   ends (closed by the run's end, the step itself, or a step it happens before);
// - a host step writes each output into a TierCopy on H that it opens itself;
// - a host step may update a value V in place (`Value::written_by`: a KV append, an optimizer
//   update), which writes V's home copy, current from then on (docs/design.md "Compute
//   units"); the plan breaks that by: V's home copy not on H; a Store writing V's home copy
//   (the update would be overwritten); a transfer reading the home copy not ordered with the
//   update (HappensBefore either way); a device step reading V after the update (by order
//   position) from a copy no Prefetch after the update opened, or before it from one not
//   fetched before it; in a loop, a device copy of V open at the iteration's start or end.
// A host step needs no device residency; the verifier's device rules skip it.
// Cost: O(steps * streams) for the happens-before clocks plus O(copies + uses) for the checks.
// Limits: expects a plan whose shapes VerifyPlan has checked (indices in range, the profile
// has a host unit when a step runs on the host).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

// The first rule a plan breaks: the invariant, the step at fault (-1: none) and the rule in
// words, without the "invariant N: step S (...): " prefix the verifier adds.
struct HostStepFailure {
  int invariant = 1;
  int32_t step = -1;
  std::string message;
};

// Whether the home copy of `value` on `tier` holds its current bytes at `at_ns` of the replay
// (the verifier's rule for values updated in place on the device).
using HomeCopyCurrentFn = std::function<bool(ValueId value, TierId tier, int64_t at_ns)>;

// Empty when every host step reads and writes as above; else the first failure, in step order.
std::optional<HostStepFailure> CheckHostSteps(const Graph& graph, const HardwareProfile& profile,
                                              const Plan& plan, const SimulationResult& replay,
                                              const HomeCopyCurrentFn& home_copy_current);

}  // namespace hyperplan
