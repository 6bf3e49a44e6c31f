// Lower bounds: hand-worked values, and a property test: no plan (any contender, the planner)
// beats the bound at its own live peak, over random graphs with fixed seeds.
#include "contenders/lower_bounds.h"

#include <algorithm>

#include "contender_support.h"
#include "contenders/layer_streaming.h"
#include "contenders/no_offload.h"
#include "contenders/op_distance.h"
#include "contenders/reactive_lru.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::BuildContenderContext;
using contenders::ComputeLowerBounds;

TEST_CASE("lower bounds: a weight that cannot stay must come in") {
  const TwoLayers t = MakeTwoLayers(10);
  const HardwareProfile profile = UnitProfile();
  const std::vector<NodeId> order = ModelOrder(t.graph);
  // Step 0 must hold x, w0 and a (120); at a 130-byte budget only 10 bytes of w1 (read at step
  // 1) can stay, so 90 bytes come in after step 0: 90 ns at 1 byte/ns > compute 20 ns.
  auto bounds = ComputeLowerBounds(t.graph, profile, order, t.times, 130);
  CHECK(bounds.peak_floor_bytes == 120);  // step 0: x + w0 + a; step 1: a + w1 + b (x can leave)
  CHECK(bounds.compute_ns == 20);
  CHECK(bounds.must_fetch_bytes == 90);
  CHECK(bounds.transfer_ns == 90);
  CHECK(bounds.must_move_bytes_per_link == std::vector<int64_t>{0, 90});  // hbm->ddr, ddr->hbm
  CHECK(bounds.must_store_bytes == 0);
  // Those 90 bytes are off the device during step 0, so their device hop waits for step 0 to
  // end (10 ns): 10 + 90 = 100 ns.
  CHECK(bounds.late_fetch.ns == 100);
  CHECK(bounds.late_fetch.step == 0);
  CHECK(bounds.late_fetch.bytes == 90);
  CHECK(bounds.late_fetch.link == 1);  // ddr -> hbm
  CHECK(bounds.makespan_ns == 100);
  CHECK_FALSE(bounds.budget_below_floor);
  // With room for everything, compute alone.
  bounds = ComputeLowerBounds(t.graph, profile, order, t.times, 1000);
  CHECK(bounds.must_fetch_bytes == 0);
  CHECK(bounds.makespan_ns == 20);
  CHECK(ComputeLowerBounds(t.graph, profile, order, t.times, 119).budget_below_floor);
}

TEST_CASE("lower bounds: what the host tiers cannot hold stays on the device") {
  const TwoLayers t = MakeTwoLayers(10);
  HardwareProfile profile = UnitProfile();
  const std::vector<NodeId> order = ModelOrder(t.graph);
  // Unlimited ddr (capacity 0): capacity forces nothing, the working-set floor is 120 (previous
  // case).
  profile.tiers[1].capacity_bytes = 0;
  auto bounds = ComputeLowerBounds(t.graph, profile, order, t.times, 1000);
  CHECK(bounds.host_capacity_bytes == -1);
  CHECK(bounds.peak_floor_bytes == 120);
  // A 50-byte ddr. Existing during step 0: x 10 + w0 100 + w1 100 + a 10 = 220; during step 1:
  // w1 100 + a 10 + b 10 = 120 (x and w0 were read for the last time at step 0). The ddr holds
  // 50 of the 220, so 170 are on the device during step 0: above the working-set floor of 120.
  profile.tiers[1].capacity_bytes = 50;
  bounds = ComputeLowerBounds(t.graph, profile, order, t.times, 1000);
  CHECK(bounds.host_capacity_bytes == 50);
  CHECK(bounds.most_existing_bytes == 220);
  CHECK(bounds.most_existing_step == 0);
  CHECK(bounds.capacity_floor_bytes == 170);
  CHECK(bounds.peak_floor_bytes == 170);
  CHECK(ComputeLowerBounds(t.graph, profile, order, t.times, 169).budget_below_floor);
  CHECK_FALSE(ComputeLowerBounds(t.graph, profile, order, t.times, 170).budget_below_floor);
  // In a loop both weights are read again next iteration, so during step 1 w0 exists too:
  // 100 + 100 + 10 + 10 = 220 at both steps, and the first step holding the most is still 0.
  std::vector<uint8_t> persistent(t.graph.values.size(), 0);
  persistent[t.w0] = persistent[t.w1] = 1;
  bounds = ComputeLowerBounds(t.graph, profile, order, t.times, 1000, persistent);
  CHECK(bounds.most_existing_bytes == 220);
  CHECK(bounds.capacity_floor_bytes == 170);
  // The planner's own plan at that ddr size keeps at least those 170 bytes on the device.
  PlanOptions options;
  options.node_time_ns = t.times;
  options.single_run = true;
  const PlanResult planned = PlanOffload(t.graph, profile, options);
  CHECK(planned.plan.layout.live_peak_bytes >= 170);
}

