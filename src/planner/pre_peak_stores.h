// PrePeakStores: the Stores that may be issued up to the no-offload peak, placed a second time
// on the compute-only axis, so that refine can tell a Store that fits the run up to the peak
// from one that fits only because the last plan waited there.
//
// A retimed axis (retime.h) is the timeline the last plan ran on, its stalls included. Up to
// the no-offload peak the device fills, and a plan that waits there mostly waits for its own
// Stores: the Detach that makes room cannot go before its Store ends. Judged on that axis, the
// Stores that caused the wait look free, so every later round keeps them and the wait with
// them. The training step at 50% of its peak on a100-pcie4 stored 18.2 GB of activations from
// a 546 ms forward pass over a 25 GB/s link; its forward pass waited 266 ms, and the chain
// stayed at 4.02 s per iteration (1.12x of the bound). Turning those Stores down leaves the
// activations on the device and sends away weights and state whose Stores fall elsewhere in
// the iteration: 3.75-3.78 s.
// So refine places each new Store whose earliest issue step (after its producer or writer) is
// at or before the peak step here too, from that step's compute-only start, against the other
// such Stores taken. The gap's Detach goes no earlier than the first boundary after that Store
// ends on the compute-only axis either; if that is past the step refine must free, the gap is
// turned down at that step when its Detach would wait longer there on the compute-only axis
// than on the axis refine plans on. On the compute-only axis itself the two placements differ
// only in what else holds the link (here, only these Stores; earliest-fit is not monotone in
// that), and judging there too measured better on the training step (50% of its peak on
// a100-pcie4: 3.75 s against 3.85 s judging on retimed axes alone, at f169b4a; no other row
// of the benchmark moved either way), so every axis is judged.
// Why only up to the peak: after it, transfers into the device bind (the training step's
// backward pass reads its Adam moments), and the compute-only axis understates the time by the
// in-link's length; judged there, every write-back of the backward pass looked late (the same
// training step: 4.17 s).
// Cost: O(n) to build (the compute-only step starts); per Store, a second link search per hop
// (link_schedule.h). Limits: where prefetches stretch the run before its peak (weights
// streamed into a prefill), the compute-only axis understates that time too, and a Store that
// would fit the stretched run is turned down; the planner's other plans still compete.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/hardware.h"
#include "hyperplan/routes.h"
#include "planner/context.h"
#include "planner/link_schedule.h"

namespace hyperplan::planner {

class PrePeakStores {
 public:
  explicit PrePeakStores(const PlanContext& context);

  // The hops of a Store of `bytes` along `route`, first issued at `first_boundary`, on the
  // compute-only axis against the Stores reserved here; empty when that step is after the
  // peak.
  std::vector<LinkSlot> Place(const Route& route, int64_t bytes, Step first_boundary) const;

  // The compute-only start of `step`, and the first boundary at or after `from` that starts
  // at or after `time_ns` on the compute-only axis (n + 1 when none).
  int64_t StartNs(Step step) const { return start_ns_[step]; }
  Step FirstBoundaryAtOrAfter(int64_t time_ns, Step from) const;

  // Takes (a Store committed or held while a bundle is placed) or gives back a Store's slots.
  void Reserve(const std::vector<LinkSlot>& hops);
  void Release(const std::vector<LinkSlot>& hops);

 private:
  const HardwareProfile& profile_;
  std::vector<int64_t> start_ns_;  // by step, size n + 1
  Step peak_step_ = 0;
  LinkSchedule links_;
};

}  // namespace hyperplan::planner
