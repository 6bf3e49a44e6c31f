// The Chrome trace (src/report/chrome_trace.h): valid JSON (read back by the test's strict
// reader and by Node's JSON.parse), one complete event per plan step at its simulated time,
// threads named per stream, one counter track per tier.
#include "report/chrome_trace.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "hyperplan/names.h"
#include "report/hand_plans.h"
#include "report/json_reader.h"
#include "report/sample_plans.h"
#include "support/run_command.h"

using namespace hyperplan;
using hyperplan::testing::MicrosecondsToNs;
using hyperplan::testing::ParseJson;
using hyperplan::testing::SamplePlan;
using nlohmann::json;

namespace {

std::string Trace(const SamplePlan& sample) {
  std::ostringstream out;
  report::WriteChromeTrace(out, sample.graph, sample.profile, sample.plan, sample.evaluation,
                           {sample.model_path, "hyperplan test"});
  return out.str();
}

// Checks every event of the trace against the plan.
void CheckTraceMatchesPlan(const SamplePlan& sample, const std::string& text) {
  const Plan& plan = sample.plan;
  const PlanEvaluation& evaluation = sample.evaluation;
  const HardwareProfile& profile = sample.profile;
  const json root = ParseJson(text);
  REQUIRE(root.is_object());
  const json& events = root.at("traceEvents");
  REQUIRE(events.is_array());
  CHECK(root.at("displayTimeUnit") == "ns");

  std::map<int64_t, std::string> thread_names;  // tid -> name
  std::map<std::string, int64_t> x_per_kind;
  std::vector<int> seen(plan.steps.size(), 0);
  std::map<std::string, std::vector<int64_t>> counters;  // name -> bytes in order
  int64_t previous_step = -1;
  for (const json& event : events) {
    const std::string ph = event.at("ph").get<std::string>();
    if (ph == "M" && event.at("name") == "thread_name") {
      thread_names[event.at("tid").get<int64_t>()] = event.at("args").at("name").get<std::string>();
    } else if (ph == "X" && event.at("cat") == "stall") {
      continue;  // checked by "stalls, waits and links" below
    } else if (ph == "X") {
      const int64_t index = event.at("args").at("step").get<int64_t>();
      REQUIRE(index >= 0);
      REQUIRE(static_cast<size_t>(index) < plan.steps.size());
      CHECK(index > previous_step);  // step order
      previous_step = index;
      ++seen[index];
      const PlanStep& step = plan.steps[index];
      const StepTiming& timing = evaluation.timeline.steps[index];
      ++x_per_kind[event.at("cat").get<std::string>()];
      CHECK(event.at("cat") == std::string(StepKindName(step.kind)));
      CHECK(MicrosecondsToNs(event.at("ts")) == timing.start_ns);
      CHECK(MicrosecondsToNs(event.at("dur")) == timing.end_ns - timing.start_ns);
      // The thread is the step's stream, named independently here from the profile.
      const std::string& thread = thread_names.at(event.at("tid").get<int64_t>());
      if (step.kind == StepKind::kCompute || step.kind == StepKind::kDetach) {
        CHECK(thread == "compute");
      } else {
        const Link& link = profile.links.at(step.link);
        CHECK(thread == "copy " + TierName(profile, link.from) + "\u2192" +
                            TierName(profile, link.to) + " ch " + std::to_string(step.channel));
      }
      if (step.kind == StepKind::kCompute) {
        CHECK(event.at("name") == sample.graph.nodes.at(step.node).name);
      } else {
        CHECK(event.at("args").at("bytes") == step.bytes);
      }
    } else if (ph == "C" && event.at("name").get<std::string>().rfind("link ", 0) == 0) {
      continue;  // link utilisation, checked below
    } else if (ph == "C") {
      counters[event.at("name").get<std::string>()].push_back(
          event.at("args").at("bytes").get<int64_t>());
    }
  }
  // One event per step, and as many per kind as the plan has steps of that kind.
  CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(plan.steps.size()));
  std::map<std::string, int64_t> steps_per_kind;
  for (const PlanStep& step : plan.steps) ++steps_per_kind[std::string(StepKindName(step.kind))];
  CHECK(x_per_kind == steps_per_kind);
  // One counter track per tier, carrying the simulated curve point by point.
  for (size_t t = 0; t < profile.tiers.size(); ++t) {
    std::vector<int64_t> expected;
    for (const TierUsagePoint& point : evaluation.timeline.bytes_per_tier.at(t)) {
      expected.push_back(point.bytes);
    }
    CHECK(counters[profile.tiers[t].name] == expected);
  }
}

// Node's own JSON parser accepts the file.
void CheckNodeParses(const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("hyperplan-trace-" + std::to_string(getpid()) + ".json");
  std::ofstream(path, std::ios::binary) << text;
  const auto result = testing::RunCommand(
      {"/usr/bin/node", "-e",
       "const t = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'));"
       "if (!Array.isArray(t.traceEvents)) process.exit(3);",
       path.string()});
  std::filesystem::remove(path);
  INFO(result.stderr_text);
  CHECK(result.exit_code == 0);
}

}  // namespace