TEST_CASE("lower bounds: a stashed activation must be stored and fetched") {
  const Stash s = MakeStash();
  const HardwareProfile profile = UnitProfile();
  const std::vector<NodeId> order = ModelOrder(s.graph);
  // Floors: x+a 110, a+b 110, b+c 20, a+c+d 120. During step 2, a (100 B) is live and read
  // later; with budget 40 only 20 bytes of room: 80 bytes must be stored and fetched back.
  const auto bounds = ComputeLowerBounds(s.graph, profile, order, s.times, 40);
  CHECK(bounds.peak_floor_bytes == 120);
  CHECK(bounds.budget_below_floor);
  CHECK(bounds.must_fetch_bytes == 80);
  CHECK(bounds.must_store_bytes == 80);
  // Compute is 10 + 100 + 100 + 10 = 220 ns, but the 80 bytes of a off the device during step
  // 2 come back only after it ends: 10 + 100 + 100 + 80 = 290 ns.
  CHECK(bounds.compute_ns == 220);
  CHECK(bounds.late_fetch.step == 2);
  CHECK(bounds.makespan_ns == 290);
}

TEST_CASE("lower bounds: the slowest hop of a route bounds the traffic") {
  // Weights homed on NVMe behind DDR; the NVMe link at a quarter of the rate.
  const TwoLayers t = MakeTwoLayers(10);
  HardwareProfile profile = UnitProfile();
  profile.tiers.push_back({"nvme", int64_t{1} << 42, false});
  profile.links.push_back({2, 1, 250'000'000, 0, 1});  // nvme -> ddr, 0.25 byte/ns
  profile.links.push_back({1, 2, 250'000'000, 0, 1});
  profile.weight_home_tier = 2;
  // 90 bytes of w1 must come in (as above), over nvme->ddr at 0.25 byte/ns: 360 ns. The NVMe
  // hop may run before step 0 ends (only the device hop waits for it): the late-fetch term is
  // the device hop's 10 + 90 = 100 ns.
  const auto bounds = ComputeLowerBounds(t.graph, profile, ModelOrder(t.graph), t.times, 130);
  CHECK(bounds.must_move_bytes_per_link[2] == 90);
  CHECK(bounds.transfer_ns == 360);
  CHECK(bounds.bottleneck_link == 2);
  CHECK(bounds.late_fetch.ns == 100);
  CHECK(bounds.makespan_ns == 360);
}

