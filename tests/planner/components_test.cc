// Components on their own: link occupancy searches, arena layout, replay, order, routes.
#include <catch2/catch.hpp>

#include "hyperplan/planner/layout.h"
#include "hyperplan/planner/simulate.h"
#include "planner/cost_analysis.h"
#include "planner/link_schedule.h"
#include "planner/order.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner;
using namespace hyperplan::planner_test;

TEST_CASE("link schedule: latest and earliest free slots on one channel") {
  ChannelSchedule channel;
  channel.Reserve(100, 200);
  channel.Reserve(250, 300);
  // Latest 50 ns ending by 400: [350, 400).
  CHECK(channel.LatestStart(0, 400, 50) == 350);
  // Ending by 300: [200, 250) is exactly the gap between the two.
  CHECK(channel.LatestStart(0, 300, 50) == 200);
  // 60 ns does not fit in that gap: before 100, [40, 100).
  CHECK(channel.LatestStart(0, 300, 60) == 40);
  CHECK(!channel.LatestStart(50, 300, 60).has_value());  // not at or after 50
  CHECK(channel.EarliestStart(120, 50) == 200);
  CHECK(channel.EarliestStart(120, 60) == 300);
  CHECK(channel.EarliestStart(0, 100) == 0);
  // Touching intervals merge: [200, 250) closes the gap.
  channel.Reserve(200, 250);
  CHECK(channel.EarliestStart(150, 1) == 300);
}

TEST_CASE("link schedule: a two-channel link picks the channel with the best slot") {
  HardwareProfile profile = UnitProfile(int64_t{1} << 40, 2);
  LinkSchedule links(profile);
  links.Reserve(0, Slot{0, 0, 100});
  const Slot early = links.EarliestSlot(0, 0, 50);
  CHECK(early.channel == 1);
  CHECK(early.start_ns == 0);
  const auto late = links.LatestSlot(0, 0, 100, 50);
  REQUIRE(late.has_value());
  CHECK(late->channel == 1);  // channel 0 is busy until 100
  CHECK(late->start_ns == 50);
}

TEST_CASE("transfer time: a link's bandwidth is shared by its channels") {
  Link link{0, 1, kOneBytePerNs, 5, 1};
  CHECK(ChannelTransferTimeNs(link, 100) == 105);  // 5 ns latency + 100 B at 1 B/ns
  link.channels = 4;
  CHECK(ChannelTransferTimeNs(link, 100) == 405);  // each channel moves 0.25 B/ns
}

TEST_CASE("routes: nvme reaches the device through ddr") {
  const HardwareProfile profile = NvmeProfile();
  const auto route = FindRoute(profile, 2, 0);
  REQUIRE(route.has_value());
  CHECK(*route == Route{3, 1});  // nvme->ddr is link 3, ddr->hbm link 1
  CHECK(FindRoute(profile, 0, 2) == Route{0, 2});
  CHECK(RouteTimeNs(profile, *route, 10) == 20);
}

TEST_CASE("layout: greedy by size reuses freed space") {
  // Steps 0-3: a (100 B, 0..1), b (50 B, 1..2), c (100 B, 2..3), d (10 B, 0..3).
  std::vector<ResidentInterval> residency(4);
  residency[0] = {0, kNoNode, 0, 1, 100, -1, -1};
  residency[1] = {1, kNoNode, 1, 2, 50, -1, -1};
  residency[2] = {2, kNoNode, 2, 3, 100, -1, -1};
  residency[3] = {3, kNoNode, 0, 3, 10, -1, -1};
  const ArenaLayout layout = LayoutArena(residency, 4);
  // Live: 110, 160, 160, 110. a and c share offset 0; b above them; d above b.
  CHECK(layout.live_peak_bytes == 160);
  CHECK(layout.live_peak_step == 1);
  CHECK(layout.arena_bytes == 160);
  CHECK(layout.offset_bytes[0] == layout.offset_bytes[2]);
  CHECK(layout.algorithm == "greedy_by_size");
}

TEST_CASE("order: memory-aware order runs the reader that frees memory first") {
  Graph graph;
  const ValueId big_a = Work(graph, "n0", {}, "A", 100, 10);
  const ValueId big_b = Work(graph, "n1", {}, "B", 100, 10);
  const ValueId a = Work(graph, "n2", {big_a}, "a", 1, 10);
  const ValueId b = Work(graph, "n3", {big_b}, "b", 1, 10);
  MarkOutput(graph, Work(graph, "n4", {a, b}, "y", 1, 10));
  CHECK(MemoryAwareOrder(graph) == std::vector<NodeId>{0, 2, 1, 3, 4});
}

TEST_CASE("simulate: the compute stream alone is the baseline makespan") {
  Graph graph;
  const ValueId a = Work(graph, "n0", {}, "a", 10, 30);
  MarkOutput(graph, Work(graph, "n1", {a}, "y", 10, 12));
  PlanOptions options;
  options.offload = false;
  const PlanResult result = PlanAndVerify(graph, UnitProfile(), options);
  const SimulationResult& sim = result.plan.timeline;
  CHECK(sim.makespan_ns == 42);  // 30 + 12
  CHECK(sim.baseline_makespan_ns == 42);
  CHECK(sim.steps[1].start_ns == 30);
  // Device bytes: a from 0, y from 30, both to the end (a is freed when n1 ends at 42).
  CHECK(sim.peak_bytes_per_tier[0] == 20);
  REQUIRE(sim.bytes_per_tier[0].size() >= 2);
  CHECK(sim.bytes_per_tier[0][0].bytes == 10);
  CHECK(sim.bytes_per_tier[0][1].time_ns == 30);
  CHECK(sim.bytes_per_tier[0][1].bytes == 20);
}
