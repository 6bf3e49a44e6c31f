// Lower bounds: what no plan in a given order can beat at a given device budget.
//
// Peak: a node's inputs, outputs and scratch must be resident together while it runs, and
// values that cannot leave the device (no home tier, no route) are resident whenever they are
// live; the largest such floor over the steps bounds every plan's live peak, whatever the
// budget (peak_floor_bytes). And every value that exists during a step (entered or produced,
// not yet read for the last time, or kept for the next iteration) is on the device or in a
// tier off it, so what exceeds the capacities of the tiers off the device is on the device:
// the most bytes existing at any step, less those capacities, is a peak floor too. It is what
// says a model does not fit a machine at all (Llama-3-405B's 810 GB of weights on a 128 GB
// device with a 512 GB pool share).
// Makespan: compute alone (the sum of node times), and the bytes that cannot stay resident
// divided by link bandwidth. For a step s with budget B, let U(s) be the values that exist
// before s, are read after s and are not read by s. At most B - floor(s) bytes of them can be
// resident during s; each one that is not must come back to the device by a Prefetch after
// s, and distinct values need distinct Prefetches. So bytes into the device >=
// max over s of bytes(U(s)) - (B - floor(s)); and, since a value comes back along its route
// from its home (or store) tier, the same holds on every link for the values whose route
// uses it (NVMe behind DDR: the NVMe hop bounds weight streaming). Likewise, values produced
// before s that are read after s or returned as outputs, and are not resident during s, each
// needed a Store along their store route. Transfers overlap compute, so the makespan bound is
// the largest of compute and every link's forced bytes / its bandwidth (and the device's
// total in and out over the summed bandwidth of its links).
// Late fetches: a value read after s in this iteration that is not resident during s comes
// back by a device hop issued at a boundary after s, and the plan format makes a device hop
// wait for the compute stream to reach its boundary: it starts only once compute steps 0..s
// have run. Of U'(s), the values of U(s) read after s within the iteration (a persistent
// value read only before s may come back at the next iteration's start), at most B - floor(s)
// bytes are resident during s, so the makespan is at least the compute through s plus
// (bytes(U'(s)) - (B - floor(s))) over the bandwidth of the device hop they take (or of all
// the device's links together). This is what sees room timing: the Adam moments a training
// step's backward pass reads cannot come in while the forward pass's activations fill the
// device, so they cross after the forward pass, not over the whole iteration. Staging hops
// (NVMe -> DDR) may run before s and get no such term.
// Valid for any plan in `order` whose live bytes stay within B at every step (the
// simulator's per-step accounting), that delivers every output, and whose transfers start
// from a value's home or store tier (as the planner and every contender do: staging copies
// between hops last one hop).
// Loops (`persistent` set, by ValueId, on the loop graph): a persistent value is read again
// next iteration, so it counts at every step but its own uses; what the bound forces moves
// once per iteration. Updates written back in place add nothing to the Store term (a weaker,
// still valid bound), but they bound the time:
// Write-backs: a persistent value updated in place at step w (loop.h) that is off the device
// during step s must have gone home between the end of w and the start of s, one iteration
// around the loop (a Store after w this iteration, or at the next one's start; its Detach
// before s waits for it). Steps s through w run in between, so that window is at most the
// makespan less their compute; when w comes after s it holds the whole iteration up to s, so
// a value produced earlier in the iteration and stored before s went out within it too. Of the
// stored and written values not read during s, at most B - floor(s) bytes stay resident (the
// plan keeps the latest-written ones), so for each write w those written at w or later (around
// the loop from s), and the stored ones when w is after s, put their bytes less the room on
// the device's out-hop within makespan - compute(s..w). The training
// step's updated Adam moments (written by the optimizer after the backward pass, off the
// device during the forward pass's activation peak, beside the stored activations) bound it
// this way: the write-back cannot start before the first optimizer step.
// Cut: take a step s. Every value of P(s) (produced before s, read after s or returned, not
// read at s) that is not resident during s was Detached before s, on the compute stream, after
// its Store ended; every value of U'(s) not resident during s comes back by a device hop that
// waits for the compute stream to pass s. At most B - floor(s) bytes of each set are resident
// during s (each set apart). So the compute stream reaches s no earlier than
// start(s) >= max(C(..s-1), (bytes(P(s)) - (B - floor(s))) / r_out), and the makespan is at
// least start(s) + max(C(s..), C(s) + (bytes(U'(s)) - (B - floor(s))) / r_in), r_out and r_in
// the device's links out and in together: a training step's forward pass stores its
// activations before the turnaround and its backward pass brings them back after it, so the
// two directions' times add up there instead of overlapping over the whole step.
// Cost: O(nodes + values * route length + uses + steps * links), plus a sort of the in-place
// writes at two steps (where the most stored or written bytes must be off the device,
// and the late-fetch step). Limits: one step at a time
// (transfers forced at different steps are not added up), so streaming workloads get the
// step-0 term (every weight not resident at the start comes in once) but not repeated
// fetches; latency and channel splits are ignored; the late-fetch term counts no compute
// after the last byte arrives.
#pragma once

