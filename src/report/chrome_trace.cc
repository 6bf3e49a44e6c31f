// Chrome trace writer (see chrome_trace.h).
#include "report/chrome_trace.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "report/json_writer.h"
#include "report/names.h"
#include "report/stall_attribution.h"
#include "report/streams.h"

namespace hyperplan::report {
namespace {

constexpr int kProcessId = 1;
constexpr int kNsDigits = 3;  // ts and dur are microseconds: ns / 10^3

void Metadata(JsonWriter& json, const char* name, int tid, const char* arg_key,
              const std::string& arg_text, int64_t arg_number, bool numeric) {
  json.Newline();
  json.BeginObject();
  json.Key("name");
  json.String(name);
  json.Key("ph");
  json.String("M");
  json.Key("pid");
  json.Int(kProcessId);
  json.Key("tid");
  json.Int(tid);
  json.Key("args");
  json.BeginObject();
  json.Key(arg_key);
  if (numeric) {
    json.Int(arg_number);
  } else {
    json.String(arg_text);
  }
  json.EndObject();
  json.EndObject();
}

void StepArgs(JsonWriter& json, const Graph& graph, const HardwareProfile& profile,
              const Plan& plan, const PlanEvaluation& evaluation, size_t index) {
  const PlanStep& step = plan.steps[index];
  json.Key("args");
  json.BeginObject();
  json.Key("step");
  json.Int(static_cast<int64_t>(index));
  json.Key("boundary");
  json.Int(step.boundary);
  if (step.kind == StepKind::kCompute) {
    json.Key("node");
    json.String(NodeName(graph, step.node));
    json.Key("op_type");
    json.String(NodeOpType(graph, step.node));
    const auto& stalls = evaluation.timeline.stall_ns_per_node;
    if (step.node >= 0 && static_cast<size_t>(step.node) < stalls.size() && stalls[step.node] > 0) {
      json.Key("stall_ns");
      json.Int(stalls[step.node]);
    }
  } else {
    json.Key("value");
    json.String(ValueName(graph, step.value));
    json.Key("bytes");
    json.Int(step.bytes);
    json.Key("from");
    json.String(TierName(profile, step.src_tier));
    if (step.kind != StepKind::kDetach) {
      json.Key("to");
      json.String(TierName(profile, step.dst_tier));
    }
  }
  if (!step.waits_for.empty()) {
    json.Key("waits_for");
    json.BeginArray();
    for (int32_t wait : step.waits_for) json.Int(wait);
    json.EndArray();
  }
  json.EndObject();
}

// A complete event's opening fields: name, cat, ph X, ts, dur, pid, tid.
void BeginComplete(JsonWriter& json, const std::string& name, std::string_view category,
                   int64_t start_ns, int64_t duration_ns, int tid) {
  json.Newline();
  json.BeginObject();
  json.Key("name");
  json.String(name);
  json.Key("cat");
  json.String(category);
  json.Key("ph");
  json.String("X");
  json.Key("ts");
  json.Decimal(start_ns, kNsDigits);
  json.Key("dur");
  json.Decimal(duration_ns, kNsDigits);
  json.Key("pid");
  json.Int(kProcessId);
  json.Key("tid");
  json.Int(tid);
}

// One stall slice on its unit's thread before each compute step that waited, naming the
// step and the transfer it waited for last (report/stall_attribution.h).
void WriteStallSlices(JsonWriter& json, const Graph& graph, const Plan& plan,
                      const PlanEvaluation& evaluation, const StallAttribution& stalls,
                      const std::vector<int>& thread_of_step) {
  for (size_t i = 0; i < plan.steps.size() && i < evaluation.timeline.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    if (step.kind != StepKind::kCompute || step.node < 0 ||
        static_cast<size_t>(step.node) >= evaluation.timeline.stall_ns_per_node.size()) {
      continue;
    }
    const int64_t stall_ns = evaluation.timeline.stall_ns_per_node[step.node];
    if (stall_ns <= 0) continue;
    const int64_t start_ns = evaluation.timeline.steps[i].start_ns;
    BeginComplete(json, "stall", "stall", start_ns - stall_ns, stall_ns, thread_of_step[i]);
    json.Key("args");
    json.BeginObject();
    json.Key("before_step");
    json.Int(static_cast<int64_t>(i));
    json.Key("node");
    json.String(NodeName(graph, step.node));
    const int32_t wait = stalls.binding_wait[i];
    if (wait >= 0) {
      json.Key("waited_for_step");
      json.Int(wait);
      if (plan.steps[wait].kind != StepKind::kCompute) {
        json.Key("waited_for");
        json.String(std::string(StepKindName(plan.steps[wait].kind)) + " " +
                    ValueName(graph, plan.steps[wait].value));
      }
    }
    json.EndObject();
    json.EndObject();
  }
}

void FlowEvent(JsonWriter& json, const char* phase, int64_t id, int64_t time_ns, int tid) {
  json.Newline();
  json.BeginObject();
  json.Key("name");
  json.String("wait");
  json.Key("cat");
  json.String("wait");
  json.Key("ph");
  json.String(phase);
  json.Key("id");
  json.Int(id);
  json.Key("ts");
  json.Decimal(time_ns, kNsDigits);
  json.Key("pid");
  json.Int(kProcessId);
  json.Key("tid");
  json.Int(tid);
  if (phase[0] == 'f') {
    json.Key("bp");
    json.String("e");  // bind to the waiter's slice, which starts here
  }
  json.EndObject();
}

// One flow (an arrow) from each wait to its waiter when they are on different threads (on one
// thread the order already says it): "s" inside the wait's slice, 1 ns before its end (an
// instant slice: at its start), so viewers bind it there; "f" at the waiter's start, bound to
// the waiter's slice. Ids count from 1 in step order.
void WriteWaitFlows(JsonWriter& json, const Plan& plan, const PlanEvaluation& evaluation,
                    const std::vector<int>& thread_of_step, const std::vector<bool>& written) {
  int64_t id = 0;
  for (size_t i = 0; i < plan.steps.size() && i < evaluation.timeline.steps.size(); ++i) {
    if (!written[i]) continue;
    for (int32_t wait : plan.steps[i].waits_for) {
      if (wait < 0 || static_cast<size_t>(wait) >= i || !written[wait] ||
          thread_of_step[wait] == thread_of_step[i]) {
        continue;
      }
      const StepTiming& from = evaluation.timeline.steps[wait];
      ++id;
      FlowEvent(json, "s", id, std::max(from.start_ns, from.end_ns - 1), thread_of_step[wait]);
      FlowEvent(json, "f", id, evaluation.timeline.steps[i].start_ns, thread_of_step[i]);
    }
  }
}

// One counter sample: viewers draw a track per name, stepping to `value` at `time_ns`.
void WriteCounter(JsonWriter& json, const std::string& name, int64_t time_ns, const char* arg_name,
                  int64_t value) {
  json.Newline();
  json.BeginObject();
  json.Key("name");
  json.String(name);
  json.Key("ph");
  json.String("C");
  json.Key("ts");
  json.Decimal(time_ns, kNsDigits);
  json.Key("pid");
  json.Int(kProcessId);
  json.Key("args");
  json.BeginObject();
  json.Key(arg_name);
  json.Int(value);
  json.EndObject();
  json.EndObject();
}

// Per link that carries a transfer, a counter of its busy share (LinkBusyPercent).
void WriteLinkCounters(JsonWriter& json, const HardwareProfile& profile, const Plan& plan,
                       const PlanEvaluation& evaluation) {
  const std::vector<std::vector<BusyPoint>> busy = LinkBusyPercent(profile, plan, evaluation);
  for (size_t l = 0; l < busy.size(); ++l) {
    // Viewers name the track "<event name> <arg name>": "link ddr->hbm busy_percent".
    const std::string counter = "link " + LinkName(profile, static_cast<int32_t>(l));
    for (const BusyPoint& point : busy[l]) {
      WriteCounter(json, counter, point.time_ns, "busy_percent", point.percent);
    }
  }
}

}  // namespace

std::vector<int> TraceThreadOfStep(const PlanStreams& streams, size_t step_count) {
  std::vector<int> thread_of_step(step_count, kComputeThreadId);
  for (int32_t step : streams.host_steps) {
    if (static_cast<size_t>(step) < step_count) thread_of_step[step] = kHostThreadId;
  }
  for (size_t s = 0; s < streams.copy_streams.size(); ++s) {
    for (int32_t step : streams.copy_streams[s].steps) {
      if (static_cast<size_t>(step) < step_count) thread_of_step[step] = CopyThreadId(streams, s);
    }
  }
  return thread_of_step;
}

std::vector<std::vector<BusyPoint>> LinkBusyPercent(const HardwareProfile& profile,
                                                    const Plan& plan,
                                                    const PlanEvaluation& evaluation) {
  std::vector<std::map<int64_t, int32_t>> changes(profile.links.size());  // time -> delta
  for (size_t i = 0; i < plan.steps.size() && i < evaluation.timeline.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    const bool transfer = step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore;
    if (!transfer || step.link < 0 || static_cast<size_t>(step.link) >= changes.size()) continue;
    const StepTiming& timing = evaluation.timeline.steps[i];
    if (timing.end_ns <= timing.start_ns) continue;
    ++changes[step.link][timing.start_ns];
    --changes[step.link][timing.end_ns];
  }
  std::vector<std::vector<BusyPoint>> busy(changes.size());
  for (size_t l = 0; l < changes.size(); ++l) {
    const int64_t channels = std::max<int32_t>(1, profile.links[l].channels);
    int64_t busy_channels = 0;
    for (const auto& [time_ns, delta] : changes[l]) {
      busy_channels += delta;
      busy[l].push_back({time_ns, std::min(busy_channels, channels) * 100 / channels});
    }
  }
  return busy;
}

namespace {

// Process and thread names: compute first, the host lane, then each copy stream, in that
// sort order.
void WriteThreadNames(JsonWriter& json, const Graph& graph, const HardwareProfile& profile,
                      const PlanStreams& streams) {
  Metadata(json, "process_name", 0, "name", "hyperplan plan: " + graph.name + " on " + profile.name,
           0, false);
  Metadata(json, "thread_name", kComputeThreadId, "name", "compute", 0, false);
  Metadata(json, "thread_sort_index", kComputeThreadId, "sort_index", "", kComputeThreadId, true);
  if (!streams.host_steps.empty()) {
    Metadata(json, "thread_name", kHostThreadId, "name", "host compute", 0, false);
    Metadata(json, "thread_sort_index", kHostThreadId, "sort_index", "", kHostThreadId, true);
  }
  for (size_t s = 0; s < streams.copy_streams.size(); ++s) {
    const int tid = CopyThreadId(streams, s);
    Metadata(json, "thread_name", tid, "name", "copy " + streams.copy_streams[s].name, 0, false);
    Metadata(json, "thread_sort_index", tid, "sort_index", "", tid, true);
  }
}

// One complete event per step, in step order; returns which steps were written.
std::vector<bool> WriteStepEvents(JsonWriter& json, const Graph& graph,
                                  const HardwareProfile& profile, const Plan& plan,
                                  const PlanEvaluation& evaluation,
                                  const std::vector<int>& thread_of_step) {
  std::vector<bool> written(plan.steps.size(), false);
  for (size_t i = 0; i < plan.steps.size() && i < evaluation.timeline.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    const StepTiming& timing = evaluation.timeline.steps[i];
    // A transfer on no valid channel has no thread; the verifier reports such a plan.
    const bool transfer = step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore;
    if (transfer && thread_of_step[i] == kComputeThreadId) continue;
    written[i] = true;
    BeginComplete(json, TraceStepName(graph, step), StepKindName(step.kind), timing.start_ns,
                  timing.end_ns - timing.start_ns, thread_of_step[i]);
    StepArgs(json, graph, profile, plan, evaluation, i);
    json.EndObject();
  }
  return written;
}

// Per tier, a counter of its bytes along the simulated curve.
void WriteTierCounters(JsonWriter& json, const HardwareProfile& profile,
                       const PlanEvaluation& evaluation) {
  for (size_t t = 0; t < evaluation.timeline.bytes_per_tier.size(); ++t) {
    // Viewers name the track "<event name> <arg name>": "hbm bytes".
    const std::string counter = TierName(profile, static_cast<TierId>(t));
    for (const TierUsagePoint& point : evaluation.timeline.bytes_per_tier[t]) {
      WriteCounter(json, counter, point.time_ns, "bytes", point.bytes);
    }
  }
}

// "otherData": what made the trace and the makespan it shows.
void WriteOtherData(JsonWriter& json, const Graph& graph, const HardwareProfile& profile,
                    const PlanEvaluation& evaluation, const TraceProvenance& provenance) {
  json.Key("otherData");
  json.BeginObject();
  json.Key("generator");
  json.String(provenance.tool_version.empty() ? "hyperplan" : provenance.tool_version);
  json.Key("model");
  json.String(provenance.model_path);
  json.Key("graph");
  json.String(graph.name);
  json.Key("profile");
  json.String(profile.name);
  json.Key("profile_source");
  json.String(profile.source);
  json.Key("makespan_ns");
  json.Int(evaluation.timeline.makespan_ns);
  json.EndObject();
}

}  // namespace

std::string TraceStepName(const Graph& graph, const PlanStep& step) {
  if (step.kind == StepKind::kCompute) return NodeName(graph, step.node);
  return std::string(StepKindName(step.kind)) + " " + ValueName(graph, step.value);
}

void WriteChromeTrace(std::ostream& out, const Graph& graph, const HardwareProfile& profile,
                      const Plan& plan, const PlanEvaluation& evaluation,
                      const TraceProvenance& provenance) {
  const PlanStreams streams = CollectStreams(profile, plan);
  const std::vector<int> thread_of_step = TraceThreadOfStep(streams, plan.steps.size());
  JsonWriter json(out);
  json.BeginObject();
  json.Key("traceEvents");
  json.BeginArray();
  WriteThreadNames(json, graph, profile, streams);
  const std::vector<bool> written =
      WriteStepEvents(json, graph, profile, plan, evaluation, thread_of_step);
  WriteStallSlices(json, graph, plan, evaluation, AttributeStalls(profile, plan, evaluation),
                   thread_of_step);
  WriteWaitFlows(json, plan, evaluation, thread_of_step, written);
  WriteLinkCounters(json, profile, plan, evaluation);
  WriteTierCounters(json, profile, evaluation);
  json.Newline();
  json.EndArray();
  json.Key("displayTimeUnit");
  json.String("ns");
  WriteOtherData(json, graph, profile, evaluation, provenance);
  json.EndObject();
  out << "\n";
}

}  // namespace hyperplan::report