TEST_CASE("lower bounds: state updated in place goes home before the next pass through the peak") {
  // x (10 B) -> n0 -> a (50 B); n1(x) -> b (100 B); n2(a, b) -> c (10 B); n3(m, c) -> m_new,
  // written into m (100 B) in place: a loop whose state m is off the device at step 1.
  // Times 10, 40, 10, 20 ns (compute 80 ns); links 1 byte/ns each way.
  Graph graph;
  const ValueId x = Input(graph, "x", 10);
  const ValueId m = Input(graph, "m", 100);
  const ValueId a = Bytes(graph, "a", 50);
  const ValueId b = Bytes(graph, "b", 100);
  const ValueId c = Bytes(graph, "c", 10);
  const ValueId m_new = Bytes(graph, "m_new", 100);
  Op(graph, "n0", "Work", {x}, {a});
  Op(graph, "n1", "Work", {x}, {b});
  Op(graph, "n2", "Work", {a, b}, {c});
  Op(graph, "n3", "Update", {m, c}, {m_new});
  MarkOutput(graph, m_new);
  const HardwareProfile profile = UnitProfile();
  const auto context =
      BuildContenderContext(graph, profile, {10, 40, 10, 20}, LoopSpec{true, {{m_new, m}}});
  // Floors: step 0 x + a = 60, step 1 x + b = 110, step 2 a + b + c = 160, step 3 m + c = 110.
  const auto bounds = ComputeLowerBounds(*context.graph, profile, context.order,
                                         context.node_time_ns, 160, context.persistent);
  CHECK(bounds.peak_floor_bytes == 160);
  CHECK(bounds.compute_ns == 80);
  // Late fetch: during step 2 (room 0) m must be off the device and comes back after 60 ns of
  // compute: 60 + 100 = 160 ns (step 1: a and m, 150 B less 50 of room, after 50 ns: 150).
  CHECK(bounds.late_fetch.ns == 160);
  CHECK(bounds.late_fetch.step == 2);
  // Write-back: during step 1 (room 160 - 110 = 50), a (stored after step 0) and m (written at
  // step 3 of the previous iteration) are off the device but for 50 B. Both went out over
  // hbm -> ddr after step 3 ended and before step 1 began, a window of at most the makespan
  // less steps 1..3 (40 + 10 + 20 = 70 ns): 70 + (50 + 100 - 50) = 170 ns. (Step 2: m alone,
  // room 0, steps 2..3: 30 + 100 = 130 ns.)
  CHECK(bounds.write_back.ns == 170);
  CHECK(bounds.write_back.step == 1);
  CHECK(bounds.write_back.compute_ns == 70);
  CHECK(bounds.write_back.bytes == 100);
  CHECK(bounds.write_back.link == 0);  // hbm -> ddr
  CHECK(bounds.makespan_ns == 170);
  // One run from a free preload writes nothing back: the late fetch binds.
  const auto once = ComputeLowerBounds(graph, profile, ModelOrder(graph), {10, 40, 10, 20}, 160);
  CHECK(once.write_back.ns == 0);
  // The planner's own loop plan, and each contender's, is no faster.
  PlanOptions options;
  options.budget_bytes = 160;
  options.node_time_ns = {10, 40, 10, 20};
  options.aliases = {{m_new, m}};
  const PlanEvaluation evaluation = PlanOffload(graph, profile, options).evaluation;
  REQUIRE(evaluation.fits);
  CHECK(evaluation.timeline.makespan_ns >= 170);
  const auto [reactive, reactive_evaluation] = contenders::ReactiveLruPlan(context, 160);
  REQUIRE(reactive_evaluation.fits);
  CHECK(reactive_evaluation.timeline.makespan_ns >= 170);
}

TEST_CASE("lower bounds: values stored before an update made earlier are not its write-back's") {
  // x (10 B) -> n0 -> a (100 B, read at step 3); n1 (m, x) -> m_new written into m (100 B) in
  // place; n2 (x) -> b (100 B); n3 (a, b) -> out (10 B). 10 ns a step; links 1 byte/ns.
  Graph graph;
  const ValueId x = Input(graph, "x", 10);
  const ValueId m = Input(graph, "m", 100);
  const ValueId a = Bytes(graph, "a", 100);
  const ValueId m_new = Bytes(graph, "m_new", 100);
  const ValueId b = Bytes(graph, "b", 100);
  const ValueId out = Bytes(graph, "out", 10);
  Op(graph, "n0", "Work", {x}, {a});
  Op(graph, "n1", "Update", {m, x}, {m_new});
  Op(graph, "n2", "Work", {x}, {b});
  Op(graph, "n3", "Work", {a, b}, {out});
  MarkOutput(graph, m_new);
  MarkOutput(graph, out);
  const HardwareProfile profile = UnitProfile();
  const auto context =
      BuildContenderContext(graph, profile, {10, 10, 10, 10}, LoopSpec{true, {{m_new, m}}});
  // Floors 110, 110, 110, 210; at a 210-byte budget the room is 100, 100, 100, 0.
  const auto bounds = ComputeLowerBounds(*context.graph, profile, context.order,
                                         context.node_time_ns, 210, context.persistent);
  CHECK(bounds.peak_floor_bytes == 210);
  // During step 2, a (stored after step 0) and m (written at step 1) are off the device but for
  // 100 B. m went home after step 1 and a possibly before it, so they share no window: m alone
  // is 100 B less the room, nothing to write back. (Step 3, m alone with no room, would give
  // steps 3, 0, 1 and 100 B: 130 ns, but it is neither of the two steps the term is taken at:
  // the most sent off is a tie of steps 2 and 3, the first kept, and no late fetch is forced.)
  CHECK(bounds.write_back.ns == 0);
  CHECK(bounds.late_fetch.ns == 0);
  // Into the device: during step 2 a and m (200 B) less 100 of room; during step 3 m, no room.
  CHECK(bounds.must_fetch_bytes == 100);
  CHECK(bounds.makespan_ns == 100);
}

