// A plan that computes on the host (issue 30) in the report's views: the host lane beside the
// compute stream in the streams, the lane chart, the Chrome and the Perfetto traces; each
// unit's time and stalls in the summary and stall sections. The plan is hand_plans.h's
// HostMlpPlan, whose times are worked out beside it.
#include <catch2/catch.hpp>
#include <sstream>

#include "hyperplan/plan/bottleneck.h"
#include "hyperplan/units.h"
#include "report/chrome_trace.h"
#include "report/hand_plans.h"
#include "report/html_checker.h"
#include "report/html_report.h"
#include "report/json_reader.h"
#include "report/perfetto_trace.h"
#include "report/streams.h"

using namespace hyperplan;
using hyperplan::testing::CheckHtml;
using hyperplan::testing::HtmlDocument;
using hyperplan::testing::MicrosecondsToNs;
using hyperplan::testing::ParseJson;
using nlohmann::json;

TEST_CASE("host lane: the simulator's times for the hand plan") {
  const testing::HandPlan hand = testing::HostMlpPlan();
  const SimulationResult& timeline = hand.evaluation.timeline;
  REQUIRE(timeline.steps.size() == 4);
  CHECK(timeline.steps[1].end_ns == 300);  // the Store: 200 B at 1 byte/ns from 100
  CHECK(timeline.steps[2].start_ns == 300);
  CHECK(timeline.steps[2].end_ns == 600);
  CHECK(timeline.steps[3].start_ns == 600);
  CHECK(timeline.makespan_ns == 650);
  CHECK(timeline.host_compute_ns == 300);
  CHECK(timeline.stall_ns_per_node == std::vector<int64_t>{0, 200, 0});
}

TEST_CASE("host lane: the bottleneck counts the host's work apart from the device's") {
  const testing::HandPlan hand = testing::HostMlpPlan();
  const Bottleneck bottleneck = FindBottleneck(hand.graph, testing::UnitProfileWithHost(),
                                               hand.plan, hand.evaluation.timeline);
  // The host step runs 300 .. 600: its 300 ns go to host memory or host FLOPs, whichever host
  // roofline term sets it; the device's work is l0 and head, 100 + 50 ns.
  CHECK(bottleneck.host_memory_ns + bottleneck.host_flops_ns == 300);
  CHECK(bottleneck.compute_busy_ns == 150);
  // 300 ns outlasts the device's 150 and the Store's 200 ns on the link: the host bounds it.
  CHECK(bottleneck.busy_ns == 300);
  CHECK((bottleneck.kind == BoundKind::kHostMemory || bottleneck.kind == BoundKind::kHostFlops));
}

TEST_CASE("host lane: host compute steps are a stream of their own") {
  const testing::HandPlan hand = testing::HostMlpPlan();
  const report::PlanStreams streams =
      report::CollectStreams(testing::UnitProfileWithHost(), hand.plan);
  CHECK(streams.compute_steps == std::vector<int32_t>{0, 3});
  CHECK(streams.host_steps == std::vector<int32_t>{2});
  REQUIRE(streams.copy_streams.size() == 1);
  CHECK(streams.copy_streams[0].steps == std::vector<int32_t>{1});
  CHECK(report::HostLaneName(testing::UnitProfileWithHost()) == "host (2 sockets)");
  // The host step's stall, 100 .. 300, waiting on the Store.
  const report::Stalls stalls =
      report::CollectStalls(hand.plan, hand.evaluation, streams.host_steps);
  REQUIRE(stalls.steps == std::vector<int32_t>{2});
  CHECK(stalls.intervals[0].start_ns == 100);
  CHECK(stalls.intervals[0].end_ns == 300);
}

