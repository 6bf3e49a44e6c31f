// The device-only bound's write-back term (lower_bounds.h) under a host placement, as
// conditions for the host-aware bound (host_lower_bound.h).
//
// Take a step s whose node is in no part (it runs on the device in every placement) and a
// placement x (x_p = 1: part p on the host). During s at most room'(s) bytes of the values below
// are resident: room(s) = B - floor(s), plus the bytes of the values that cannot leave that a
// part touches (under x they may be off the device: host_timed_terms.h). The values:
// - stored: produced before s in the iteration by a device node (in no part, or in a part with
//   x_p = 0), read after s (or an output), not read at s; one a host node produces was never on
//   the device;
// - written: persistent values a device node updates in place (in_place_writes.h), not read at
//   s; one the host updates leaves the device's copy stale (the device fetches it afresh, which
//   is not counted here) and sends nothing home.
// Each of them off the device during s went out over a device hop that ended before s (a Store
// or a host crossing ends before its Detach, which the compute stream runs before s): a written
// one after its write w ended, one iteration around the loop; a stored one after its producer,
// so after every step of the previous iteration. The device runs its steps in the order, one at
// a time, so the nodes in no part at steps s..w (around the loop from s) run after s of one
// iteration and before w ends, ahead of the window. As the device-only term, take the writes
// latest around the loop first: for the k-th distinct write step w_k, the written values at w_k
// or later and, when w_k is after s, the stored ones (their window follows steps s..n-1 of the
// previous iteration, so s..w_k) all cross within T - C(s..w_k), C the device time of the nodes
// in no part. So T >= C(s..w_k) + (E_k - sum_p x_p g_p - room'(s)) / r_out, with E_k their bytes
// with every node on the device, g_p the bytes of them part p writes or produces (one writer or
// producer each, so exact at integral x) and r_out the device's links out together: a forced
// transfer of E_k - room'(s) + C(s..w_k) r_out bytes at r_out with its own relief per part.
// On a training step with every optimizer update on the device it is the device-only write-back
// term less the parts' device time in its window; each update moved to the host relieves the
// state it writes (moments, weights) at the cost of its host time. On the 8B training step on
// rtx-4090-xeon-2s its optimum is every update on the host: 3.56 s in the model's order, above
// the timed floor's 3.47 s (host_timed_terms.h), 3.46 s in a contender's order.
// Cost: per step taken (the device-only bound's write-back and late-fetch steps) O(values + uses
// + writes log writes + conditions * parts). Limits: the out-links together only, not each link;
// the parts' device time in the window, (1 - x_p) d_p, is left out (it would only raise the
// term); the gradients a host update reads and the weights it sends back are not counted.
#pragma once

#include <cstdint>
#include <vector>

#include "contenders/lower_bounds.h"
#include "contenders/relief_condition.h"
#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/problem.h"

namespace hyperplan::contenders {

// The conditions at the device-only bound's write-back and late-fetch steps of `device`'s order,
// one per distinct write step that leaves bytes beyond the room, for `parts`: bytes E_k - room'(s)
// + C(s..w_k) r_out, relief g_p.
std::vector<ReliefCondition> HostWriteBackConditions(const Problem& problem,
                                                     const LowerBounds& device,
                                                     const std::vector<HostPart>& parts);

}  // namespace hyperplan::contenders