void CheckAgainstBound(const Graph& graph, const HardwareProfile& profile,
                       const EvaluatedPlan& planned, const char* who,
                       const std::vector<uint8_t>& persistent = {}) {
  const auto& [plan, evaluation] = planned;
  INFO(who);
  RequireVerified(graph, profile, plan, evaluation);
  const auto at_own_peak = ComputeLowerBounds(graph, profile, plan.order, plan.node_time_ns,
                                              plan.layout.live_peak_bytes, persistent);
  CHECK(at_own_peak.makespan_ns <= evaluation.timeline.makespan_ns);
  CHECK(at_own_peak.peak_floor_bytes <= plan.layout.live_peak_bytes);
  CHECK_FALSE(at_own_peak.budget_below_floor);
}

TEST_CASE("lower bounds never exceed any plan's makespan (random graphs)") {
  for (uint32_t seed = 1; seed <= 16; ++seed) {
    const RandomCase c = RandomDag(seed, 6 + static_cast<int>(seed % 10));
    INFO("seed " << seed);
    for (int32_t channels : {1, 2}) {
      HardwareProfile profile = UnitProfile();
      for (Link& link : profile.links) link.channels = channels;
      const auto context = BuildContenderContext(c.graph, profile, c.times);
      const int64_t peak = context.baseline_peak_bytes;
      CheckAgainstBound(c.graph, profile, contenders::NoOffloadPlan(context), "no offload");
      for (int64_t percent : {90, 74, 50, 30}) {
        const int64_t budget = peak * percent / 100;
        INFO("budget " << budget << " (" << percent << "% of " << peak << ")");
        CheckAgainstBound(c.graph, profile, contenders::ReactiveLruPlan(context, budget),
                          "reactive");
        for (int lookahead : {0, 1, 2}) {
          contenders::LayerStreamingOptions options;
          options.lookahead_layers = lookahead;
          CheckAgainstBound(c.graph, profile,
                            contenders::LayerStreamingPlan(context, budget, options), "streaming");
        }
        for (int distance : {0, 1, 3}) {
          contenders::OpDistanceOptions options;
          options.prefetch_distance_ops = distance;
          CheckAgainstBound(c.graph, profile, contenders::OpDistancePlan(context, budget, options),
                            "op distance");
        }
        PlanOptions options;
        options.budget_bytes = budget;
        options.node_time_ns = c.times;
        CheckAgainstBound(c.graph, profile, PlanOffload(c.graph, profile, options), "hyperplan");
      }
    }
  }
}

TEST_CASE("lower bounds never exceed any steady-state plan's makespan (random graphs)") {
  // The same graphs planned as one iteration of a loop: the weights persist (read again next
  // iteration), and every contender's plan ends as it began.
  for (uint32_t seed = 1; seed <= 16; ++seed) {
    const RandomCase c = RandomDag(seed, 6 + static_cast<int>(seed % 10));
    INFO("seed " << seed);
    HardwareProfile profile = UnitProfile();
    for (Link& link : profile.links) link.channels = 2;
    int64_t total_bytes = 0;
    for (const Value& value : c.graph.values) total_bytes += value.bytes;
    // An unlimited ddr, then one holding a third of every byte the graph has: the capacity
    // floor then binds, and the plans keep what does not fit on the device.
    for (int64_t ddr_bytes : {int64_t{0}, total_bytes / 3}) {
      profile.tiers[1].capacity_bytes = ddr_bytes;
      const auto context = BuildContenderContext(c.graph, profile, c.times, LoopSpec{true, {}});
      const int64_t peak = context.baseline_peak_bytes;
      for (int64_t percent : {90, 74, 50, 30}) {
        const int64_t budget = peak * percent / 100;
        INFO("budget " << budget << " (" << percent << "% of " << peak << "), ddr " << ddr_bytes);
        CheckAgainstBound(c.graph, profile, contenders::ReactiveLruPlan(context, budget),
                          "reactive", context.persistent);
        contenders::LayerStreamingOptions streaming;
        CheckAgainstBound(c.graph, profile,
                          contenders::LayerStreamingPlan(context, budget, streaming), "streaming",
                          context.persistent);
        contenders::OpDistanceOptions distance;
        CheckAgainstBound(c.graph, profile, contenders::OpDistancePlan(context, budget, distance),
                          "op distance", context.persistent);
        PlanOptions options;
        options.budget_bytes = budget;
        options.node_time_ns = c.times;
        CheckAgainstBound(c.graph, profile, PlanOffload(c.graph, profile, options), "hyperplan",
                          context.persistent);
      }
    }
  }
}

}  // namespace
}  // namespace hyperplan::contenders_test
