// Routed hops hold their whole link (issue 31): a routed transfer (a Prefetch or Store with
// routed_by set) on a link of several channels runs on all of them at once, at the link's
// whole bandwidth.
//
// Why: a link's channels split its bandwidth (cost.h ChannelTransferTimeNs: one transfer on one
// of C channels moves at 1/C of it), as several requests in flight share a drive. A routed
// hop moves the slices of the experts the router picked, k of E per token: separate byte
// ranges, which a runtime reads as concurrent requests, one per channel at least, so the hop
// runs at the drive's whole rate (schemas/README.md "Routed transfers"). It holds every channel
// while it runs, so the link never carries more than its bandwidth: it starts once the last
// earlier transfer on each of the link's channels has ended, and each later transfer on any of
// them starts after it ends. A one-channel link is unchanged.
// The simulator (simulate.h StepClock) and the executor (executor/plan_view.h) both follow it;
// WholeLinkWaits spells the ordering as waits for the executor's streams.
// Cost: O(steps + links x channels). Limits: the routed bytes are the expected ones (as the
// simulator's), whatever the number of picked experts.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan {

// Whether `step` is a routed transfer on a link of more than one channel.
bool HoldsWholeLink(const HardwareProfile& profile, const PlanStep& step);

// By step, in sequence order: the steps it waits for besides its own waits_for because of a
// transfer that holds its whole link (the last earlier step on each other channel of the link,
// for the one that holds it; that one, for the first later step on each other channel).
std::vector<std::vector<int32_t>> WholeLinkWaits(const HardwareProfile& profile, const Plan& plan);

}  // namespace hyperplan
