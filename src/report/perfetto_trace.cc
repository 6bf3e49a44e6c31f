// Perfetto trace writer (see perfetto_trace.h).
#include "report/perfetto_trace.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "report/names.h"
#include "report/streams.h"

namespace hyperplan::report {
namespace {

// Field numbers, from perfetto/protos/perfetto/trace/.
constexpr int kTracePacket = 1;  // Trace.packet
enum PacketField { kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11, kSequenceFlags = 13 };
constexpr int kTrackDescriptor = 60;
enum TrackField { kUuid = 1, kTrackName = 2, kProcess = 3, kThread = 4, kParent = 5, kCounter = 8 };
enum ProcessField { kProcessPid = 1, kProcessName = 6 };
enum ThreadField { kThreadPid = 1, kThreadTid = 2, kThreadName = 5 };
enum EventField {
  kType = 9,
  kTrackUuid = 11,
  kCategories = 22,
  kName = 23,
  kCounterValue = 30,
  kFlowIds = 47,
  kTerminatingFlowIds = 48,
};
enum EventType { kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounterEvent = 4 };
constexpr uint64_t kIncrementalStateCleared = 1;  // TracePacket.SequenceFlags

constexpr int kPid = 1;
constexpr uint64_t kProcessUuid = 1;
constexpr uint64_t kThreadUuidBase = 100;
constexpr uint64_t kTierUuidBase = 1'000'000;
constexpr uint64_t kLinkUuidBase = 2'000'000;

// A protobuf message under construction: fields appended in the wire format.
class Message {
 public:
  Message& Varint(int field, uint64_t value) {
    Tag(field, 0);
    AppendVarint(value);
    return *this;
  }
  Message& Fixed64(int field, uint64_t value) {
    Tag(field, 1);
    for (int i = 0; i < 8; ++i) data_ += static_cast<char>((value >> (8 * i)) & 0xFF);
    return *this;
  }
  Message& Bytes(int field, std::string_view bytes) {
    Tag(field, 2);
    AppendVarint(bytes.size());
    data_.append(bytes);
    return *this;
  }
  Message& Nested(int field, const Message& message) { return Bytes(field, message.data_); }
  const std::string& data() const { return data_; }

 private:
  void Tag(int field, int wire_type) {
    AppendVarint((static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(wire_type));
  }
  void AppendVarint(uint64_t value) {
    while (value >= 0x80) {
      data_ += static_cast<char>((value & 0x7F) | 0x80);
      value >>= 7;
    }
    data_ += static_cast<char>(value);
  }
  std::string data_;
};

// A track event's packet, with what orders it: time, then ENDs before counters before BEGINs
// and instants (a slice that ends where the next begins closes first), then writing order.
struct TimedPacket {
  int64_t time_ns = 0;
  int rank = 0;
  size_t sequence = 0;
  Message event;
};

class PacketList {
 public:
  void Add(int64_t time_ns, int rank, Message event) {
    packets_.push_back({time_ns, rank, packets_.size(), std::move(event)});
  }
  // Sorted by time; every packet on sequence 1.
  void Write(std::ostream& out) {
    std::sort(packets_.begin(), packets_.end(), [](const TimedPacket& a, const TimedPacket& b) {
      return std::tie(a.time_ns, a.rank, a.sequence) < std::tie(b.time_ns, b.rank, b.sequence);
    });
    for (const TimedPacket& timed : packets_) {
      Message packet;
      packet.Varint(kTimestamp, static_cast<uint64_t>(timed.time_ns))
          .Varint(kSequenceId, 1)
          .Nested(kTrackEvent, timed.event);
      out << Message().Nested(kTracePacket, packet).data();
    }
  }

