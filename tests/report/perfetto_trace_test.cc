// The Perfetto trace (src/report/perfetto_trace.h), read back by `protoc --decode` against
// schemas/perfetto_trace.proto: it decodes with no unknown fields, carries one slice per step
// and per stall, the flows and the counters, in time order; it is smaller than the JSON trace.
// Upstream's field numbers are checked apart from the schema, on the first packet's bytes.
#include "report/perfetto_trace.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "report/chrome_trace.h"
#include "report/hand_plans.h"
#include "report/sample_plans.h"
#include "support/run_command.h"

using namespace hyperplan;

namespace {

std::string PerfettoBytes(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                          const PlanEvaluation& evaluation) {
  std::ostringstream out;
  report::WritePerfettoTrace(out, graph, profile, plan, evaluation,
                             {"model.onnx", "hyperplan test"});
  return out.str();
}

// protoc's text form of the trace, or FAIL.
std::string Decode(const std::string& bytes) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("hyperplan-perfetto-" + std::to_string(getpid()) + ".pftrace");
  std::ofstream(path, std::ios::binary) << bytes;
  const std::string command = "protoc --proto_path=" + std::string(HYPERPLAN_SOURCE_DIR) +
                              "/schemas --decode=perfetto.protos.Trace "
                              "perfetto_trace.proto < " +
                              path.string();
  const auto result = testing::RunCommand({"/bin/sh", "-c", command});
  std::filesystem::remove(path);
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  return result.stdout_text;
}

int64_t Count(const std::string& text, const std::string& needle) {
  int64_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

}  // namespace

TEST_CASE("the Perfetto trace decodes against upstream's field numbers") {
  // hand_plans.h: five steps, each lasting; l0, l1 and head stall; l0 waits for step 0 and l1
  // for step 2 across threads; ddr->hbm is busy from 0 to 2000 ns (three counter points).
  testing::HandPlan hand = testing::StreamingPlan();
  const std::string text =
      Decode(PerfettoBytes(hand.graph, testing::UnitProfile(), hand.plan, hand.evaluation));
  // protoc prints a field the .proto does not know as its bare number ("47: 0x...").
  CHECK_FALSE(std::regex_search(text, std::regex("\n *[0-9]+: ")));
  CHECK(Count(text, "type: TYPE_SLICE_BEGIN") == 5 + 3);
  CHECK(Count(text, "type: TYPE_SLICE_END") == 5 + 3);
  CHECK(Count(text, "name: \"stall\"") == 3);
  CHECK(Count(text, "flow_ids: ") - Count(text, "terminating_flow_ids: ") == 2);
  CHECK(Count(text, "terminating_flow_ids: ") == 2);
  CHECK(Count(text, "type: TYPE_COUNTER") == 3);
  CHECK(Count(text, "thread_name: \"compute\"") == 1);
  CHECK(Count(text, "sequence_flags: 1") == 1);
  CHECK(Count(text, "name: \"prefetch model.layers.0.w\"") == 1);
  // Timestamps never go back: 0 (w0 and the first stall), ..., 2250 (head ends).
  std::vector<int64_t> times;
  const std::regex timestamp("timestamp: ([0-9]+)");
  for (std::sregex_iterator it(text.begin(), text.end(), timestamp), end; it != end; ++it) {
    times.push_back(std::stoll((*it)[1]));
  }
  REQUIRE(!times.empty());
  CHECK(std::is_sorted(times.begin(), times.end()));
  CHECK(times.front() == 0);
  CHECK(times.back() == 2250);
}

namespace {

// The index just past the varint at `at`.
size_t SkipVarint(const std::string& bytes, size_t at) {
  while (at < bytes.size() && (static_cast<uint8_t>(bytes[at]) & 0x80) != 0) ++at;
  return at + 1;
}

}  // namespace

TEST_CASE("the Perfetto trace's first packet has upstream's field numbers, byte by byte") {
  // A tag is (field << 3) | wire type (0 varint, 2 length-delimited), fields in number order:
  // Trace.packet 1 -> 0x0A; TracePacket.trusted_packet_sequence_id 10 -> 0x50 (= 1),
  // sequence_flags 13 -> 0x68 (= 1, incremental state cleared), track_descriptor 60 -> 482 as
  // a varint, 0xE2 0x03; TrackDescriptor.uuid 1 -> 0x08 (= 1), process 3 -> 0x1A;
  // ProcessDescriptor.pid 1 -> 0x08 (= 1), process_name 6 -> 0x32.
  testing::HandPlan hand = testing::StreamingPlan();
  const std::string bytes =
      PerfettoBytes(hand.graph, testing::UnitProfile(), hand.plan, hand.evaluation);
  REQUIRE(bytes.size() > 16);
  CHECK(bytes[0] == '\x0A');
  size_t at = SkipVarint(bytes, 1);  // the packet's length
  CHECK(bytes.substr(at, 6) == "\x50\x01\x68\x01\xE2\x03");
  at = SkipVarint(bytes, at + 6);  // the descriptor's length
  CHECK(bytes.substr(at, 3) == "\x08\x01\x1A");
  at = SkipVarint(bytes, at + 3);  // the process's length
  CHECK(bytes.substr(at, 3) == "\x08\x01\x32");
}

TEST_CASE("the Perfetto trace is smaller than the JSON trace and byte-identical run to run") {
  const testing::SamplePlan sample = testing::ChainSample(2'000, 20, 40);
  const std::string proto =
      PerfettoBytes(sample.graph, sample.profile, sample.plan, sample.evaluation);
  std::ostringstream json;
  report::WriteChromeTrace(json, sample.graph, sample.profile, sample.plan, sample.evaluation,
                           {"m", "t"});
  INFO("perfetto " << proto.size() << " bytes, JSON " << json.str().size());
  CHECK(proto.size() * 3 < json.str().size());
  CHECK(proto == PerfettoBytes(sample.graph, sample.profile, sample.plan, sample.evaluation));
  CHECK(report::WantsPerfettoTrace("plan.pftrace"));
  CHECK_FALSE(report::WantsPerfettoTrace("plan.json"));
}
