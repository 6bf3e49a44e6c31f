// Components on their own: link occupancy searches, arena layout, replay, order, routes.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "hyperplan/layout/layout.h"
#include "hyperplan/layout/plan_layout.h"
#include "hyperplan/plan/simulate.h"
#include "hyperplan/routes.h"
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

TEST_CASE("routes: the device's in- and out-link rates are summed over its own links") {
  HardwareProfile profile = NvmeProfile();
  // A second host tier with its own link each way, 2 B/ns in and 3 B/ns out.
  profile.tiers.push_back({"peer", int64_t{1} << 40, false});
  profile.links.push_back({3, 0, 2 * kOneBytePerNs, 0, 1});
  profile.links.push_back({0, 3, 3 * kOneBytePerNs, 0, 1});
  const DeviceLinkRates rates = SumDeviceLinkRates(profile);
  // In: ddr->hbm 1 + peer->hbm 2 B/ns; out: hbm->ddr 1 + hbm->peer 3 B/ns; the nvme<->ddr
  // links do not touch the device.
  CHECK(rates.into_device_bytes_per_s == 3 * kOneBytePerNs);
  CHECK(rates.out_of_device_bytes_per_s == 4 * kOneBytePerNs);
}

TEST_CASE("layout: live bytes per step count each interval from its first to its last step") {
  // a 10 B over steps 0-2, b 5 B over 1-1, c 7 B over 2-3; a 0-byte and an empty interval
  // count nothing.
  std::vector<ResidentInterval> residency(5);
  residency[0].first_step = 0, residency[0].last_step = 2, residency[0].bytes = 10;
  residency[1].first_step = 1, residency[1].last_step = 1, residency[1].bytes = 5;
  residency[2].first_step = 2, residency[2].last_step = 3, residency[2].bytes = 7;
  residency[3].first_step = 0, residency[3].last_step = 3, residency[3].bytes = 0;
  residency[4].first_step = 3, residency[4].last_step = 1, residency[4].bytes = 100;
  // Step 0: a 10; 1: a + b 15; 2: a + c 17; 3: c 7. (Counted, the inverted interval would
  // take 100 from step 2 on and give it back at 3: step 2 would read -83.)
  CHECK(LiveBytesPerStep(residency, 4) == std::vector<int64_t>{10, 15, 17, 7});
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

TEST_CASE("order: eager updates run each in-place update right after its gradient") {
  // Four layers w0..w3 (weights updated in place next iteration), a forward pass, a backward
  // pass, and then the optimizer's four updates, as exporters write a training step:
  //   forward   n0 h0 = (x, w0)   n1 h1 = (h0, w1)   n2 h2 = (h1, w2)   n3 y = (h2, w3)
  //             n4 loss = (y), a graph output
  //   backward  n5 dy = (y)       n6 g3 = (h2, dy)    n7 dh2 = (dy, w3)   n8 g2 = (h1, dh2)
  //             n9 dh1 = (dh2, w2)   n10 g1 = (h0, dh1)   n11 dh0 = (dh1, w1)   n12 g0 = (x, dh0)
  //   optimizer n13..n16 wK_new = (wK, gK), each written into wK in place
  // Update-side nodes serve one update alone: the updates, g3 (n6), g2 (n8), g1 (n10) and the
  // chain dh0, g0 (n11, n12) that only w0's update reads. dh2 and dh1 feed two updates (a
  // weight gradient and the next data gradient) and keep their place, as do dy and the rest.
  // Each update-side node runs right after the latest other node it waits for: w3's update
  // needs g3 and every other reader of w3 (n3, and dh2 at n7), so it runs right after n7; g3
  // with it (its only successor's slot). w2's update waits for dh1 (n9, which reads w2), and
  // so does g2 (delayed to its update's slot); w1 and w0 wait for dh1 through g1, dh0, g0.
  Graph graph;
  const ValueId x = Input(graph, "x", 1);
  std::vector<ValueId> w;
  for (int k = 0; k < 4; ++k) w.push_back(Weight(graph, "w" + std::to_string(k), 1));
  const ValueId h0 = Work(graph, "n0", {x, w[0]}, "h0", 1, 1);
  const ValueId h1 = Work(graph, "n1", {h0, w[1]}, "h1", 1, 1);
  const ValueId h2 = Work(graph, "n2", {h1, w[2]}, "h2", 1, 1);
  const ValueId y = Work(graph, "n3", {h2, w[3]}, "y", 1, 1);
  MarkOutput(graph, Work(graph, "n4", {y}, "loss", 1, 1));
  const ValueId dy = Work(graph, "n5", {y}, "dy", 1, 1);
  std::vector<ValueId> g(4);
  g[3] = Work(graph, "n6", {h2, dy}, "g3", 1, 1);
  const ValueId dh2 = Work(graph, "n7", {dy, w[3]}, "dh2", 1, 1);
  g[2] = Work(graph, "n8", {h1, dh2}, "g2", 1, 1);
  const ValueId dh1 = Work(graph, "n9", {dh2, w[2]}, "dh1", 1, 1);
  g[1] = Work(graph, "n10", {h0, dh1}, "g1", 1, 1);
  const ValueId dh0 = Work(graph, "n11", {dh1, w[1]}, "dh0", 1, 1);
  g[0] = Work(graph, "n12", {x, dh0}, "g0", 1, 1);
  std::vector<ValueAlias> aliases;
  for (int k = 3; k >= 0; --k) {
    const ValueId updated = Work(graph, "n" + std::to_string(16 - k), {w[k], g[k]},
                                 "w" + std::to_string(k) + "_new", 1, 1);
    MarkOutput(graph, updated);
    aliases.push_back({updated, w[k]});
  }
  const std::vector<NodeId> order = EagerUpdateOrder(graph, aliases);
  CHECK(order == std::vector<NodeId>{0, 1, 2, 3, 4, 5, 7, 6, 13, 9, 8, 10, 11, 12, 14, 15, 16});
  // Every other reader of a weight runs before its update overwrites it.
  std::vector<size_t> position(order.size());
  for (size_t k = 0; k < order.size(); ++k) position[order[k]] = k;
  for (const ValueAlias& alias : aliases) {
    const NodeId writer = graph.values[alias.out_value].producer;
    for (NodeId reader : graph.values[alias.in_value].consumers) {
      if (reader != writer) CHECK(position[reader] < position[writer]);
    }
  }
  // Without in-place updates nothing moves.
  CHECK(EagerUpdateOrder(graph, {}) == ModelOrder(graph));
}

TEST_CASE("simulate: the compute stream alone is the baseline makespan") {
  Graph graph;
  const ValueId a = Work(graph, "n0", {}, "a", 10, 30);
  MarkOutput(graph, Work(graph, "n1", {a}, "y", 10, 12));
  PlanOptions options;
  options.offload = false;
  const PlanResult result = PlanAndVerify(graph, UnitProfile(), options);
  const SimulationResult& sim = result.evaluation.timeline;
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
