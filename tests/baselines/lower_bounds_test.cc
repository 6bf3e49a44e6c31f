// Lower bounds: hand-worked values, and a property test: no plan (any baseline, the planner)
// beats the bound at its own live peak, over random graphs with fixed seeds.
#include "baselines/lower_bounds.h"

#include <algorithm>

#include "baseline_support.h"
#include "baselines/layer_streaming.h"
#include "baselines/no_offload.h"
#include "baselines/op_distance.h"
#include "baselines/reactive_lru.h"
#include "hyperplan/planner/planner.h"

namespace hyperplan::baselines_test {
namespace {

using baselines::BuildBaselineContext;
using baselines::ComputeLowerBounds;

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
  CHECK(bounds.late_fetch_ns == 100);
  CHECK(bounds.late_fetch_step == 0);
  CHECK(bounds.late_fetch_bytes == 90);
  CHECK(bounds.late_fetch_link == 1);  // ddr -> hbm
  CHECK(bounds.makespan_ns == 100);
  CHECK_FALSE(bounds.budget_below_floor);
  // With room for everything, compute alone.
  bounds = ComputeLowerBounds(t.graph, profile, order, t.times, 1000);
  CHECK(bounds.must_fetch_bytes == 0);
  CHECK(bounds.makespan_ns == 20);
  CHECK(ComputeLowerBounds(t.graph, profile, order, t.times, 119).budget_below_floor);
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
  CHECK(bounds.late_fetch_step == 2);
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
  CHECK(bounds.late_fetch_ns == 100);
  CHECK(bounds.makespan_ns == 360);
}

void CheckAgainstBound(const Graph& graph, const HardwareProfile& profile, const Plan& plan,
                       const char* who, const std::vector<uint8_t>& persistent = {}) {
  INFO(who);
  RequireVerified(graph, profile, plan);
  const auto at_own_peak = ComputeLowerBounds(graph, profile, plan.order, plan.node_time_ns,
                                              plan.layout.live_peak_bytes, persistent);
  CHECK(at_own_peak.makespan_ns <= plan.timeline.makespan_ns);
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
      const auto context = BuildBaselineContext(c.graph, profile, c.times);
      const int64_t peak = context.baseline_peak_bytes;
      CheckAgainstBound(c.graph, profile, baselines::NoOffloadPlan(context), "no offload");
      for (int64_t percent : {90, 74, 50, 30}) {
        const int64_t budget = peak * percent / 100;
        INFO("budget " << budget << " (" << percent << "% of " << peak << ")");
        CheckAgainstBound(c.graph, profile, baselines::ReactiveLruPlan(context, budget),
                          "reactive");
        for (int lookahead : {0, 1, 2}) {
          baselines::LayerStreamingOptions options;
          options.lookahead_layers = lookahead;
          CheckAgainstBound(c.graph, profile,
                            baselines::LayerStreamingPlan(context, budget, options).plan,
                            "streaming");
        }
        for (int distance : {0, 1, 3}) {
          baselines::OpDistanceOptions options;
          options.prefetch_distance_ops = distance;
          CheckAgainstBound(c.graph, profile, baselines::OpDistancePlan(context, budget, options),
                            "op distance");
        }
        PlanOptions options;
        options.budget_bytes = budget;
        options.node_time_ns = c.times;
        CheckAgainstBound(c.graph, profile, PlanOffload(c.graph, profile, options).plan,
                          "hyperplan");
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
    const auto context = BuildBaselineContext(c.graph, profile, c.times, LoopSpec{true, {}});
    const int64_t peak = context.baseline_peak_bytes;
    for (int64_t percent : {90, 74, 50, 30}) {
      const int64_t budget = peak * percent / 100;
      INFO("budget " << budget << " (" << percent << "% of " << peak << ")");
      CheckAgainstBound(c.graph, profile, baselines::ReactiveLruPlan(context, budget), "reactive",
                        context.persistent);
      baselines::LayerStreamingOptions streaming;
      CheckAgainstBound(c.graph, profile,
                        baselines::LayerStreamingPlan(context, budget, streaming).plan, "streaming",
                        context.persistent);
      baselines::OpDistanceOptions distance;
      CheckAgainstBound(c.graph, profile, baselines::OpDistancePlan(context, budget, distance),
                        "op distance", context.persistent);
      PlanOptions options;
      options.budget_bytes = budget;
      options.node_time_ns = c.times;
      CheckAgainstBound(c.graph, profile, PlanOffload(c.graph, profile, options).plan, "hyperplan",
                        context.persistent);
    }
  }
}

}  // namespace
}  // namespace hyperplan::baselines_test