#include <cstdint>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/lifetimes.h"

namespace hyperplan::contenders {

// A makespan term of the form "compute_ns of compute, then bytes over link" (link -1: the
// device's links that way together): ns = compute_ns + bytes / bandwidth, found at step.
struct TimedTransferTerm {
  int64_t ns = 0;
  Step step = -1;
  int64_t compute_ns = 0;
  int64_t bytes = 0;
  int32_t link = -1;
};

struct LowerBounds {
  int64_t peak_floor_bytes = 0;  // no plan's live peak is below this
  // Capacity (see above): the tiers off the device hold host_capacity_bytes together (-1: one
  // is unlimited); most_existing_bytes exist at most_existing_step, so capacity_floor_bytes
  // (their difference) must be on the device then. peak_floor_bytes includes it.
  int64_t host_capacity_bytes = -1;
  int64_t most_existing_bytes = 0;
  Step most_existing_step = -1;
  int64_t capacity_floor_bytes = 0;
  int64_t compute_ns = 0;                         // sum of node times
  int64_t must_fetch_bytes = 0;                   // into the device, at budget B
  int64_t must_store_bytes = 0;                   // out of the device, at budget B
  std::vector<int64_t> must_move_bytes_per_link;  // by link index, at budget B
  int64_t transfer_ns = 0;                        // the largest forced bytes / bandwidth
  int32_t bottleneck_link = -1;  // the link giving transfer_ns (-1: the device's totals)
  // The largest late-fetch term (see above): the compute through `step`, then the bytes read
  // later over a device hop into the device.
  TimedTransferTerm late_fetch;
  // The largest write-back term (see above): the compute from `step` around the loop to the
  // first of the updates counted, then the bytes sent out over a device hop out of the device.
  TimedTransferTerm write_back;
  // The largest cut term (see above): at `step`, store_bytes beyond the room out before it,
  // then fetch_bytes beyond the room in after it.
  struct Cut {
    int64_t ns = 0;
    Step step = -1;
    int64_t store_bytes = 0;
    int64_t fetch_bytes = 0;
  } cut;
  // max(compute_ns, transfer_ns, late_fetch.ns, write_back.ns, cut.ns)
  int64_t makespan_ns = 0;
  // The order the bound was taken in, and per step of it the room the budget leaves beside
  // the floor, B - floor(s) (at least 0), for the host-aware bound's timed terms
  // (host_timed_terms.h).
  std::vector<NodeId> order;
  std::vector<int64_t> room_per_step;
  bool budget_below_floor = false;  // B < peak_floor_bytes: no plan fits at all
};

// `order` must be a topological order of `graph` (the plan's); `node_time_ns` by NodeId.
LowerBounds ComputeLowerBounds(const Graph& graph, const HardwareProfile& profile,
                               const std::vector<NodeId>& order,
                               const std::vector<int64_t>& node_time_ns, int64_t budget_bytes,
                               const std::vector<uint8_t>& persistent = {});

}  // namespace hyperplan::contenders
