// The timed transfer terms of the host-aware bound (host_lower_bound.h): the device-only
// bound's late fetches, and its Stores before a step, for the values no host part touches.
//
// Take a step s whose node is in no part (it runs on the device in every placement), and the
// values V(s) that no part's node reads or writes, that are produced in the iteration (not
// persistent, not an output), exist before s, are read after s and are not read by s. Such a
// value keeps its producer and readers, all device nodes, in every placement, so as on the
// device alone (lower_bounds.h): at most room(s) = B - floor(s) bytes of V(s) are resident
// during s (floor(s): the node at s's working set, a device node's in every placement, and
// the values that cannot leave; those of them a part touches may leave the device under it,
// so their bytes join the room), and each other one
// - went out by a Store (an ordinary one, or a host crossing) that ended before its Detach,
//   which runs on the compute stream before compute step s; every device step from s on runs
//   after it, one at a time, so T >= C(s..) + (bytes(V(s)) - room(s)) / r_out, C(s..) the time
//   of the nodes in no part from step s on;
// - comes back by a device hop issued at a boundary after s (issued at or before s it would be
//   resident during s), which waits for the compute stream to reach it: for every device step
//   through s, so T >= C(..s) + (bytes(V(s)) - room(s)) / r_in.
// r_out and r_in: the device's links out and in, each direction summed. No placement x enters:
// both terms hold for every one, and join the bound as a floor. They bind where activations
// must cross in a forward pass that has little compute left behind them (a training step, whose
// only parts are optimizer updates that touch no activation).
// Cost: O(nodes + values + uses). Limits: one step at a time, as the device-only terms; the
// values parts touch count for nothing (a weaker bound); the rates ignore latency.
#pragma once

#include <cstdint>
#include <vector>

#include "contenders/lower_bounds.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/problem.h"

namespace hyperplan::contenders {

// A bound's lifetimes in `order`: the problem's own where `order` is the model's, else analysed
// anew and held here (so not copyable: get() may point into it).
class LifetimesInOrder {
 public:
  LifetimesInOrder(const Problem& problem, const std::vector<NodeId>& order)
      : model_order_(order == problem.lifetimes.order),
        own_(model_order_ ? LifetimeAnalysis{} : AnalyzeLifetimes(*problem.graph, order)),
        in_order_(model_order_ ? &problem.lifetimes : &own_) {}
  LifetimesInOrder(const LifetimesInOrder&) = delete;
  LifetimesInOrder& operator=(const LifetimesInOrder&) = delete;
  const LifetimeAnalysis& get() const { return *in_order_; }

 private:
  bool model_order_;
  LifetimeAnalysis own_;
  const LifetimeAnalysis* in_order_;
};

struct TimedTerm {
  int64_t ns = 0;  // the larger of the two terms at `step` (0: none)
  Step step = -1;
  int64_t bytes = 0;  // bytes(V(step)) - room(step)
};

// The bytes of the values that cannot leave the device and that a node of `parts` reads or
// writes: under a placement running that part on the host they may be off the device, so a
// device node's floor may drop by them (at most all of them).
int64_t PinnedBytesPartsTouch(const Problem& problem, const std::vector<HostPart>& parts);

// The largest term over the steps of `device`'s order (device.room_per_step), for `parts`.
TimedTerm HostTimedTerm(const Problem& problem, const LowerBounds& device,
                        const std::vector<HostPart>& parts);

}  // namespace hyperplan::contenders
