// Chrome trace writer (see chrome_trace.h).
#include "report/chrome_trace.h"

#include <vector>

#include "report/json_writer.h"
#include "report/names.h"
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
              const Plan& plan, size_t index) {
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
    const auto& stalls = plan.timeline.stall_ns_per_node;
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

std::string EventName(const Graph& graph, const PlanStep& step) {
  if (step.kind == StepKind::kCompute) return NodeName(graph, step.node);
  return std::string(StepKindName(step.kind)) + " " + ValueName(graph, step.value);
}

}  // namespace

void WriteChromeTrace(std::ostream& out, const Graph& graph, const HardwareProfile& profile,
                      const Plan& plan, const TraceProvenance& provenance) {
  const PlanStreams streams = CollectStreams(profile, plan);
  // tid of each step: compute and Detach on the compute thread, transfers on their channel's.
  std::vector<int> thread_of_step(plan.steps.size(), kComputeThreadId);
  for (size_t s = 0; s < streams.copy_streams.size(); ++s) {
    for (int32_t step : streams.copy_streams[s].steps) {
      thread_of_step[step] = kComputeThreadId + 1 + static_cast<int>(s);
    }
  }

  JsonWriter json(out);
  json.BeginObject();
  json.Key("traceEvents");
  json.BeginArray();
  Metadata(json, "process_name", 0, "name", "hyperplan plan: " + graph.name + " on " + profile.name,
           0, false);
  Metadata(json, "thread_name", kComputeThreadId, "name", "compute", 0, false);
  Metadata(json, "thread_sort_index", kComputeThreadId, "sort_index", "", kComputeThreadId, true);
  for (size_t s = 0; s < streams.copy_streams.size(); ++s) {
    const int tid = kComputeThreadId + 1 + static_cast<int>(s);
    Metadata(json, "thread_name", tid, "name", "copy " + streams.copy_streams[s].name, 0, false);
    Metadata(json, "thread_sort_index", tid, "sort_index", "", tid, true);
  }

  for (size_t i = 0; i < plan.steps.size() && i < plan.timeline.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    const StepTiming& timing = plan.timeline.steps[i];
    // A transfer on no valid channel has no thread; the verifier reports such a plan.
    const bool transfer = step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore;
    if (transfer && thread_of_step[i] == kComputeThreadId) continue;
    json.Newline();
    json.BeginObject();
    json.Key("name");
    json.String(EventName(graph, step));
    json.Key("cat");
    json.String(StepKindName(step.kind));
    json.Key("ph");
    json.String("X");
    json.Key("ts");
    json.Decimal(timing.start_ns, kNsDigits);
    json.Key("dur");
    json.Decimal(timing.end_ns - timing.start_ns, kNsDigits);
    json.Key("pid");
    json.Int(kProcessId);
    json.Key("tid");
    json.Int(thread_of_step[i]);
    StepArgs(json, graph, profile, plan, i);
    json.EndObject();
  }

  for (size_t t = 0; t < plan.timeline.bytes_per_tier.size(); ++t) {
    // Viewers name the track "<event name> <arg name>": "hbm bytes".
    const std::string counter = TierName(profile, static_cast<TierId>(t));
    for (const TierUsagePoint& point : plan.timeline.bytes_per_tier[t]) {
      json.Newline();
      json.BeginObject();
      json.Key("name");
      json.String(counter);
      json.Key("ph");
      json.String("C");
      json.Key("ts");
      json.Decimal(point.time_ns, kNsDigits);
      json.Key("pid");
      json.Int(kProcessId);
      json.Key("args");
      json.BeginObject();
      json.Key("bytes");
      json.Int(point.bytes);
      json.EndObject();
      json.EndObject();
    }
  }
  json.Newline();
  json.EndArray();
  json.Key("displayTimeUnit");
  json.String("ns");
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
  json.Int(plan.timeline.makespan_ns);
  json.EndObject();
  json.EndObject();
  out << "\n";
}

}  // namespace hyperplan::report
