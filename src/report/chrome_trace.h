// Chrome trace: a plan's simulated schedule in the Trace Event Format that chrome://tracing,
// Perfetto (ui.perfetto.dev) and speedscope open.
//
// One JSON object {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}. One
// process (pid 1) named after the graph and profile; one thread per stream, named by
// "thread_name" metadata and ordered by "thread_sort_index": tid 1 the compute stream, then
// one per link channel that carries a transfer (by link, then channel). Every plan step is one
// complete event ("ph": "X") in step order, its "cat" the step kind, "ts" and "dur" the
// simulated start and duration in microseconds written exactly (ns / 1000 as a decimal, e.g.
// 1234.567); Detach steps are zero-length events on the compute thread. args carry the step
// index and what the step does. Bytes on each tier are counter tracks ("ph": "C", one event
// per point of the simulated curve, named after the tier, its value in args.bytes).
// Output is byte-identical for the same inputs. Cost: O(steps + curve points), streamed.
// Limits: stalls are not events of their own (they are the gaps before compute events, and
// each stalled compute event carries stall_ns).
#pragma once

#include <ostream>
#include <string>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/planner/plan.h"

namespace hyperplan::report {

inline constexpr int kComputeThreadId = 1;

struct TraceProvenance {
  std::string model_path;
  std::string tool_version;
};

void WriteChromeTrace(std::ostream& out, const Graph& graph, const HardwareProfile& profile,
                      const Plan& plan, const TraceProvenance& provenance);

}  // namespace hyperplan::report
