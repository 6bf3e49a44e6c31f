// Perfetto trace writer (see perfetto_trace.h).
#include "report/perfetto_trace.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "files/proto_bytes.h"
#include "report/names.h"
#include "report/streams.h"
#include "schemas/perfetto_trace.pb.h"

namespace hyperplan::report {
namespace {

namespace pp = perfetto::protos;

constexpr int kPid = 1;
constexpr uint64_t kProcessUuid = 1;
constexpr uint64_t kThreadUuidBase = 100;
constexpr uint64_t kTierUuidBase = 1'000'000;
constexpr uint64_t kLinkUuidBase = 2'000'000;
constexpr uint32_t kSequenceId = 1;

// One packet, written as a one-packet Trace: concatenated Trace messages parse as one (their
// repeated `packet` fields merge), so packets stream out as they are made.
void WritePacket(std::ostream& out, pp::TracePacket packet) {
  pp::Trace trace;
  *trace.add_packet() = std::move(packet);
  out << files::DeterministicBytes(trace, "a Perfetto trace packet");
}

// A track event's packet, with what orders it: time, then ENDs before counters before BEGINs
// and instants (a slice that ends where the next begins closes first), then writing order.
struct TimedEvent {
  int64_t time_ns = 0;
  int rank = 0;
  size_t sequence = 0;
  pp::TrackEvent event;
};
constexpr int kEndRank = 0;
constexpr int kCounterRank = 1;
constexpr int kBeginRank = 2;

class EventList {
 public:
  void Add(int64_t time_ns, int rank, pp::TrackEvent event) {
    events_.push_back({time_ns, rank, events_.size(), std::move(event)});
  }
  // Sorted by time; every packet on sequence 1.
  void Write(std::ostream& out) {
    std::sort(events_.begin(), events_.end(), [](const TimedEvent& a, const TimedEvent& b) {
      return std::tie(a.time_ns, a.rank, a.sequence) < std::tie(b.time_ns, b.rank, b.sequence);
    });
    for (TimedEvent& timed : events_) {
      pp::TracePacket packet;
      packet.set_timestamp(static_cast<uint64_t>(timed.time_ns));
      packet.set_trusted_packet_sequence_id(kSequenceId);
      *packet.mutable_track_event() = std::move(timed.event);
      WritePacket(out, std::move(packet));
    }
  }

