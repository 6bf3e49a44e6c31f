// Steps per stream (src/report/streams.h) on the tiny sample, whose transfers are worked out
// by hand: "big" goes hbm -> ddr and back, each on the only channel of its link.
#include "report/streams.h"

#include <catch2/catch.hpp>

#include "report/sample_plans.h"

using namespace hyperplan;

TEST_CASE("each step lands on its stream, copy streams by link then channel") {
  const testing::SamplePlan sample = testing::TinyOffloadSample();
  const Plan& plan = sample.plan;
  const report::PlanStreams streams = report::CollectStreams(sample.profile, plan);
  CHECK(streams.compute_steps.size() == sample.graph.nodes.size());
  size_t transfers = 0;
  size_t detaches = 0;
  for (const PlanStep& step : plan.steps) {
    transfers += step.kind == StepKind::kPrefetch || step.kind == StepKind::kStore;
    detaches += step.kind == StepKind::kDetach;
  }
  CHECK(streams.detach_steps.size() == detaches);
  size_t listed = 0;
  for (const report::CopyStream& stream : streams.copy_streams) {
    listed += stream.steps.size();
    for (int32_t step : stream.steps) {
      CHECK(plan.steps[step].link == stream.link);
      CHECK(plan.steps[step].channel == stream.channel);
    }
    CHECK(std::is_sorted(stream.steps.begin(), stream.steps.end()));
  }
  CHECK(listed == transfers);
  // The unit profile has two one-channel links (hbm->ddr is link 0, ddr->hbm link 1), both busy.
  REQUIRE(streams.copy_streams.size() == 2);
  CHECK(streams.copy_streams[0].name == "hbm\u2192ddr ch 0");
  CHECK(streams.copy_streams[1].name == "ddr\u2192hbm ch 0");
  CHECK(streams.idle_copy_streams == 0);
}

TEST_CASE("stalls are the waits before compute steps, from the simulated timeline") {
  const testing::SamplePlan sample = testing::TinyOffloadSample();
  const Plan& plan = sample.plan;
  const PlanEvaluation& evaluation = sample.evaluation;
  const report::PlanStreams streams = report::CollectStreams(sample.profile, plan);
  const report::Stalls stalls = report::CollectStalls(plan, evaluation, streams.compute_steps);
  int64_t total_ns = 0;
  for (const report::TimeInterval& interval : stalls.intervals) {
    CHECK(interval.end_ns > interval.start_ns);
    total_ns += interval.end_ns - interval.start_ns;
  }
  CHECK(total_ns == evaluation.timeline.stall_ns);
  for (size_t i = 0; i < stalls.steps.size(); ++i) {
    CHECK(stalls.intervals[i].end_ns == evaluation.timeline.steps[stalls.steps[i]].start_ns);
  }
}
