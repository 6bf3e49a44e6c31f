// Nodes placed on the host (docs/design.md "Compute units"): what crosses between the units,
// what does not, and when the planner moves a part there. Unit rates (planner_support.h): the
// device computes 1 FLOP/ns, its links move 1 byte/ns with no latency; the host unit below
// reads its memory (ddr) at 4 B/ns and computes 0.5 FLOP/ns. A Work node counts one FLOP per
// output element and touches its inputs' and outputs' bytes, on either unit. Every number is
// worked out beside its assertion.
#include "planner/host_placement.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <vector>

#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/problem.h"
#include "planner/context.h"
#include "planner/refine.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// Decoder layers (two unless told): attention n<L>a (weight "model.layers.<L>.self_attn.w",
// 10 B, 10 ns) then MLP n<L>m (weight "model.layers.<L>.mlp.up_proj.weight", 100 B,
// `mlp_flops` ns on the device); every activation 4 B; x is the graph input, the last MLP's
// output the graph's.
struct TwoLayers {
  Graph graph;
  ValueId x = kNoValue;
  std::vector<ValueId> attention_out, mlp_out, mlp_weight;
  explicit TwoLayers(int64_t mlp_flops, int layers = 2) {
    ValueId previous = x = Input(graph, "x", 4);
    for (int layer = 0; layer < layers; ++layer) {
      const std::string base = Named("model.layers.", layer);
      const ValueId attention_weight = Weight(graph, base + ".self_attn.w", 10);
      attention_out.push_back(Work(graph, Named("n", layer, "a"), {previous, attention_weight},
                                   Named("a", layer), 4, 10));
      mlp_weight.push_back(Weight(graph, base + ".mlp.up_proj.weight", 100));
      previous = Work(graph, Named("n", layer, "m"), {attention_out.back(), mlp_weight.back()},
                      Named("m", layer), 4, mlp_flops);
      mlp_out.push_back(previous);
    }
    MarkOutput(graph, previous);
  }
};

PlanOptions OneRun() {
  PlanOptions options;
  options.single_run = true;
  options.allow_reorder = false;
  return options;
}

const PlanStep& ComputeOf(const Plan& plan, NodeId node) {
  for (const PlanStep& step : plan.steps) {
    if (step.kind == StepKind::kCompute && step.node == node) return step;
  }
  FAIL("no compute step for node " << node);
  return plan.steps.front();
}

int32_t IndexOf(const Plan& plan, const PlanStep& step) {
  return static_cast<int32_t>(&step - plan.steps.data());
}

bool Waits(const PlanStep& step, int32_t index) {
  return std::find(step.waits_for.begin(), step.waits_for.end(), index) != step.waits_for.end();
}

}  // namespace