 private:
  std::vector<TimedEvent> events_;
};

void WriteDescriptor(std::ostream& out, pp::TrackDescriptor track, bool first) {
  pp::TracePacket packet;
  packet.set_trusted_packet_sequence_id(kSequenceId);
  if (first) packet.set_sequence_flags(pp::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
  *packet.mutable_track_descriptor() = std::move(track);
  WritePacket(out, std::move(packet));
}

void WriteThreadTrack(std::ostream& out, int tid, const std::string& name) {
  pp::TrackDescriptor thread_track;
  thread_track.set_uuid(kThreadUuidBase + static_cast<uint64_t>(tid));
  thread_track.set_parent_uuid(kProcessUuid);
  pp::ThreadDescriptor* thread = thread_track.mutable_thread();
  thread->set_pid(kPid);
  thread->set_tid(tid);
  thread->set_thread_name(name);
  WriteDescriptor(out, std::move(thread_track), false);
}

// The process, then one thread per stream: compute, the host lane, each copy stream.
void WriteTracks(std::ostream& out, const Graph& graph, const HardwareProfile& profile,
                 const PlanStreams& streams) {
  pp::TrackDescriptor process_track;
  process_track.set_uuid(kProcessUuid);
  pp::ProcessDescriptor* process = process_track.mutable_process();
  process->set_pid(kPid);
  process->set_process_name("hyperplan plan: " + graph.name + " on " + profile.name);
  WriteDescriptor(out, std::move(process_track), true);
  WriteThreadTrack(out, kComputeThreadId, "compute");
  if (!streams.host_steps.empty()) WriteThreadTrack(out, kHostThreadId, "host compute");
  for (size_t s = 0; s < streams.copy_streams.size(); ++s) {
    WriteThreadTrack(out, CopyThreadId(streams, s), "copy " + streams.copy_streams[s].name);
  }
}

void WriteCounterTrack(std::ostream& out, uint64_t uuid, const std::string& name) {
  pp::TrackDescriptor track;
  track.set_uuid(uuid);
  track.set_parent_uuid(kProcessUuid);
  track.set_name(name);
  track.mutable_counter();
  WriteDescriptor(out, std::move(track), false);
}

pp::TrackEvent Event(pp::TrackEvent::Type type, uint64_t track_uuid) {
  pp::TrackEvent event;
  event.set_type(type);
  event.set_track_uuid(track_uuid);
  return event;
}

pp::TrackEvent Counter(uint64_t track_uuid, int64_t value) {
  pp::TrackEvent event = Event(pp::TrackEvent::TYPE_COUNTER, track_uuid);
  event.set_counter_value(value);
  return event;
}

pp::TrackEvent NamedBegin(pp::TrackEvent::Type type, uint64_t track_uuid, std::string_view category,
                          const std::string& name) {
  pp::TrackEvent event = Event(type, track_uuid);
  event.add_categories(std::string(category));
  event.set_name(name);
  return event;
}

// The steps drawn (as in the JSON trace: a transfer on the compute thread is not) and the
// flows: one id per wait across threads, leaving on the wait's event and ending on the
// waiter's.
struct StepFlows {
  std::vector<bool> drawn;
  std::vector<std::vector<uint64_t>> out;
  std::vector<std::vector<uint64_t>> in;
};

StepFlows CollectFlows(const Plan& plan, const std::vector<int>& thread_of_step, size_t count) {
  StepFlows flows{std::vector<bool>(count, false), std::vector<std::vector<uint64_t>>(count),
                  std::vector<std::vector<uint64_t>>(count)};
  for (size_t i = 0; i < count; ++i) {
    const PlanStep& step = plan.steps[i];
    const bool transfer = step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore;
    flows.drawn[i] = !(transfer && thread_of_step[i] == kComputeThreadId);
  }
  uint64_t flow_id = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!flows.drawn[i]) continue;
    for (int32_t wait : plan.steps[i].waits_for) {
      if (wait < 0 || static_cast<size_t>(wait) >= i || !flows.drawn[wait] ||
          thread_of_step[wait] == thread_of_step[i]) {
        continue;
      }
      ++flow_id;
      flows.out[wait].push_back(flow_id);
      flows.in[i].push_back(flow_id);
    }
  }
  return flows;
}

// Each drawn step's slice (or instant), with its flows, and the stall slice before a compute
// step that waited.
void AddStepEvents(EventList& events, const Graph& graph, const Plan& plan,
                   const PlanEvaluation& evaluation, const std::vector<int>& thread_of_step,
                   const StepFlows& flows) {
  for (size_t i = 0; i < flows.drawn.size(); ++i) {
    if (!flows.drawn[i]) continue;
    const uint64_t track = kThreadUuidBase + static_cast<uint64_t>(thread_of_step[i]);
    const PlanStep& step = plan.steps[i];
    const StepTiming& timing = evaluation.timeline.steps[i];
    const bool slice = timing.end_ns > timing.start_ns;
    pp::TrackEvent begin =
        NamedBegin(slice ? pp::TrackEvent::TYPE_SLICE_BEGIN : pp::TrackEvent::TYPE_INSTANT, track,
                   StepKindName(step.kind), TraceStepName(graph, step));
    for (uint64_t id : flows.out[i]) begin.add_flow_ids(id);
    for (uint64_t id : flows.in[i]) begin.add_terminating_flow_ids(id);
    events.Add(timing.start_ns, kBeginRank, std::move(begin));
    if (slice) events.Add(timing.end_ns, kEndRank, Event(pp::TrackEvent::TYPE_SLICE_END, track));
    const auto& stalls = evaluation.timeline.stall_ns_per_node;
    if (step.kind == StepKind::kCompute && step.node >= 0 &&
        static_cast<size_t>(step.node) < stalls.size() && stalls[step.node] > 0) {
      events.Add(timing.start_ns - stalls[step.node], kBeginRank,
                 NamedBegin(pp::TrackEvent::TYPE_SLICE_BEGIN, track, "stall", "stall"));
      events.Add(timing.start_ns, kEndRank, Event(pp::TrackEvent::TYPE_SLICE_END, track));
    }
  }
}

// A counter track per tier (bytes) and per link that carries a transfer (busy percent).
void AddCounters(std::ostream& out, EventList& events, const HardwareProfile& profile,
                 const Plan& plan, const PlanEvaluation& evaluation) {
  for (size_t t = 0; t < evaluation.timeline.bytes_per_tier.size(); ++t) {
    const uint64_t uuid = kTierUuidBase + t;
    WriteCounterTrack(out, uuid, TierName(profile, static_cast<TierId>(t)) + " bytes");
    for (const TierUsagePoint& point : evaluation.timeline.bytes_per_tier[t]) {
      events.Add(point.time_ns, kCounterRank, Counter(uuid, point.bytes));
    }
  }
  const std::vector<std::vector<BusyPoint>> busy = LinkBusyPercent(profile, plan, evaluation);
  for (size_t l = 0; l < busy.size(); ++l) {
    if (busy[l].empty()) continue;
    const uint64_t uuid = kLinkUuidBase + l;
    WriteCounterTrack(out, uuid,
                      "link " + LinkName(profile, static_cast<int32_t>(l)) + " busy percent");
    for (const BusyPoint& point : busy[l]) {
      events.Add(point.time_ns, kCounterRank, Counter(uuid, point.percent));
    }
  }
}

}  // namespace

bool WantsPerfettoTrace(const std::string& path) {
  auto ends_with = [&](std::string_view suffix) {
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".pftrace") || ends_with(".perfetto-trace");
}

void WritePerfettoTrace(std::ostream& out, const Graph& graph, const HardwareProfile& profile,
                        const Plan& plan, const PlanEvaluation& evaluation,
                        const TraceProvenance& /*provenance*/) {
  const PlanStreams streams = CollectStreams(profile, plan);
  const std::vector<int> thread_of_step = TraceThreadOfStep(streams, plan.steps.size());
  WriteTracks(out, graph, profile, streams);
  const size_t count = std::min(plan.steps.size(), evaluation.timeline.steps.size());
  EventList events;
  AddStepEvents(events, graph, plan, evaluation, thread_of_step,
                CollectFlows(plan, thread_of_step, count));
  AddCounters(out, events, profile, plan, evaluation);
  events.Write(out);
}

}  // namespace hyperplan::report
