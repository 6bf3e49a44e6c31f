// Host parts that update persistent state in place (docs/design.md "Compute units"): a layer's
// optimizer update (ZeRO-Offload's CPU Adam) and a layer's attention appending to its KV cache
// (llama.cpp's CPU layer, FlexGen's CPU attention), found as parts, planned as loops and
// verified. Unit rates (planner_support.h): the device computes 1 FLOP/ns with unbounded
// memory bandwidth, its links move 1 byte/ns each way; the host unit reads ddr at 4 B/ns and
// computes 0.5 FLOP/ns. A Work node counts one FLOP per output element of the model (a loop's
// FLOPs are the model's: cost.h EstimateLoopCosts, host_cost.h EstimateHostLoopNodeCost); its
// bytes are the loop graph's, where an in-place writer touches the input as read plus the
// bytes its update writes (node_bytes.cc). Every number is worked out beside its assertion.
#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "forward_backward.h"
#include "hyperplan/loop.h"
#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/problem.h"
#include "planner/host_placement.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// One layer's training step, reduced: forward n0 (x, W) -> a (4 B, 10 FLOP), backward n1
// a -> g (W's gradient, 100 B, 100 FLOP), then Adam: n2 (g, M) -> M.updated (the moment, in
// place), n3 (W, M.updated) -> W.updated (the weight, in place). W: the layer's MLP weight,
// 100 B; M: its optimizer state, 100 B. The loop's conventions alias X.updated[.exp_avg] to
// X[.exp_avg].
struct TrainStep {
  Graph graph;
  ValueId x, w, m, a, g;
  TrainStep() {
    const std::string name = "model.layers.0.mlp.w";
    x = Input(graph, "x", 4);
    w = Weight(graph, name, 100);
    m = Input(graph, name + ".exp_avg", 100);
    graph.values[m].value_class = ValueClass::kOptimizerState;
    a = Work(graph, "n0", {x, w}, "a", 4, 10);
    g = Work(graph, "n1", {a}, name + ".grad", 100, 100);
    const ValueId m_updated = Work(graph, "n2", {g, m}, name + ".updated.exp_avg", 100, 100);
    const ValueId w_updated = Work(graph, "n3", {w, m_updated}, name + ".updated", 100, 100);
    MarkOutput(graph, m_updated);
    MarkOutput(graph, w_updated);
  }
};

// One decode layer: n0 (x, Wq) -> q (4 B, 10 FLOP); n1 (q, past) -> o (4 B), present (44 B),
// 10 FLOP each; n2 (o, Wo) -> y (4 B, 10 FLOP); n3 on the device, y -> z (4 B, 10 FLOP). The
// cache "past_key_values.0.key" (40 B) grows by 4 B into "present.0.key" (the optimum kv
// convention), so on the loop graph n1 appends 4 B in place to a 44 B buffer.
struct DecodeLayer {
  Graph graph;
  ValueId x, past, q, o, y;
  DecodeLayer() {
    x = Input(graph, "x", 4);
    past = Input(graph, "past_key_values.0.key", 40);
    graph.values[past].value_class = ValueClass::kKvCache;
    q = Work(graph, "n0", {x, Weight(graph, "model.layers.0.self_attn.q_proj.weight", 10)}, "q", 4,
             10);
    const std::vector<ValueId> outs =
        WorkN(graph, "n1", {q, past}, {{"o", 4}, {"present.0.key", 44}}, 20);
    o = outs[0];
    y = Work(graph, "n2", {o, Weight(graph, "model.layers.0.self_attn.o_proj.weight", 10)}, "y", 4,
             10);
    MarkOutput(graph, outs[1]);
    MarkOutput(graph, Work(graph, "n3", {y}, "z", 4, 10));
  }
};

const PlanStep& ComputeOf(const Plan& plan, NodeId node) {
  for (const PlanStep& step : plan.steps) {
    if (step.kind == StepKind::kCompute && step.node == node) return step;
  }
  FAIL("no compute step for node " << node);
  return plan.steps.front();
}

// A loop whose aliases the conventions find (loop.h), as the CLI plans it.
PlanOptions LoopOf(const Graph& model) {
  PlanOptions options;
  options.aliases = FindAliases(model, {});
  return options;
}

bool Waits(const PlanStep& step, int32_t index) {
  return std::find(step.waits_for.begin(), step.waits_for.end(), index) != step.waits_for.end();
}