TEST_CASE("a node moved to the host: its input crosses, its weight does not", "[planner][host]") {
  const TwoLayers model(20);
  const HardwareProfile profile = HalfFlopHostProfile();
  const PlanOptions options = OneRun();
  const Problem problem = BuildProblem(model.graph, profile, options);
  std::vector<ComputeUnit> units(model.graph.nodes.size(), ComputeUnit::kDevice);
  units[1] = ComputeUnit::kHost;  // n0m, layer 0's MLP
  const PlanResult result = PlanOffload(PlaceUnits(problem, units), options);
  const Plan& plan = result.plan;
  const PlanStep& mlp = ComputeOf(plan, 1);
  CHECK(mlp.unit == ComputeUnit::kHost);
  // a0 (4 B) is Stored device -> ddr before the host step, which waits for it.
  const std::vector<int32_t> stores = StepsOf(plan, StepKind::kStore, model.attention_out[0]);
  REQUIRE(stores.size() == 1);
  CHECK(plan.steps[stores[0]].bytes == 4);
  CHECK(plan.steps[stores[0]].dst_tier == 1);
  CHECK(Waits(mlp, stores[0]));
  // m0 (4 B) comes back by a Prefetch waiting for the host step; n1a waits for that Prefetch.
  const std::vector<int32_t> prefetches = StepsOf(plan, StepKind::kPrefetch, model.mlp_out[0]);
  REQUIRE(prefetches.size() == 1);
  CHECK(Waits(plan.steps[prefetches[0]], IndexOf(plan, mlp)));
  CHECK(Waits(ComputeOf(plan, 2), prefetches[0]));
  // The weight never crosses: no transfer of it, no device residency, its home copy on ddr.
  const ValueId weight = model.mlp_weight[0];
  for (const PlanStep& step : plan.steps) CHECK(step.value != weight);
  for (const ResidentInterval& interval : plan.residency) CHECK(interval.value != weight);
  const auto home = std::find_if(plan.tier_copies.begin(), plan.tier_copies.end(),
                                 [&](const TierCopy& copy) { return copy.value == weight; });
  REQUIRE(home != plan.tier_copies.end());
  CHECK(home->tier == 1);
  CHECK(home->opened_by == -1);
  CHECK(home->closed_by == -1);
  // Time: n0a 10 ns; Store a0 4 B at 1 B/ns: 4 ns; n0m on the host: max(20 FLOP at 0.5/ns =
  // 40 ns, (4 + 100 + 4) B at 4 B/ns = 27 ns) = 40 ns; Prefetch m0: 4 ns; n1a 10 ns; n1m on
  // the device 20 ns. 10 + 4 + 40 + 4 + 10 + 20 = 88 ns.
  CHECK(result.evaluation.timeline.makespan_ns == 88);
  CHECK(result.evaluation.timeline.host_compute_ns == 40);
  CHECK(plan.node_time_ns[1] == 40);
}

TEST_CASE("a host step's last read of a device value does not hold the device back",
          "[planner][host]") {
  // n1 on the host is the last reader of a; n2 (device) reads only x, as a MoE block's shared
  // experts beside its routed experts on the host:
  //   n0 (device) x -> a  10 ns;  n1 (host) a, w (100 B) -> b;  n2 (device) x -> c  30 ns;
  //   n3 (device) b, c -> y  10 ns.
  Graph graph;
  const ValueId x = Input(graph, "x", 4);
  const ValueId w = Weight(graph, "model.layers.0.mlp.up_proj.weight", 100);
  const ValueId a = Work(graph, "n0", {x}, "a", 4, 10);
  const ValueId b = Work(graph, "n1", {a, w}, "b", 4, 20);
  const ValueId c = Work(graph, "n2", {x}, "c", 4, 30);
  MarkOutput(graph, Work(graph, "n3", {b, c}, "y", 4, 10));
  const HardwareProfile profile = HalfFlopHostProfile();
  const PlanOptions options = OneRun();
  const Problem problem = BuildProblem(graph, profile, options);
  std::vector<ComputeUnit> units(graph.nodes.size(), ComputeUnit::kDevice);
  units[1] = ComputeUnit::kHost;
  const PlanResult result = PlanOffload(PlaceUnits(problem, units), options);
  const Plan& plan = result.plan;
  // a's device block is dropped by a Detach that waits for the Store copying a to ddr (the
  // only step reading that block), not for n1, which reads the ddr copy.
  const std::vector<int32_t> stores = StepsOf(plan, StepKind::kStore, a);
  const std::vector<int32_t> detaches = StepsOf(plan, StepKind::kDetach, a);
  REQUIRE(stores.size() == 1);
  REQUIRE(detaches.size() == 1);
  CHECK(Waits(plan.steps[detaches[0]], stores[0]));
  CHECK_FALSE(Waits(plan.steps[detaches[0]], IndexOf(plan, ComputeOf(plan, 1))));
  // n0 [0, 10); Store a, 4 B at 1 B/ns, [10, 14); n1 on the host [14, 54): max(20 FLOP at
  // 0.5/ns = 40 ns, (4 + 100 + 4) B at 4 B/ns = 27 ns); the Detach at 14 and n2 [14, 44)
  // beside it; the Prefetch of b, 4 B, [54, 58); n3 [58, 68). With the Detach waiting for n1
  // (main before this), n2 ran [54, 84), the Prefetch of b sequenced after it [84, 88) and n3
  // [88, 98).
  CHECK(result.evaluation.timeline.makespan_ns == 68);
}

