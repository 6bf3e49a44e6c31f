// Perfetto trace: the Chrome trace's content (chrome_trace.h) in Perfetto's protobuf trace
// format (a `perfetto.protos.Trace` of TracePackets), which ui.perfetto.dev opens several
// times smaller and faster than JSON for plans of 100k nodes and more.
//
// One process track, one thread track per stream (compute first, the host lane when a step
// runs on the host, then each link channel that carries a transfer, as in the JSON trace); every
// step a slice (BEGIN at its simulated start, END at its end; a Detach, which takes no time, an
// instant), named as in the JSON trace, its step kind the category; a "stall" slice before each
// compute step that waited; each wait across threads a flow (flow_ids on the wait's BEGIN,
// terminating_flow_ids on the waiter's); counter tracks for bytes per tier and each link's busy
// percent. Packets are sorted by time (ENDs before BEGINs at one instant), all on sequence 1, the
// first clearing its incremental state; timestamps in ns. Output is byte-identical for the same
// inputs. Built as messages of schemas/perfetto_trace.proto (upstream's names and field numbers for
// the fields used: TracePacket, TrackDescriptor, TrackEvent, Process-, Thread- and
// CounterDescriptor) and serialised by libprotobuf, deterministically, one packet at a time;
// no Perfetto library is needed.
// Cost: O(steps log steps + waits + curve points); the packets are held in memory to sort
// them. Measured on deepseek-v3 decode (hyperplan-gen, 123k nodes, h100-sxm): 16.6 MB against
// 50.5 MB of JSON for the same plan (about 120 bytes per step, names included).
// Limits: no interning (each slice repeats its name) and no debug annotations (the JSON trace
// carries the step's args); not checked in ui.perfetto.dev here (no browser network), only
// against upstream's field numbers (tests/report/perfetto_trace_test.cc, on the bytes).
#pragma once

#include <ostream>

#include "hyperplan/graph.h"
#include "hyperplan/hardware.h"
#include "hyperplan/plan/evaluation.h"
#include "hyperplan/plan/plan.h"
#include "report/chrome_trace.h"

namespace hyperplan::report {

void WritePerfettoTrace(std::ostream& out, const Graph& graph, const HardwareProfile& profile,
                        const Plan& plan, const PlanEvaluation& evaluation,
                        const TraceProvenance& provenance);

// Whether `path` asks for the protobuf format: it ends in ".pftrace" or ".perfetto-trace".
bool WantsPerfettoTrace(const std::string& path);

}  // namespace hyperplan::report
