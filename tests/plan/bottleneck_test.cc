// The busiest resource of an iteration: compute against each link's busy time, channels
// counted. Timelines are written by hand; the arithmetic is beside each check.
#include "hyperplan/plan/bottleneck.h"

#include <catch2/catch.hpp>

#include "planner/planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

void Transfer(Plan& plan, int32_t link, int32_t channel, int64_t start_ns, int64_t end_ns) {
  PlanStep step;
  step.kind = StepKind::kPrefetch;
  step.link = link;
  step.channel = channel;
  plan.steps.push_back(step);
  plan.timeline.steps.push_back({start_ns, end_ns});
}

}  // namespace

TEST_CASE("bottleneck: a two-channel link busy on both channels counts once") {
  HardwareProfile profile = UnitProfile();  // link 0 hbm->ddr, link 1 ddr->hbm
  profile.links[1].channels = 2;
  Plan plan;
  plan.periodic = true;
  plan.timeline.compute_ns = 350;
  plan.timeline.makespan_ns = 500;
  Transfer(plan, 0, 0, 0, 100);  // link 0: 100 + 200 = 300 ns on its one channel
  Transfer(plan, 0, 0, 100, 300);
  Transfer(plan, 1, 0, 0, 400);  // link 1: 400 + 400 = 800 channel-ns over 2 channels = 400
  Transfer(plan, 1, 1, 100, 500);
  const Bottleneck bottleneck = FindBottleneck(profile, plan);
  CHECK(bottleneck.compute_busy_ns == 350);
  CHECK(bottleneck.link_busy_ns == std::vector<int64_t>{300, 400});
  CHECK(bottleneck.link == 1);
  CHECK(bottleneck.busy_ns == 400);
  CHECK(BottleneckName(profile, bottleneck) == "ddr->hbm");
  // 400 of 500 ns: 80%.
  CHECK(DescribeBottleneck(profile, plan, bottleneck) ==
        "ddr->hbm, busy 400 ns of the 500 ns iteration (80%)");
}

TEST_CASE("bottleneck: compute wins ties, and a run without transfers is compute-bound") {
  const HardwareProfile profile = UnitProfile();
  Plan plan;
  plan.timeline.compute_ns = 300;
  plan.timeline.makespan_ns = 300;
  Transfer(plan, 1, 0, 0, 300);  // as busy as compute
  const Bottleneck tie = FindBottleneck(profile, plan);
  CHECK(tie.link == -1);
  CHECK(BottleneckName(profile, tie) == "compute");
  CHECK(DescribeBottleneck(profile, plan, tie) == "compute, busy 300 ns of the 300 ns run (100%)");
}