 private:
  std::vector<TimedPacket> packets_;
};

void WriteDescriptor(std::ostream& out, const Message& track, bool first) {
  Message packet;
  packet.Varint(kSequenceId, 1);
  if (first) packet.Varint(kSequenceFlags, kIncrementalStateCleared);
  packet.Nested(kTrackDescriptor, track);
  out << Message().Nested(kTracePacket, packet).data();
}

void WriteTracks(std::ostream& out, const Graph& graph, const HardwareProfile& profile,
                 const PlanStreams& streams) {
  Message process;
  process.Varint(kProcessPid, kPid)
      .Bytes(kProcessName, "hyperplan plan: " + graph.name + " on " + profile.name);
  WriteDescriptor(out, Message().Varint(kUuid, kProcessUuid).Nested(kProcess, process), true);
  for (size_t t = 0; t <= streams.copy_streams.size(); ++t) {
    const int tid = kComputeThreadId + static_cast<int>(t);
    const std::string name = t == 0 ? "compute" : "copy " + streams.copy_streams[t - 1].name;
    Message thread;
    thread.Varint(kThreadPid, kPid).Varint(kThreadTid, static_cast<uint64_t>(tid));
    thread.Bytes(kThreadName, name);
    WriteDescriptor(out,
                    Message()
                        .Varint(kUuid, kThreadUuidBase + static_cast<uint64_t>(tid))
                        .Varint(kParent, kProcessUuid)
                        .Nested(kThread, thread),
                    false);
  }
}

void WriteCounterTrack(std::ostream& out, uint64_t uuid, const std::string& name) {
  WriteDescriptor(out,
                  Message()
                      .Varint(kUuid, uuid)
                      .Varint(kParent, kProcessUuid)
                      .Bytes(kTrackName, name)
                      .Nested(kCounter, Message()),
                  false);
}

Message Event(EventType type, uint64_t track_uuid) {
  Message event;
  event.Varint(kType, type).Varint(kTrackUuid, track_uuid);
  return event;
}

std::string StepName(const Graph& graph, const PlanStep& step) {
  if (step.kind == StepKind::kCompute) return NodeName(graph, step.node);
  return std::string(StepKindName(step.kind)) + " " + ValueName(graph, step.value);
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
                        const Plan& plan, const TraceProvenance& /*provenance*/) {
  const PlanStreams streams = CollectStreams(profile, plan);
  const std::vector<int> thread_of_step = TraceThreadOfStep(streams, plan.steps.size());
  WriteTracks(out, graph, profile, streams);
  auto track_of = [&](size_t step) {
    return kThreadUuidBase + static_cast<uint64_t>(thread_of_step[step]);
  };

  // Which steps are drawn (as in the JSON trace), and the flows: one id per wait across
  // threads, leaving on the wait's event and ending on the waiter's.
  const size_t count = std::min(plan.steps.size(), plan.timeline.steps.size());
  std::vector<bool> drawn(count, false);
  for (size_t i = 0; i < count; ++i) {
    const PlanStep& step = plan.steps[i];
    const bool transfer = step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore;
    drawn[i] = !(transfer && thread_of_step[i] == kComputeThreadId);
  }
  std::vector<std::vector<uint64_t>> flows_out(count);
  std::vector<std::vector<uint64_t>> flows_in(count);
  uint64_t flow_id = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!drawn[i]) continue;
    for (int32_t wait : plan.steps[i].waits_for) {
      if (wait < 0 || static_cast<size_t>(wait) >= i || !drawn[wait] ||
          thread_of_step[wait] == thread_of_step[i]) {
        continue;
      }
      ++flow_id;
      flows_out[wait].push_back(flow_id);
      flows_in[i].push_back(flow_id);
    }
  }

  PacketList events;
  for (size_t i = 0; i < count; ++i) {
    if (!drawn[i]) continue;
    const PlanStep& step = plan.steps[i];
    const StepTiming& timing = plan.timeline.steps[i];
    const bool slice = timing.end_ns > timing.start_ns;
    Message begin = Event(slice ? kSliceBegin : kInstant, track_of(i));
    begin.Bytes(kCategories, StepKindName(step.kind)).Bytes(kName, StepName(graph, step));
    for (uint64_t id : flows_out[i]) begin.Fixed64(kFlowIds, id);
    for (uint64_t id : flows_in[i]) begin.Fixed64(kTerminatingFlowIds, id);
    events.Add(timing.start_ns, 2, std::move(begin));
    if (slice) events.Add(timing.end_ns, 0, Event(kSliceEnd, track_of(i)));
    const auto& stalls = plan.timeline.stall_ns_per_node;
    if (step.kind == StepKind::kCompute && step.node >= 0 &&
        static_cast<size_t>(step.node) < stalls.size() && stalls[step.node] > 0) {
      Message stall = Event(kSliceBegin, track_of(i));
      stall.Bytes(kCategories, "stall").Bytes(kName, "stall");
      events.Add(timing.start_ns - stalls[step.node], 2, std::move(stall));
      events.Add(timing.start_ns, 0, Event(kSliceEnd, track_of(i)));
    }
  }
  for (size_t t = 0; t < plan.timeline.bytes_per_tier.size(); ++t) {
    const uint64_t uuid = kTierUuidBase + t;
    WriteCounterTrack(out, uuid, TierName(profile, static_cast<TierId>(t)) + " bytes");
    for (const TierUsagePoint& point : plan.timeline.bytes_per_tier[t]) {
      events.Add(point.time_ns, 1,
                 std::move(Event(kCounterEvent, uuid)
                               .Varint(kCounterValue, static_cast<uint64_t>(point.bytes))));
    }
  }
  const std::vector<std::vector<BusyPoint>> busy = LinkBusyPercent(profile, plan);
  for (size_t l = 0; l < busy.size(); ++l) {
    if (busy[l].empty()) continue;
    const uint64_t uuid = kLinkUuidBase + l;
    WriteCounterTrack(out, uuid,
                      "link " + LinkName(profile, static_cast<int32_t>(l)) + " busy percent");
    for (const BusyPoint& point : busy[l]) {
      events.Add(point.time_ns, 1,
                 std::move(Event(kCounterEvent, uuid)
                               .Varint(kCounterValue, static_cast<uint64_t>(point.percent))));
    }
  }
  events.Write(out);
}

}  // namespace hyperplan::report
