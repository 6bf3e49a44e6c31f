// Chrome trace: a plan's simulated schedule in the Trace Event Format that chrome://tracing,
// Perfetto (ui.perfetto.dev) and speedscope open.
//
// One JSON object {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}. One
// process (pid 1) named after the graph and profile; one thread per stream, named by
// "thread_name" metadata and ordered by "thread_sort_index": tid 1 the compute stream, then
// the host lane ("host compute", tid 2) when a step runs on the host, then one per link
// channel that carries a transfer (by link, then channel). Every plan step is one
// complete event ("ph": "X") in step order, its "cat" the step kind, "ts" and "dur" the
// simulated start and duration in microseconds written exactly (ns / 1000 as a decimal, e.g.
// 1234.567); Detach steps are zero-length events on the compute thread. args carry the step
// index and what the step does. Bytes on each tier are counter tracks ("ph": "C", one event
// per point of the simulated curve, named after the tier, its value in args.bytes).
// Each compute stall is a complete event of its own ("cat": "stall", named "stall") on the
// thread of the step that waited (compute or host), just before it, naming the transfer it waited
// for last. Each wait across threads is a flow ("ph" "s" in the wait's slice, "f" with "bp": "e" at
// the waiter's start, sharing an "id"), so a viewer draws an arrow from a Prefetch to the compute
// step it holds back. Each link that carries a transfer has a counter track "link <from>-><to>"
// whose args.busy_percent is busy channels x 100 / channels.
// Output is byte-identical for the same inputs. Cost: O(steps + waits + curve points +
// transfers log transfers), streamed. Limits: about 400 bytes per step (50.5 MB for a
// 123k-node deepseek-v3 decode plan); perfetto_trace.h writes the same a third of the size.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "report/streams.h"

namespace hyperplan::report {

inline constexpr int kComputeThreadId = 1;

struct TraceProvenance {
  std::string model_path;
  std::string tool_version;
};

void WriteChromeTrace(std::ostream& out, const Graph& graph, const HardwareProfile& profile,
                      const Plan& plan, const PlanEvaluation& evaluation,
                      const TraceProvenance& provenance);

// Shared with the Perfetto trace (perfetto_trace.h):
// A step's event name: the node's for a compute step, else "<kind> <value>" ("prefetch w0").
std::string TraceStepName(const Graph& graph, const PlanStep& step);

// The thread of each plan step: device compute and Detach steps on kComputeThreadId, host
// compute steps on kHostThreadId, a transfer on CopyThreadId of its copy stream's index.
std::vector<int> TraceThreadOfStep(const PlanStreams& streams, size_t step_count);
inline constexpr int kHostThreadId = kComputeThreadId + 1;  // only when host_steps exist
// The copy streams follow the compute thread, and the host thread when there is one.
inline int CopyThreadId(const PlanStreams& streams, size_t copy_stream) {
  return kComputeThreadId + 1 + (streams.host_steps.empty() ? 0 : 1) +
         static_cast<int>(copy_stream);
}

// A link's busy share from a time on: busy channels x 100 / channels, in percent.
struct BusyPoint {
  int64_t time_ns = 0;
  int64_t percent = 0;
};
// By link index: one point per time the share changes (empty for a link with no transfer).
std::vector<std::vector<BusyPoint>> LinkBusyPercent(const HardwareProfile& profile,
                                                    const Plan& plan,
                                                    const PlanEvaluation& evaluation);

}  // namespace hyperplan::report