TEST_CASE("host parts: each layer's attention and MLP, costed on both units", "[planner][host]") {
  const TwoLayers model(20);
  const HardwareProfile profile = HalfFlopHostProfile();
  const std::vector<HostPart> parts = FindHostParts(BuildProblem(model.graph, profile, OneRun()));
  REQUIRE(parts.size() == 4);  // in step order: attention 0, MLP 0, attention 1, MLP 1
  CHECK(parts[0].name == "layer 0 attention");
  CHECK(parts[0].kind == HostPartKind::kAttention);
  CHECK(parts[0].nodes == std::vector<NodeId>{0});
  CHECK(parts[0].weight_bytes == 10);
  CHECK(parts[0].state_bytes == 0);  // a one-shot run has no KV cache to carry
  CHECK(parts[0].device_ns == 10);   // 10 FLOP at 1 FLOP/ns
  CHECK(parts[0].host_ns == 20);     // 10 FLOP at 0.5 FLOP/ns outlasts 18 B at 4 B/ns
  CHECK(parts[1].name == "layer 0 MLP");
  CHECK(parts[1].nodes == std::vector<NodeId>{1});
  CHECK(parts[1].weight_bytes == 100);
  CHECK(parts[1].device_ns == 20);  // 20 FLOP at 1 FLOP/ns
  CHECK(parts[1].host_ns == 40);    // 20 FLOP at 0.5 FLOP/ns outlasts 108 B at 4 B/ns
  CHECK(parts[2].name == "layer 1 attention");
  CHECK(parts[3].name == "layer 1 MLP");
}

TEST_CASE("decode moves an MLP to the host, prefill keeps it on the device", "[planner][host]") {
  // 150 B of device: both MLP weights (200 B) never fit together, each alone does.
  const HardwareProfile profile = HalfFlopHostProfile(150);
  const PlanOptions options = OneRun();
  SECTION("decode: a 20-FLOP MLP is read faster on the host than streamed") {
    const TwoLayers model(20);
    const PlanResult result = PlanAndVerify(model.graph, profile, options);
    // Layer 0's MLP on the host (the tie between the layers goes to the first), layer 1's on
    // the device with its weight resident: 10 + 4 + 40 + 4 + 10 + 20 = 88 ns, as above.
    CHECK(ComputeOf(result.plan, 1).unit == ComputeUnit::kHost);
    CHECK(ComputeOf(result.plan, 3).unit == ComputeUnit::kDevice);
    CHECK(result.evaluation.fits);
    CHECK(result.evaluation.timeline.makespan_ns == 88);
  }
  SECTION("prefill: a 2000-FLOP MLP computes on the device, its weight streamed behind") {
    const TwoLayers model(2000);
    const PlanResult result = PlanAndVerify(model.graph, profile, options);
    // On the host it would take 4000 ns (2000 FLOP at 0.5/ns); on the device 2000 ns, and
    // layer 1's 100 B weight (100 ns of link) streams in behind layer 0's 2000 ns MLP.
    for (const PlanStep& step : result.plan.steps) CHECK(step.unit == ComputeUnit::kDevice);
    CHECK(result.evaluation.timeline.makespan_ns < 10 + 4 + 4000 + 4 + 10 + 2000);
  }
}