// Plans `problem` and verifies the plan against the model, as the CLI does.
PlanResult PlanVerified(const Graph& model, const HardwareProfile& profile,
                        const Problem& problem) {
  PlanResult result = PlanOffload(problem, LoopOf(model));
  const VerifyResult verdict = VerifyPlan(model, profile, result.plan, result.evaluation);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  return result;
}

const HostPart* FindPart(const std::vector<HostPart>& parts, HostPartKind kind) {
  for (const HostPart& part : parts) {
    if (part.kind == kind) return &part;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("host update: a layer's optimizer update is a part, its moments the bytes it frees",
          "[planner][host]") {
  const TrainStep model;
  const HardwareProfile profile = HalfFlopHostProfile();
  const Problem problem = BuildProblem(model.graph, profile, LoopOf(model.graph));
  const std::vector<HostPart> parts = FindHostParts(problem);
  // The forward n0 reads W, which the update writes: no MLP part (its weight is not
  // read-only); the backward n1 computes the gradient from a (4 B) and stays out of the update.
  REQUIRE(parts.size() == 1);
  const HostPart& update = parts[0];
  CHECK(update.kind == HostPartKind::kOptimizer);
  CHECK(update.name == "layer 0 optimizer");
  CHECK(update.nodes == std::vector<NodeId>{2, 3});
  CHECK(update.weight_bytes == 0);   // W is updated, not read-only
  CHECK(update.state_bytes == 100);  // M
  // Device: n2 and n3 100 FLOP each (their model outputs' elements) at 1 FLOP/ns.
  CHECK(update.device_ns == 200);
  // Host: n2 100 FLOP at 0.5 FLOP/ns = 200 ns, over its bytes (g 100 B, M read 100 B and
  // rewritten 100 B: 300 B at 4 B/ns = 75 ns); n3 the same (W and M read, W rewritten).
  CHECK(update.host_ns == 400);
}

TEST_CASE("host update: the optimizer on the host, the gradient Stored, the weight fetched back",
          "[planner][host]") {
  const TrainStep model;
  const HardwareProfile profile = HalfFlopHostProfile();
  const Problem problem = BuildProblem(model.graph, profile, LoopOf(model.graph));
  const std::vector<HostPart> parts = FindHostParts(problem);
  const PlanResult result =
      PlanVerified(model.graph, profile, PlaceUnits(problem, NodeUnitsOf(*problem.graph, parts)));
  const Plan& plan = result.plan;
  CHECK(plan.periodic);
  CHECK(ComputeOf(plan, 2).unit == ComputeUnit::kHost);
  CHECK(ComputeOf(plan, 3).unit == ComputeUnit::kHost);
  // W comes to the device by one Prefetch at the iteration's start, from its home copy on ddr
  // (last iteration's update); the forward waits for it, and so does the update (it overwrites
  // the copy that Prefetch reads).
  const std::vector<int32_t> fetches = StepsOf(plan, StepKind::kPrefetch, model.w);
  REQUIRE(fetches.size() == 1);
  CHECK(plan.steps[fetches[0]].boundary == 0);
  CHECK(plan.steps[fetches[0]].src_tier == 1);
  CHECK(Waits(ComputeOf(plan, 0), fetches[0]));
  CHECK(Waits(ComputeOf(plan, 3), fetches[0]));
  // Nothing writes W or M back: no Store of either; M never reaches the device.
  CHECK(StepsOf(plan, StepKind::kStore, model.w).empty());
  CHECK(StepsOf(plan, StepKind::kStore, model.m).empty());
  CHECK(StepsOf(plan, StepKind::kPrefetch, model.m).empty());
  for (const ResidentInterval& interval : plan.residency) {
    CHECK(interval.value != model.m);
    if (interval.value == model.w) {  // from the Prefetch to the forward, its last device read
      CHECK(interval.opened_by == fetches[0]);
      CHECK(interval.last_step == 0);
    }
  }
  // The gradient (100 B) crosses to the host once, before n2, which waits for it.
  const std::vector<int32_t> stores = StepsOf(plan, StepKind::kStore, model.g);
  REQUIRE(stores.size() == 1);
  CHECK(Waits(ComputeOf(plan, 2), stores[0]));
  // Time: Prefetch W 100 B at 1 B/ns [0, 100]; n0 10 ns [100, 110]; n1 100 ns [110, 210];
  // Store g 100 B [210, 310]; n2 on the host 200 ns [310, 510]; n3 200 ns [510, 710].
  const SimulationResult& replay = result.evaluation.timeline;
  CHECK(replay.makespan_ns == 710);
  CHECK(replay.host_compute_ns == 400);
  CHECK(replay.total_bytes_moved() == 200);  // W down, g up
}

TEST_CASE("host update: a layer's attention with its KV cache, whole or its core",
          "[planner][host]") {
  const DecodeLayer model;
  const HardwareProfile profile = HalfFlopHostProfile();
  const Problem problem = BuildProblem(model.graph, profile, LoopOf(model.graph));
  SECTION("attention: projections, the append and the scores") {
    const std::vector<HostPart> parts = FindHostParts(problem);
    const HostPart* attention = FindPart(parts, HostPartKind::kAttention);
    REQUIRE(attention != nullptr);
    CHECK(attention->name == "layer 0 attention");
    CHECK(attention->nodes == std::vector<NodeId>{0, 1, 2});
    CHECK(attention->weight_bytes == 20);  // Wq, Wo
    CHECK(attention->state_bytes == 44);   // the cache's buffer, grown by the append
    // Host: n0 10 FLOP at 0.5/ns = 20 ns (18 B at 4 B/ns is 5 ns); n1 20 FLOP (o and present
    // on the model) = 40 ns (q 4 + the cache as read 40 + the 4 B appended + o 4 = 52 B:
    // 13 ns); n2 20 ns.
    CHECK(attention->host_ns == 80);
    CHECK(FindPart(parts, HostPartKind::kAttentionCore) == nullptr);
  }
  SECTION("attention core: the append and the scores alone (FlexGen)") {
    HostPartOptions options;
    options.attention_cores = true;
    const std::vector<HostPart> parts = FindHostParts(problem, options);
    CHECK(FindPart(parts, HostPartKind::kAttention) == nullptr);
    const HostPart* core = FindPart(parts, HostPartKind::kAttentionCore);
    REQUIRE(core != nullptr);
    CHECK(core->name == "layer 0 attention core");
    CHECK(core->nodes == std::vector<NodeId>{1});
    CHECK(core->weight_bytes == 0);
    CHECK(core->state_bytes == 44);
    CHECK(core->host_ns == 40);
  }
}

TEST_CASE("host update: the host appends K/V in place, the cache never crosses",
          "[planner][host]") {
  const DecodeLayer model;
  const HardwareProfile profile = HalfFlopHostProfile();
  const Problem problem = BuildProblem(model.graph, profile, LoopOf(model.graph));
  SECTION("the whole attention on the host") {
    std::vector<HostPart> parts = FindHostParts(problem);
    std::erase_if(parts, [](const HostPart& p) { return p.kind != HostPartKind::kAttention; });
    const PlanResult result =
        PlanVerified(model.graph, profile, PlaceUnits(problem, NodeUnitsOf(model.graph, parts)));
    const Plan& plan = result.plan;
    for (const PlanStep& step : plan.steps) CHECK(step.value != model.past);
    for (const ResidentInterval& interval : plan.residency) CHECK(interval.value != model.past);
    // Store x 4 B [0, 4]; n0 20 ns [4, 24]; n1 40 ns [24, 64]; n2 20 ns [64, 84]; Prefetch y
    // 4 B [84, 88]; n3 on the device 10 ns [88, 98].
    CHECK(result.evaluation.timeline.makespan_ns == 98);
    CHECK(result.evaluation.timeline.total_bytes_moved() == 8);
  }
  SECTION("the core on the host, the projections on the device") {
    HostPartOptions options;
    options.attention_cores = true;
    std::vector<HostPart> parts = FindHostParts(problem, options);
    std::erase_if(parts, [](const HostPart& p) { return p.kind != HostPartKind::kAttentionCore; });
    const PlanResult result =
        PlanVerified(model.graph, profile, PlaceUnits(problem, NodeUnitsOf(model.graph, parts)));
    for (const PlanStep& step : result.plan.steps) CHECK(step.value != model.past);
    // n0 10 ns [0, 10]; Store q 4 B [10, 14]; n1 on the host 40 ns [14, 54]; Prefetch o 4 B
    // [54, 58]; n2 10 ns [58, 68]; n3 10 ns [68, 78].
    CHECK(result.evaluation.timeline.makespan_ns == 78);
    CHECK(result.evaluation.timeline.total_bytes_moved() == 8);
  }
}

TEST_CASE("host update: a weight the host updates is streamed, dropped between its device reads",
          "[planner][host]") {
  const ForwardBackward model;
  const HardwareProfile profile = HalfFlopHostProfile();
  const Problem problem = BuildProblem(model.graph, profile, LoopOf(model.graph));
  const std::vector<HostPart> parts = FindHostParts(problem);
  REQUIRE(parts.size() == 1);
  REQUIRE(parts[0].nodes == std::vector<NodeId>{6, 7});
  const Problem placed = PlaceUnits(problem, NodeUnitsOf(model.graph, parts));
  // Device steps 0-5 (n0-n5) with W resident from its first read to its last: step 0 W 100 +
  // a 4 = 104; step 1 W 100 + a 4 + h 200 = 304; step 2 W 100 + h 200 + d 4 = 304; step 3
  // W 100 + d 4 + e 4 = 108; step 4 W 100 + e 4 + g 100 = 204; step 5 W 100 + e 4 + dx 4 + g
  // 100 = 208 (g's device copy is Detached after n6, its host read: docs/design.md "Placement
  // in the planner"). Time with nothing cut: fetch W 100 B at 1 B/ns [0, 100]; n0 [100, 110]; n1-n5
  // 100 ns each [110, 610]; Store g 100 B after n4 [510, 610]; n6 and n7 on the host, 200 ns each
  // (100 FLOP at 0.5 FLOP/ns) [610, 1010].
  auto check = [&](const PlanResult& result, size_t fetch_count, int64_t peak_bytes) {
    const Plan& plan = result.plan;
    const std::vector<int32_t> fetches = StepsOf(plan, StepKind::kPrefetch, model.w);
    REQUIRE(fetches.size() == fetch_count);
    for (int32_t fetch : fetches) {
      CHECK(plan.steps[fetch].src_tier == 1);   // from its home copy on ddr
      CHECK(Waits(ComputeOf(plan, 7), fetch));  // before the update overwrites it
    }
    CHECK(StepsOf(plan, StepKind::kStore, model.w).empty());  // the home copy is current
    CHECK(StepsOf(plan, StepKind::kDetach, model.w).size() == fetch_count);
    CHECK(plan.layout.live_peak_bytes == peak_bytes);
    CHECK(result.evaluation.timeline.makespan_ns == 1010);
  };
  SECTION("room for it all: fetched once, before the forward, dropped after the backward") {
    check(PlanVerified(model.graph, profile, placed), 1, 304);
  }
  SECTION("250 B: dropped after the forward, fetched again for the backward") {
    PlanOptions options = LoopOf(model.graph);
    options.budget_bytes = 250;
    const PlanResult result = PlanOffload(placed, options);
    const VerifyResult verdict = VerifyPlan(model.graph, profile, result.plan, result.evaluation);
    INFO(verdict.message);
    REQUIRE(verdict.ok);
    // Away over steps 1-3: step 1 a 4 + h 200 = 204, step 2 h 200 + d 4 = 204, step 3 d 4 + e
    // 4 = 8; fetched again on the compute-only axis in the latest slot that hides before n5
    // ([310, 410]: boundary 4), so step 4 = 204 and step 5 = 208, the peak. The re-fetch runs
    // beside n4 (issued after n3 ends at 410: [410, 510]): the same 1010 ns.
    check(result, 2, 208);
    SECTION("the update not waiting for the re-fetch: the verifier rejects the race") {
      Plan plan = result.plan;
      const int32_t refetch = StepsOf(plan, StepKind::kPrefetch, model.w)[1];
      int32_t update = -1;
      for (size_t i = 0; i < plan.steps.size(); ++i) {
        if (plan.steps[i].kind == StepKind::kCompute && plan.steps[i].node == 7) {
          update = static_cast<int32_t>(i);
        }
      }
      REQUIRE(update >= 0);
      std::erase(plan.steps[update].waits_for, refetch);
      // n7 follows n6 on the host lane, n6 the Store of g and that Store n4, which precedes
      // n5, the re-fetch's reader, on the compute stream: nothing n7 waits for waits for the
      // re-fetch, which may then read W's home copy while n7 writes it.
      const EvaluatedPlan broken = FinishPlan(*placed.graph, profile, LayoutOptions{},
                                              NoOffloadReference{}, std::move(plan));
      const VerifyResult rejected =
          VerifyPlan(model.graph, profile, broken.plan, broken.evaluation);
      CHECK_FALSE(rejected.ok);
      CHECK_THAT(rejected.message,
                 Catch::Contains("updates 'model.layers.0.mlp.w' in place while"));
    }
  }
}

// The plan a stand-in planner gives: every placement fits; `on_host` (the attention core
// alone on the host) runs `core_ns` without stall, any other 200 ns with 150 ns of stall.
PlanResult StandInPlan(const Problem& placed, const std::vector<ComputeUnit>& on_host,
                       int64_t core_ns) {
  const bool core = placed.units.node_unit == on_host;
  PlanResult result;
  result.evaluation.fits = true;
  result.evaluation.timeline.makespan_ns = core ? core_ns : 200;
  result.evaluation.timeline.stall_ns = core ? 0 : 150;
  return result;
}

TEST_CASE("host search: every attention core on the host (FlexGen), tried whole",
          "[planner][host]") {
  // The search's rankings hold a layer's whole attention (n0-n2), never its core alone (n1):
  // FlexGen's placement is tried after them, once. A stand-in planner scores a placement by
  // what it puts on the host: the core alone `core_ns`, anything else 200 ns with 150 ns of
  // stall (so moving the core could pay: it adds 40 - 20 = 20 ns on the host, the cheapest
  // part, below the stall), every plan fitting. The device's plan does not fit, so the search
  // runs; the budget leaves the device 40 B short of its no-offload peak.
  const DecodeLayer model;
  const HardwareProfile profile = HalfFlopHostProfile();
  PlanOptions options = LoopOf(model.graph);
  const Problem problem = BuildProblem(model.graph, profile, options);
  options.budget_bytes = problem.lifetimes.timeline.peak_bytes - 40;
  const std::vector<ComputeUnit> core_on_host = {ComputeUnit::kDevice, ComputeUnit::kHost,
                                                 ComputeUnit::kDevice, ComputeUnit::kDevice};
  auto search = [&](int64_t core_ns, std::vector<std::vector<ComputeUnit>>& asked) {
    const planner::PlanProblem plan = [&](const Problem& placed) {
      asked.push_back(placed.units.node_unit);
      return StandInPlan(placed, core_on_host, core_ns);
    };
    PlanResult device;
    device.evaluation.fits = false;
    return planner::PlaceOnHostWhereFaster(problem, options, std::move(device), plan);
  };
  SECTION("faster: it wins") {
    std::vector<std::vector<ComputeUnit>> asked;
    const PlanResult best = search(100, asked);
    CHECK(std::count(asked.begin(), asked.end(), core_on_host) == 1);
    CHECK(asked.back() == core_on_host);  // after every ranked placement
    CHECK(best.evaluation.timeline.makespan_ns == 100);
  }
  SECTION("as fast: the plan found before it is kept") {
    std::vector<std::vector<ComputeUnit>> asked;
    const PlanResult best = search(200, asked);
    CHECK(asked.back() == core_on_host);
    CHECK(best.evaluation.timeline.stall_ns == 150);  // a ranked placement's plan, not the core's
  }
}

TEST_CASE("host search: the attention cores are tried where no ranked part may run on the host",
          "[planner][host]") {
  // The DeepSeek-V3-sized decode on gh200, reduced: the weights home on nvme (behind ddr), so
  // the layer's whole attention (it reads Wq and Wo) may not run on the host and no ranked
  // part is eligible, while the KV cache homes in ddr (the offload tier: its round trip is the
  // cheapest), so the core alone may. The stand-in planner above: the core's placement 100 ns.
  const DecodeLayer model;
  HardwareProfile profile = HalfFlopHostProfile();
  profile.tiers.push_back({"nvme", int64_t{1} << 42, false});
  profile.links.push_back({1, 2, kOneBytePerNs, 0, 1});
  profile.links.push_back({2, 1, kOneBytePerNs, 0, 1});
  profile.weight_home_tier = 2;
  PlanOptions options = LoopOf(model.graph);
  const Problem problem = BuildProblem(model.graph, profile, options);
  REQUIRE(FindHostParts(problem).empty());
  options.budget_bytes = problem.lifetimes.timeline.peak_bytes - 40;
  const std::vector<ComputeUnit> core_on_host = {ComputeUnit::kDevice, ComputeUnit::kHost,
                                                 ComputeUnit::kDevice, ComputeUnit::kDevice};
  std::vector<std::vector<ComputeUnit>> asked;
  const planner::PlanProblem plan = [&](const Problem& placed) {
    asked.push_back(placed.units.node_unit);
    return StandInPlan(placed, core_on_host, 100);
  };
  PlanResult device;
  device.evaluation.fits = false;
  const PlanResult best =
      planner::PlaceOnHostWhereFaster(problem, options, std::move(device), plan);
  CHECK(asked == std::vector<std::vector<ComputeUnit>>{core_on_host});
  CHECK(best.evaluation.timeline.makespan_ns == 100);
}
