// The reference executor: runs a plan with real memory, the example a runtime author copies.
//
// The device arena and every tier buffer are real buffers of the planned sizes (a Backend
// allocates them; host_backend.h puts them all in host memory). One thread per stream (the
// compute stream, each link channel, and the host lane when a step runs on the host) walks its
// steps in sequence order, and a step starts when the previous step on its stream and every
// step in its `waits_for` have ended, nothing else (schemas/README.md, "Running a plan"). The
// stream loop is StreamLoop in executor.cc. Before a step touches bytes, the ledger (ledger.h)
// checks that the plan orders it after every access it depends on; then a compute step checks
// each input's bytes against the pattern its producer wrote (byte_pattern.h) and writes its
// outputs, a Prefetch or Store copies between the buffers, a Detach frees. A device compute
// step reads and writes its residencies in the arena; a host compute step (issue 30) reads
// each input from its TierCopy on the host compute tier H (a home copy, a Store's, or an
// earlier host step's) and writes each output into the copy on H it opens, in H's tier buffer:
// the same checks, so a host step that does not wait for the Store bringing its input, or a
// copy freed while a host step still reads it, is caught like any other. A host step updating
// an input in place (loop state) writes the update into its home copy on H; a device copy
// fetched before the update then holds the last iteration's bytes, which a device read after
// the update is refused for, and which a Detach may drop once the update is written. A routed
// Prefetch (fetch after route) reads the routing drawn for its iteration and copies only the
// picked experts not resident, and the MoE node checks each picked expert's slice where it lies
// (routed_view.h). The first problem stops the run and is reported naming the step, the value
// and the rule it breaks.
//
// Loops: a periodic plan runs `iterations` times from the cold start. The caller's part is
// done between iterations, on the calling thread: before iteration 1 every block and copy open
// at the run's start is placed (weights and state at iteration 0's pattern); before each later
// one the persistent blocks must be where the previous iteration left them (invariant 8), and
// the graph inputs are placed anew; after each, the graph outputs are read and checked. An
// alias pair's state is written in place: the writer changes its last written_bytes, and a
// reader before the writer expects the previous iteration's bytes, one after it this one's.
// Iterations do not overlap (the next starts when every stream has finished the last).
// A one-shot plan runs each iteration from a fresh preload.
//
// Cost: per iteration, one pass over the steps plus the bytes each touches (byte_pattern.h);
// memory: the arena plus the tier buffers. Limits: the caller bounds the buffers' total
// (PlanBufferBytes); kernels' own workspace is not modelled (the plan does not place it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "executor/backend.h"
#include "executor/byte_pattern.h"
#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/plan.h"

namespace hyperplan::executor {

struct ExecuteOptions {
  int32_t iterations = 1;
  bool timed = false;       // hold each step for its planned duration (pacing.h)
  double time_scale = 1.0;  // timed: wall ns per planned ns
  // Routed plans: iteration i draws each MoE node's routing number i - 1 with this seed, as
  // `plan --routing-samples` does with `--routing-seed` (routed_view.h).
  uint64_t routing_seed = 1;
};

struct ExecutionReport {
  bool ok = true;
  std::string violation;       // the first problem: step, value, rule; empty when ok
  int32_t iterations_run = 0;  // completed without a problem
  int32_t stream_count = 0;
  int64_t buffer_bytes = 0;     // arena + tier buffers allocated
  int64_t inputs_checked = 0;   // compute inputs whose bytes were checked, over all iterations
  int64_t host_computes = 0;    // compute steps run on the host lane, over all iterations
  int64_t outputs_checked = 0;  // blocks of graph outputs read back after their iteration
  int64_t transfers = 0;        // Prefetch and Store steps run
  int64_t bytes_copied = 0;
  int64_t experts_fetched = 0;  // expert slices routed Prefetches copied, over all iterations
  int64_t detaches = 0;
  std::vector<int64_t> iteration_ns;  // measured wall time per iteration / time_scale
};

// The arena plus every tier buffer the plan asks for, in bytes: what Execute allocates.
int64_t PlanBufferBytes(const Plan& plan);

// Runs `plan` (made for `graph`, the model as imported, on `profile`). Never throws for a
// broken plan: the report says what broke. Throws Error(kInternal) only for an executor bug.
ExecutionReport Execute(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                        Backend& backend, const ExecuteOptions& options);

}  // namespace hyperplan::executor