TEST_CASE("reserved crossings: a weight's Prefetch ends before the host's output crosses",
          "[planner][host]") {
  // n0a () -> a0 (4 B, 10 ns, 200 B scratch)    on the device
  // n0m a0, w0 -> m0 (200 FLOP)                 on the host: 200 / 0.5 = 400 ns (outlasts
  //                                             (4 + 100 + 4) B at 4 B/ns = 27 ns)
  // n1a m0 -> a1 (10 ns)                        on the device, after m0 crosses back
  // n1m a1, w1 -> y (10 ns)                     on the device, w1 100 B
  // Stall-free axis T = [0, 10, 410, 420, 430]. Step 0 holds a0 4 + scratch 200 + w1 100 =
  // 304 B, so a 250 B target takes w1 off there and fetches it for step 3 (100 ns at 1 B/ns),
  // no earlier than step 1 (T = 10). m0's crossing Prefetch (4 B) runs on the same channel as
  // n0m ends: [410, 414).
  Graph graph;
  const ValueId w0 = Weight(graph, "model.layers.0.mlp.up_proj.weight", 100);
  const ValueId w1 = Weight(graph, "model.layers.1.mlp.up_proj.weight", 100);
  const ValueId a0 = Work(graph, "n0a", {}, "a0", 4, 10, 200);
  const ValueId m0 = Work(graph, "n0m", {a0, w0}, "m0", 4, 200);
  const ValueId a1 = Work(graph, "n1a", {m0}, "a1", 4, 10);
  MarkOutput(graph, Work(graph, "n1m", {a1, w1}, "y", 4, 10));
  const HardwareProfile profile = HalfFlopHostProfile();
  std::vector<ComputeUnit> units(graph.nodes.size(), ComputeUnit::kDevice);
  units[1] = ComputeUnit::kHost;
  const Problem placed = PlaceUnits(BuildProblem(graph, profile, OneRun()), units);
  planner::PlanContext context = planner::BuildContext(placed);
  REQUIRE(context.cost.step_start_ns == std::vector<int64_t>{0, 10, 410, 420, 430});
  planner::RefineRequest request;
  request.target_live_bytes = 250;
  for (const bool reserve : {false, true}) {
    INFO("crossings reserved: " << reserve);
    context.reserve_crossings = reserve;
    const planner::Selection selection = planner::Refine(context, request);
    CHECK(selection.reached_target);
    REQUIRE(selection.placements.size() == 1);
    const planner::Placement& placement = selection.placements[0];
    CHECK(context.candidates.candidates[placement.candidate].value == w1);
    REQUIRE(placement.prefetch_hops.size() == 1);
    // As late as still hides: ending as step 3 starts, [320, 420), across the crossing's
    // [410, 414); reserved, the latest 100 ns free before 420 ends as the crossing starts:
    // [310, 410).
    const planner::Slot& slot = placement.prefetch_hops[0].slot;
    CHECK(slot.start_ns == (reserve ? 310 : 320));
    CHECK(slot.end_ns == (reserve ? 410 : 420));
  }
}

