// The device-only bound's cut term (lower_bounds.h) under a host placement, as relief conditions
// (relief_condition.h) for the host-aware bound (host_lower_bound.h).
//
// Take a step s whose node is in no part (it runs on the device in every placement) and a
// placement x (x_p = 1: part p on the host). During s at most room'(s) bytes of each set below
// are resident (each set apart): room(s) = B - floor(s), plus the values that cannot leave that a
// part touches (under x they may be off the device: host_timed_terms.h).
// - Before s: P(s), the values produced before s in the iteration, read after s (or outputs),
//   not read at s. One a device node produced that is off the device during s went out by a
//   Store (an ordinary one, or a host crossing) that ended before its Detach, which the compute
//   stream runs before s; all of them on the device's out-links, from the iteration's start. So
//   s starts at start(s) >= (bytes(P(s)) - room'(s) - sum_p x_p g_p) / r_out, g_p the bytes of
//   P(s) that part p produces or updates in place (a host node's output is never on the device;
//   each value counts whole in each such part, an over-count, which only lowers the term).
// - After s: U'(s) as the late-fetch condition takes it (host_late_fetch.h): each value off the
//   device during s that a device node reads after s comes back by a device hop issued at a
//   boundary after s, which waits for the compute stream to pass s, at start(s) + C(s) at the
//   earliest (C(s): the node at s, on the device). So
//   T >= start(s) + C(s) + (bytes(U'(s)) - room'(s) - sum_p x_p u_p) / r_in, u_p part p's
//   relief there: a value a device node reads after s is relieved by no part, even one that
//   produces or updates it (the device gets it only by a hop in). On the 8B training step the
//   weights the backward pass reads are those (16 GB on rtx-4090-xeon-2s: 3.28 s with them
//   relieved, below the timed floor's 3.47 s; 3.88 s without, docs/benchmarks.md).
// The same room in both halves is sound: each half bounds its own quantity (the Stores before s,
// the fetches after it), and the two windows, [0, start(s)] and [start(s) + C(s), T], are
// disjoint. So T >= (bytes(P) - room' - sum x_p g_p) / r_out + C(s) + (bytes(U') - room' -
// sum x_p u_p) / r_in: the out- and in-link times add up instead of overlapping (a training
// step: the forward pass stores its activations before the loss, the backward pass fetches
// them after it). As one condition at r_in: bytes (bytes(P) - room') r_in / r_out (rounded
// down) + C(s) r_in + bytes(U') - room', relief g_p r_in / r_out (rounded up) + u_p; a smaller
// constant or a larger relief only lowers it. Taken only where both halves exceed the room
// (elsewhere the late-fetch condition, with C(..s), is the stronger).
// Steps: the device-only bound's cut step and the kCutTopSteps largest by the condition with no
// part on the host and with every part there (any set of steps gives a bound). Cost:
// O(values * uses + steps log steps) to rank, then O(values * uses + parts) per step taken.
// Limits: the links each way together only; the compute before s and the parts' device time
// around s are left out (they would only raise it); a placement's crossings are not counted.
#pragma once

#include <vector>

#include "contenders/lower_bounds.h"
#include "contenders/relief_condition.h"
#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/problem.h"

namespace hyperplan::contenders {

// How many steps each ranking adds beside the device-only bound's cut step.
inline constexpr int kCutTopSteps = 4;

// The conditions (see above) in `device`'s order for `parts`, one per step taken where both
// halves leave bytes beyond the room.
std::vector<ReliefCondition> HostCutConditions(const Problem& problem, const LowerBounds& device,
                                               const std::vector<HostPart>& parts);

}  // namespace hyperplan::contenders