TEST_CASE("the tiny plan's trace has one event per step at its simulated time") {
  const SamplePlan sample = testing::TinyOffloadSample();
  REQUIRE(sample.evaluation.summary.steps_per_kind[static_cast<size_t>(StepKind::kPrefetch)] >= 1);
  const std::string text = Trace(sample);
  CheckTraceMatchesPlan(sample, text);
  CheckNodeParses(text);
  CHECK(text == Trace(sample));  // deterministic
  // The markup-hostile graph name survives JSON escaping.
  CHECK(ParseJson(text).at("otherData").at("graph") == "tiny <offload> & \"friends\"");
}

TEST_CASE("a bundled model's trace matches its plan and parses in Node") {
  const SamplePlan sample = testing::BundledSample(
      "llama-tiny-decode.onnx", {{"batch", 1}, {"sequence", 1}, {"past_sequence", 64}}, 60);
  const std::string text = Trace(sample);
  CheckTraceMatchesPlan(sample, text);
  CheckNodeParses(text);
}

TEST_CASE("names with control characters and invalid UTF-8 still make valid JSON") {
  SamplePlan sample = testing::TinyOffloadSample();
  sample.graph.nodes[0].name =
      "pro\x01"
      "duce\n\"q\"\\ \xFF";
  const std::string text = Trace(sample);
  const json root = ParseJson(text);
  bool found = false;
  for (const json& event : root.at("traceEvents")) {
    if (event.at("ph") == "X" && event.at("cat") == "compute" && event.at("args").at("step") == 1) {
      CHECK(event.at("name") ==
            "pro\x01"
            "duce\n\"q\"\\ \xEF\xBF\xBD");
      found = true;
    }
  }
  CHECK(found);
  CheckNodeParses(text);
}

TEST_CASE("the trace shows stalls, waits and link use explicitly") {
  // hand_plans.h: l0 stalls 1000 ns on Prefetch w0 (step 0), l1 900 ns on Prefetch w1 (step
  // 2), head 50 ns on nothing. Both prefetches run on ddr->hbm channel 0, back to back.
  SamplePlan sample;
  testing::HandPlan hand = testing::StreamingPlan();
  sample.graph = std::move(hand.graph);
  sample.plan = std::move(hand.plan);
  sample.evaluation = std::move(hand.evaluation);
  sample.profile = testing::UnitProfile();
  const std::string text = Trace(sample);
  CheckNodeParses(text);
  const json root = ParseJson(text);

  std::vector<std::pair<int64_t, int64_t>> stall_slices;  // ts, dur in ns
  std::vector<std::string> waited_for;
  std::map<int64_t, std::vector<const json*>> flows;                      // id -> its s and f
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> links;  // name -> ts, percent
  for (const json& event : root.at("traceEvents")) {
    const std::string ph = event.at("ph").get<std::string>();
    if (ph == "X" && event.at("cat") == "stall") {
      CHECK(event.at("tid") == report::kComputeThreadId);
      stall_slices.push_back({MicrosecondsToNs(event.at("ts")), MicrosecondsToNs(event.at("dur"))});
      const json& args = event.at("args");
      waited_for.push_back(args.contains("waited_for") ? args.at("waited_for").get<std::string>()
                                                       : "-");
    } else if (ph == "s" || ph == "f") {
      flows[event.at("id").get<int64_t>()].push_back(&event);
    } else if (ph == "C" && event.at("name").get<std::string>().rfind("link ", 0) == 0) {
      links[event.at("name").get<std::string>()].push_back(
          {MicrosecondsToNs(event.at("ts")), event.at("args").at("busy_percent").get<int64_t>()});
    }
  }
  // Each stall ends where its step starts: l0 at 1000 (from 0), l1 at 2000 (from 1100), head
  // at 2150 (from 2100).
  CHECK(stall_slices ==
        std::vector<std::pair<int64_t, int64_t>>{{0, 1000}, {1100, 900}, {2100, 50}});
  CHECK(waited_for ==
        std::vector<std::string>{"prefetch model.layers.0.w", "prefetch model.layers.1.w", "-"});
  // Two waits cross threads (l0 on step 0, l1 on step 2): two flows, each an "s" 1 ns before
  // the prefetch ends on the copy thread and an "f" at the waiter's start on compute.
  REQUIRE(flows.size() == 2);
  const json& first_s = *flows.at(1).at(0);
  const json& first_f = *flows.at(1).at(1);
  CHECK(first_s.at("ph") == "s");
  CHECK(MicrosecondsToNs(first_s.at("ts")) == 999);
  CHECK(first_s.at("tid") != report::kComputeThreadId);
  CHECK(first_f.at("ph") == "f");
  CHECK(first_f.at("bp") == "e");
  CHECK(MicrosecondsToNs(first_f.at("ts")) == 1000);
  CHECK(first_f.at("tid") == report::kComputeThreadId);
  CHECK(MicrosecondsToNs(flows.at(2).at(1)->at("ts")) == 2000);
  // ddr->hbm has one channel, busy from 0 to 2000 (the second transfer starts as the first
  // ends: one point at 1000 stays at 100%), then idle.
  REQUIRE(links.size() == 1);
  CHECK(links.begin()->first == "link ddr\u2192hbm");
  CHECK(links.begin()->second ==
        std::vector<std::pair<int64_t, int64_t>>{{0, 100}, {1000, 100}, {2000, 0}});
}