TEST_CASE("host lane: the Chrome trace puts host steps and their stalls on a host thread") {
  const testing::HandPlan hand = testing::HostMlpPlan();
  std::ostringstream out;
  report::WriteChromeTrace(out, hand.graph, testing::UnitProfileWithHost(), hand.plan,
                           hand.evaluation, {"model.onnx", "hyperplan test"});
  const json root = ParseJson(out.str());
  std::map<int64_t, std::string> thread_names;
  std::map<std::string, int64_t> tid_of;       // step or stall name -> tid
  std::map<std::string, int64_t> stall_start;  // node -> stall start, ns
  for (const json& event : root.at("traceEvents")) {
    if (event.at("ph") == "M" && event.at("name") == "thread_name") {
      thread_names[event.at("tid").get<int64_t>()] = event.at("args").at("name").get<std::string>();
    } else if (event.at("ph") == "X" && event.at("cat") == "stall") {
      const std::string node = event.at("args").at("node").get<std::string>();
      tid_of["stall " + node] = event.at("tid").get<int64_t>();
      stall_start[node] = MicrosecondsToNs(event.at("ts"));
    } else if (event.at("ph") == "X") {
      tid_of[event.at("name").get<std::string>()] = event.at("tid").get<int64_t>();
    }
  }
  // Compute (1), the host lane beside it (2), then the copy stream hbm->ddr channel 0 (3).
  CHECK(thread_names == std::map<int64_t, std::string>{
                            {1, "compute"}, {2, "host compute"}, {3, "copy hbm\u2192ddr ch 0"}});
  CHECK(tid_of.at("l0") == 1);
  CHECK(tid_of.at("store a0") == 3);
  CHECK(tid_of.at("mlp") == 2);
  CHECK(tid_of.at("head") == 1);
  CHECK(tid_of.at("stall mlp") == 2);  // 100 .. 300 on the host lane
  CHECK(stall_start.at("mlp") == 100);
  CHECK(stall_start.count("head") == 0);
}

TEST_CASE("host lane: the Perfetto trace names a host thread") {
  const testing::HandPlan hand = testing::HostMlpPlan();
  std::ostringstream out;
  report::WritePerfettoTrace(out, hand.graph, testing::UnitProfileWithHost(), hand.plan,
                             hand.evaluation, {"model.onnx", "hyperplan test"});
  const std::string bytes = out.str();
  // Thread names are stored as plain strings in the descriptors' bytes, in track order.
  CHECK(bytes.find("host compute") != std::string::npos);
  CHECK(bytes.find("compute") < bytes.find("host compute"));
  CHECK(bytes.find("host compute") < bytes.find("copy hbm"));
}

TEST_CASE("host lane: the report draws the lane and gives each unit's time and stalls") {
  const testing::HandPlan hand = testing::HostMlpPlan();
  report::ReportProvenance provenance;
  provenance.model_path = "model.onnx";
  provenance.tool_version = "hyperplan test";
  const std::string page = report::HtmlReport(hand.graph, testing::UnitProfileWithHost(), hand.plan,
                                              hand.evaluation, provenance);
  const HtmlDocument doc = CheckHtml(page);
  CHECK_THAT(page, Catch::Contains(">host (2 sockets)</text>"));  // the lane's label
  CHECK_THAT(page, Catch::Contains("class=\"bar host\""));
  CHECK_THAT(page, Catch::Contains(">host stalled</text>"));
  const auto ns_of = [&](const std::string& id) {
    return doc.by_id.at(id).attributes.at("data-ns");
  };
  CHECK(ns_of("device-compute") == "150");  // l0 100 + head 50
  CHECK(ns_of("host-compute") == "300");    // mlp
  CHECK(ns_of("device-stall") == "0");      // head starts as mlp ends
  CHECK(ns_of("host-stall") == "200");      // mlp waits for the Store, 100 .. 300
  CHECK(doc.by_id.at("host-nodes").attributes.at("data-count") == "1");
  CHECK_THAT(page, Catch::Contains("layer 0 MLP on the host"));
  CHECK_THAT(doc.by_id.at("stalls-per-unit").text, Catch::Contains(FormatDuration(200)));
}