TEST_CASE("interleaved host parts: every gap-th MLP stays on the device", "[planner][host]") {
  // Four layers, MLPs of 60 FLOP: 60 ns on the device, 60 / 0.5 = 120 ns on the host
  // (outlasting (4 + 100 + 4) B at 4 B/ns = 27 ns). Links move 1 B/ns from ddr to the device.
  const TwoLayers model(60, 4);
  const HardwareProfile profile = HalfFlopHostProfile();
  const Problem problem = BuildProblem(model.graph, profile, OneRun());
  std::vector<HostPart> parts = FindHostParts(problem);
  // Each layer's attention (one node over its 10 B weight, no KV cache) and its MLP: 8 parts.
  // The interleaving is over the search without attention parts (host_placement.h): the MLPs.
  REQUIRE(parts.size() == 8);
  std::erase_if(parts, [](const HostPart& part) { return part.kind != HostPartKind::kMlp; });
  REQUIRE(parts.size() == 4);
  // Per MLP on the host the link has 120 ns, less its layer's attention weight (10 B: 10 ns):
  // 110 ns to spare; a device MLP's weight needs 100 ns. Summed over the 4 parts: need 400,
  // spare 440: gap = 1 + ceil(400 / 440) = 2.
  CHECK(planner::InterleaveGap(problem, parts) == 2);
  // Gap 2: the 2nd and 4th MLPs move to the end: layers 0, 2, 1, 3.
  std::vector<int> layers;
  for (const HostPart& part : planner::Interleaved(parts, 2)) layers.push_back(part.layer);
  CHECK(layers == std::vector<int>{0, 2, 1, 3});
  // MLPs of 20 FLOP take 40 ns on the host: 30 ns to spare each, need 100: gap 1 + ceil(400 /
  // 120) = 5, more than the layers: the interleaved ranking keeps the order.
  const TwoLayers light(20, 4);
  const Problem light_problem = BuildProblem(light.graph, profile, OneRun());
  std::vector<HostPart> light_parts = FindHostParts(light_problem);
  std::erase_if(light_parts, [](const HostPart& part) { return part.kind != HostPartKind::kMlp; });
  CHECK(planner::InterleaveGap(light_problem, light_parts) == 5);
  layers.clear();
  for (const HostPart& part : planner::Interleaved(light_parts, 5)) layers.push_back(part.layer);
  CHECK(layers == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("balanced count: the host chain reaches the link time of what is still missing",
          "[planner][host]") {
  // Four layers, MLPs of 60 FLOP (as above): the device runs every node in 4 x (10 + 60) =
  // 280 ns; an MLP on the host adds 120 - 60 = 60 ns and frees its 100 B weight, 100 ns of
  // the 1 B/ns link from ddr.
  const TwoLayers model(60, 4);
  const HardwareProfile profile = HalfFlopHostProfile();
  const Problem problem = BuildProblem(model.graph, profile, OneRun());
  std::vector<HostPart> parts = FindHostParts(problem);
  std::erase_if(parts, [](const HostPart& part) { return part.kind != HostPartKind::kMlp; });
  REQUIRE(parts.size() == 4);
  REQUIRE(parts[0].device_ns == 60);
  REQUIRE(parts[0].host_ns == 120);
  REQUIRE(parts[0].device_bytes() == 100);
  int64_t device_ns = 0;
  for (NodeId node : problem.order) device_ns += problem.node_time_ns[node];
  REQUIRE(device_ns == 280);
  // 200 B missing: 280 ns of chain already reach 200 ns of link: no part.
  CHECK(planner::BalancedCount(problem, parts, 200) == 0);
  // 400 B: 280 < 400; one part: 340 >= 300.
  CHECK(planner::BalancedCount(problem, parts, 400) == 1);
  // 500 B: 280 < 500, 340 < 400; two parts: 400 >= 300.
  CHECK(planner::BalancedCount(problem, parts, 500) == 2);
  // 1000 B: 280 < 1000, 340 < 900, 400 < 800, 460 < 700, and four parts 520 < 600: the lanes
  // never balance, every part.
  CHECK(planner::BalancedCount(problem, parts, 1000) == 4);
}

TEST_CASE("host search: a placement two rankings share is planned once", "[planner][host]") {
  // Decode on 150 B of device (as above): the device's plan streams an MLP weight and stalls,
  // so the search runs. Without attention parts it tries layer 0's MLP (the first quarter of
  // the missing bytes already takes 1 part of 100 B). Ranked with the attention parts, the
  // MLPs lead (host time added per device byte: (40 - 20) / 100 = 0.2 ns/B against
  // (20 - 10) / 10 = 1 ns/B for an attention), so that search's 1-part prefix is the same
  // placement, and so is llama.cpp -ngl's order at fit's count (layer 0's MLP first): three
  // asks (three plans before the search remembered them), one plan. Planned again it would
  // give the same plan, which cannot beat the best so far.
  const TwoLayers model(20);
  const HardwareProfile profile = HalfFlopHostProfile(150);
  const PlanOptions options = OneRun();
  const Problem problem = BuildProblem(model.graph, profile, options);
  std::vector<std::pair<std::vector<ComputeUnit>, bool>> planned;
  const planner::PlanProblem plan = [&](const Problem& placed) {
    planned.emplace_back(placed.units.node_unit, placed.reserve_crossings);
    return PlanOffload(placed, options);  // a placed problem plans its placement alone
  };
  PlanOptions device_only = options;
  device_only.host_compute = false;
  PlanResult device = PlanOffload(problem, device_only);
  REQUIRE(device.evaluation.timeline.stall_ns > 0);
  const PlanResult best =
      planner::PlaceOnHostWhereFaster(problem, options, std::move(device), plan);
  const std::vector<ComputeUnit> mlp0_on_host = {ComputeUnit::kDevice, ComputeUnit::kHost,
                                                 ComputeUnit::kDevice, ComputeUnit::kDevice};
  CHECK(std::count(planned.begin(), planned.end(), std::pair(mlp0_on_host, false)) == 1);
  std::vector<std::pair<std::vector<ComputeUnit>, bool>> sorted = planned;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  // The search's result as PlanOffload's above: 10 + 4 + 40 + 4 + 10 + 20 = 88 ns.
  CHECK(best.evaluation.timeline.makespan_ns == 88);
}

TEST_CASE("host search: interleaved counts halved from the lanes' balance", "[planner][host]") {
  // Eight layers, MLPs of 60 FLOP (as above): gap 2 (per MLP need 100 ns, spare 110 ns), so
  // the interleaved ranking of the MLPs is layers 0, 2, 4, 6, 1, 3, 5, 7. A stand-in planner
  // scores a placement by how many MLPs run on the host, n: a contiguous prefix 1000 - 10 n
  // ns (the more the better), an interleaved one (crossings reserved) 500 + 20 |n - 3| ns.
  const TwoLayers model(60, 8);
  const HardwareProfile profile = HalfFlopHostProfile();
  PlanOptions options = OneRun();
  const Problem problem = BuildProblem(model.graph, profile, options);
  // The device lacks 800 B: the quarters of it (host_placement.cc kQuartersTried 4, 2, 1, 3,
  // 5) cover 8, 4, 2, 6 and 8 MLPs of 100 B; the halvings add 7; the best prefix is all 8.
  options.budget_bytes = problem.lifetimes.timeline.peak_bytes - 800;
  std::vector<int> interleaved_counts;
  const planner::PlanProblem plan = [&](const Problem& placed) {
    int on_host = 0;
    for (ValueId weight : model.mlp_weight) {
      const NodeId reader = model.graph.values[weight].consumers.front();
      on_host += placed.units.node_unit[reader] == ComputeUnit::kHost ? 1 : 0;
    }
    PlanResult result;
    result.evaluation.fits = true;
    result.evaluation.timeline.makespan_ns =
        placed.reserve_crossings ? 500 + 20 * std::abs(on_host - 3) : 1000 - 10 * on_host;
    if (placed.reserve_crossings) interleaved_counts.push_back(on_host);
    return result;
  };
  PlanResult device;
  device.evaluation.fits = false;  // the search runs
  const PlanResult best =
      planner::PlaceOnHostWhereFaster(problem, options, std::move(device), plan);
  // Interleaved: the best prefix less 2 and 3 (6: 560 ns, 5: 540 ns). The balance
  // (BalancedCount): 8 x (10 + 60) = 560 ns of chain against 800 ns of link; one MLP 620
  // against 700, two 680 against 600: 2. Round one, its neighbours taken at its start (2 and
  // 6): (2 + 5) / 2 = 3 (500 ns, now the best), then (3 + 6) / 2 = 4 (520 ns). Round two:
  // nothing tried below 3, so (2 + 3) / 2 = 2 (520 ns); (3 + 4) / 2 = 3, tried. No later
  // search beats 500 ns (their contiguous prefixes score 920 ns or more), so none interleaves.
  CHECK(interleaved_counts == std::vector<int>{6, 5, 3, 4, 2});
  CHECK(best.evaluation.timeline.makespan_ns == 500);
}
