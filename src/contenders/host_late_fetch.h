// The device-only bound's late-fetch term (lower_bounds.h) under a host placement, as relief
// conditions (relief_condition.h) for the host-aware bound (host_lower_bound.h).
//
// Take a step s whose node is in no part (it runs on the device in every placement) and a
// placement x (x_p = 1: part p on the host). U'(s): the values that can leave the device, exist
// before s, are read after s within the iteration and are not read at s (lower_bounds.h). At
// most room'(s) bytes of them are resident during s: room(s) = B - floor(s), plus the values that
// cannot leave that a part touches (under x they may be off the device: host_timed_terms.h).
// Each other one that a device node reads after s comes back by a device hop issued at a
// boundary after s (issued at or before s it would be resident during s), whoever produced or
// updated it (a crossing from the host's copy or a fetch from its home: the device gets a value
// no other way), which waits for the compute stream to reach it: after the nodes in no part at
// steps 0..s, C(..s), ran on the device one at a time. So
//   T >= C(..s) + (bytes(U'(s)) - room'(s) - relieved(x)) / r_in,
// r_in the device's links in together, relieved(x) the bytes of U'(s) that no device node reads
// after s. A value whose readers after s are all in parts, k of them, needs no device hop only
// when all k run on the host, so at most min x_p <= (1/k) sum x_p of it is relieved: each of
// those parts' relief counts it at 1/k of its bytes, and a part that produces or updates it in
// place counts it whole (an over-count, which only lowers the condition); each part counts a
// value once. Until 2026-11-29 (package W5) a part producing or updating a value relieved it
// even where a device node reads it after s: on the training step, the weights the backward
// pass reads, which the host's optimizer updates (16 GB on rtx-4090-xeon-2s).
// A routed operand (its one reader a MoE node that picks experts: routed_fetch.h) counts at the
// bytes a fetch after route moves, its slice times the experts' touch chances (in expectation
// over routings, as routed_lane_bound.h): counted whole, the term held a plan that fetches the
// picked experts alone to the whole stacked tensors (DeepSeek-V3 int4 on h100-sxm: 1.91 s
// above a 665 ms plan).
// Relief over-counted only lowers the condition: a forced transfer of bytes(U'(s)) - room'(s) +
// C(..s) r_in bytes at r_in with its own relief per part.
// On a training step with every optimizer update on the host it relieves the Adam moments (only
// the updates read them), not the weights or the activations the backward pass reads; on a
// decode, the KV caches and weights only host parts read.
// Steps: the device-only bound's late-fetch step and the kLateFetchTopSteps steps whose term is
// largest with every part on the host (all relief taken); any set of steps gives a bound. Cost:
// O(values * uses + steps log steps) to rank the steps, then O(values * uses + parts) per step
// taken. Limits: the in-links together only, not each link; the fresh fetch of a value the host
// updates in place, and every crossing, are not counted.
#pragma once

#include <cstdint>
#include <vector>

#include "contenders/host_timed_terms.h"
#include "contenders/lower_bounds.h"
#include "contenders/relief_condition.h"
#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/problem.h"

namespace hyperplan::contenders {

// How many steps beside the device-only bound's late-fetch step the conditions are taken at.
inline constexpr int kLateFetchTopSteps = 8;

// U'(s) in an order for `parts` (see above), what the late-fetch and the cut conditions
// (host_cut.h) share: per step its bytes (a routed operand at a fetch after route's), and its
// relief per part. Holds the lifetimes in the order (so not copyable).
class LateFetchWaits {
 public:
  LateFetchWaits(const Problem& problem, const std::vector<NodeId>& order,
                 const std::vector<HostPart>& parts);
  LateFetchWaits(const LateFetchWaits&) = delete;
  LateFetchWaits& operator=(const LateFetchWaits&) = delete;

  // By step: bytes(U'(s)), and its relief with every part on the host (each part's summed).
  void PerStep(std::vector<int64_t>& wait_bytes, std::vector<int64_t>& relieved_bytes) const;
  // bytes(U'(s)); adds each part's relief at s to `relief` (by part).
  int64_t At(Step s, std::vector<int64_t>& relief) const;
  // By NodeId: the part holding it (-1: none).
  const std::vector<int>& part_of() const { return part_of_; }
  // The lifetimes in the order.
  const LifetimeAnalysis& lifetimes() const { return lifetimes_.get(); }

 private:
  const Problem& problem_;
  LifetimesInOrder lifetimes_;
  std::vector<int> part_of_;
  std::vector<int64_t> fetch_bytes_;  // by value
  size_t part_count_;
};

// The conditions (see above) in `device`'s order for `parts`, one per step taken that leaves
// bytes beyond the room.
std::vector<ReliefCondition> HostLateFetchConditions(const Problem& problem,
                                                     const LowerBounds& device,
                                                     const std::vector<HostPart>& parts);

}  // namespace hyperplan::contenders
