// HappensBefore and ComputeBounds: which steps of a plan surely end before others start, in
// every execution its waits allow.
//
// A runtime starts a step when the previous step on its stream (the compute stream: compute
// and Detach steps; or its link channel, StreamNumbering in plan.h) and every step in its
// waits_for have ended, nothing else (plan.h). So step a surely ends before step b starts
// exactly when a chain of stream and wait edges leads from a to b. HappensBefore answers that
// for any pair from one vector clock per step (the latest step of each stream known to have
// ended when the step starts), built in one pass over the sequence.
// ComputeBounds projects it on the compute steps: because each lane (the compute stream, and
// the host lane when host steps run) runs its compute steps in order, "compute step c ended
// before b started" holds for every c up to some bound, and "compute step c starts after a
// ended" for every c from some bound: two integers per step, the tighter of the lanes' (a
// device step ending says nothing of a host step before it in the order, nor the other way). Used
// to lay out off-device tier buffers so that two copies share space only when one is freed before
// the other is allocated in every execution (tier_layout.h), and by the verifier's explicit-waits
// check (verify.h). Cost: O((steps + waits) * streams) time and steps * streams int32 of memory
// (plus steps per lane for the bounds). Limits: waits must point back and transfers name valid
// channels (VerifyPlan checks both first); a wait that points forward is ignored here.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::planner {

class HappensBefore {
 public:
  HappensBefore(const Plan& plan, const HardwareProfile& profile);

  // Whether step `earlier` has ended whenever step `later` starts, whatever the timing: it,
  // or a later step of its stream, is reachable from `later` back through waits and stream
  // order. False when earlier >= later.
  bool operator()(int32_t earlier, int32_t later) const;

  // The last step on `stream` known to have ended when `step` starts; -1 when none.
  int32_t LatestEnded(int32_t step, int32_t stream) const {
    return clock_[static_cast<size_t>(step) * streams_ + stream];
  }
  int32_t stream_of(int32_t step) const { return stream_of_[step]; }
  int32_t stream_count() const { return streams_; }

 private:
  int32_t streams_ = 1;
  std::vector<int32_t> stream_of_;  // by step
  std::vector<int32_t> clock_;      // steps x streams
};

struct ComputeBounds {
  // Per step: the last compute step (position in the order) that has ended before it starts;
  // -1 when none must have.
  std::vector<Step> ended_before;
  // Per step: the first compute step that starts only after it has ended; the order's size
  // when none does.
  std::vector<Step> starts_after;
};

ComputeBounds BoundByCompute(const Plan& plan, const HappensBefore& happens_before);
ComputeBounds BoundByCompute(const Plan& plan, const HardwareProfile& profile);

}  // namespace hyperplan::planner
