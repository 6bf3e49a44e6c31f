// Which parts of a model a plan runs on the host: parts named by the weights host steps read,
// runs of layers, the LM head and the embedding, each unit's times, and the residency line of
// the plan summary with host parts. Plans are written by hand (only the compute steps and
// their units matter), so each expected line follows from the steps listed beside it.
#include "hyperplan/plan/host_placement.h"

#include <catch2/catch.hpp>

#include "hyperplan/plan/layer_summary.h"
#include "hyperplan/plan/summary.h"
#include "hyperplan/units.h"
#include "support/tiny_graph.h"

using namespace hyperplan;
using namespace hyperplan::testing;

namespace {

// embed (Gather of embed_tokens), then per layer: q (MatMul of self_attn.q_proj), gate (MatMul
// of mlp.gate_proj), act (Silu, no weight); then head (MatMul of lm_head). Node ids: embed 0,
// layer i's q 1 + 3i, gate 2 + 3i, act 3 + 3i, head 1 + 3 x layers.
Graph Decoder(int layers) {
  Graph g;
  g.name = "decoder";
  const ValueId ids = Input(g, "input_ids", 8);
  ValueId h = Bytes(g, "h", 16);
  Op(g, "embed", "Gather", {Weight(g, "model.embed_tokens.weight", 1000), ids}, {h});
  for (int i = 0; i < layers; ++i) {
    const std::string layer = "model.layers." + std::to_string(i);
    const ValueId a = Bytes(g, "a" + std::to_string(i), 16);
    const ValueId m = Bytes(g, "m" + std::to_string(i), 16);
    const ValueId out = Bytes(g, "o" + std::to_string(i), 16);
    Op(g, "q" + std::to_string(i), "MatMul",
       {h, Weight(g, layer + ".self_attn.q_proj.weight", 100)}, {a});
    Op(g, "gate" + std::to_string(i), "MatMul",
       {a, Weight(g, layer + ".mlp.gate_proj.weight", 100)}, {m});
    Op(g, "act" + std::to_string(i), "Silu", {m}, {out});
    h = out;
  }
  const ValueId logits = Bytes(g, "logits", 16);
  Op(g, "head", "MatMul", {h, Weight(g, "lm_head.weight", 500)}, {logits});
  MarkOutput(g, logits);
  return g;
}

// Every node in model order, on the device unless listed in `host`.
Plan Placed(const Graph& graph, const std::vector<NodeId>& host) {
  Plan plan;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const auto node = static_cast<NodeId>(n);
    plan.order.push_back(node);
    PlanStep step;
    step.node = node;
    step.boundary = node;
    if (std::find(host.begin(), host.end(), node) != host.end()) step.unit = ComputeUnit::kHost;
    plan.steps.push_back(step);
  }
  return plan;
}

NodeId Gate(int layer) { return 2 + 3 * layer; }
NodeId Act(int layer) { return 3 + 3 * layer; }
NodeId Q(int layer) { return 1 + 3 * layer; }

}  // namespace

TEST_CASE("host placement: layers' MLPs and the LM head, named by the weights they read") {
  const Graph graph = Decoder(4);
  const NodeId head = 1 + 3 * 4;
  // Layers 0-2: gate and act on the host (act reads no weight: it names no part); the head.
  const Plan plan = Placed(graph, {Gate(0), Act(0), Gate(1), Act(1), Gate(2), Act(2), head});
  const HostPlacement placement = FindHostPlacement(graph, plan);
  CHECK(placement.host_nodes == 7);  // 3 layers x (gate, act) + head
  CHECK(placement.layer_parts ==
        std::map<int, uint8_t>{{0, kHostMlp}, {1, kHostMlp}, {2, kHostMlp}});
  CHECK(placement.lm_head);
  CHECK_FALSE(placement.embedding);
  CHECK(placement.other_weights.empty());
  CHECK(DescribeHostPlacement(placement) == "layers 0-2 MLP, LM head on the host");
  // The summary line: each layer's device weights (q_proj) stay resident, so do embed_tokens;
  // the gate weights and lm_head, read only on the host, are the host's part, not "resident".
  CHECK(DescribeLayerResidency(graph, UnitProfile(), plan) ==
        "layers 0-3 resident; embed_tokens resident; layers 0-2 MLP, LM head on the host");
}

TEST_CASE("host placement: mixed parts break the runs; the embedding is the Gather's") {
  const Graph graph = Decoder(3);
  // Layer 0 MLP, layer 1 MLP and attention, layer 2 MLP; the embedding lookup.
  const Plan plan = Placed(graph, {0, Gate(0), Q(1), Gate(1), Gate(2)});
  const HostPlacement placement = FindHostPlacement(graph, plan);
  CHECK(placement.embedding);
  CHECK_FALSE(placement.lm_head);
  CHECK(HostLayerPartNames(placement.layer_parts.at(1)) == "MLP and attention");
  CHECK(DescribeHostPlacement(placement) ==
        "layers 0 MLP, 1 MLP and attention, 2 MLP, embedding on the host");
  // Layer 1 has no weight left on the device: its state is the host's.
  CHECK(DescribeLayerResidency(graph, UnitProfile(), plan) ==
        "layers 0 resident, 1 on the host, 2 resident; lm_head resident; layers 0 MLP, 1 MLP and "
        "attention, 2 MLP, embedding on the host");
}

TEST_CASE("host placement: none on the host says nothing; weightless host steps are counted") {
  const Graph graph = Decoder(2);
  CHECK(DescribeHostPlacement(FindHostPlacement(graph, Placed(graph, {}))).empty());
  CHECK(DescribeLayerResidency(graph, UnitProfile(), Placed(graph, {})) ==
        "layers 0-1 resident; embed_tokens and lm_head resident");
  // Two Silu nodes on the host read no weight: no part, only the count.
  CHECK(DescribeHostPlacement(FindHostPlacement(graph, Placed(graph, {Act(0), Act(1)}))) ==
        "2 nodes on the host");
}

TEST_CASE("host placement: past 8 runs, layers are counted per parts") {
  const Graph graph = Decoder(20);
  // Even layers MLP, odd layers attention: 20 runs of one layer each.
  std::vector<NodeId> host;
  for (int i = 0; i < 20; ++i) host.push_back(i % 2 == 0 ? Gate(i) : Q(i));
  CHECK(DescribeHostPlacement(FindHostPlacement(graph, Placed(graph, host))) ==
        "20 layers: 10 MLP, 10 attention on the host");
}

TEST_CASE("host placement: each unit's node times and stalls") {
  const Graph graph = Decoder(1);  // embed 0, q 1, gate 2, act 3, head 4
  Plan plan = Placed(graph, {Gate(0), Act(0)});
  plan.node_time_ns = {10, 20, 300, 40, 50};
  SimulationResult timeline;
  timeline.stall_ns_per_node = {0, 5, 7, 0, 11};
  const std::array<UnitTimes, 2> units = TimesPerUnit(plan, timeline);
  CHECK(units[0].nodes == 3);         // embed, q, head
  CHECK(units[0].compute_ns == 80);   // 10 + 20 + 50
  CHECK(units[0].stall_ns == 16);     // 0 + 5 + 11
  CHECK(units[1].nodes == 2);         // gate, act
  CHECK(units[1].compute_ns == 340);  // 300 + 40
  CHECK(units[1].stall_ns == 7);      // 7 + 0
}

TEST_CASE("host placement: the plan summary's compute units line") {
  const Graph graph = Decoder(1);  // embed 0, q 1, gate 2, act 3, head 4
  Plan plan = Placed(graph, {Gate(0), Act(0)});
  plan.node_time_ns = {10, 20, 300, 40, 50};
  plan.steps[2].waits_for = {1};  // gate waits for q
  plan.steps[4].waits_for = {3};  // head waits for act
  HardwareProfile profile = UnitProfile();
  profile.host_compute.sockets = 1;
  profile.host_compute.memory_tier = 1;
  const PlanEvaluation evaluation = EvaluatePlan(graph, profile, plan, NoOffloadReference{});
  // Device: embed 0..10, q 10..30; host: gate waits for q, 30..330, act 330..370; head waits
  // for act, 370..420. A stall is a compute step's wait after every earlier compute step (of
  // either unit) has ended: none here, since each step waits only for compute.
  CHECK(evaluation.timeline.makespan_ns == 420);
  const std::string text = FormatPlanSummary(graph, profile, plan, evaluation);
  CHECK_THAT(text, Catch::Contains("  compute units: device " + FormatDuration(80) + " (stall " +
                                   FormatDuration(0) + "), host " + FormatDuration(340) +
                                   " in 2 nodes (stall " + FormatDuration(0) + ")\n"));
  CHECK_THAT(text, Catch::Contains("layer 0 MLP on the host"));
  // All on the device: no such line.
  Plan device = Placed(graph, {});
  device.node_time_ns = plan.node_time_ns;
  CHECK_THAT(FormatPlanSummary(graph, profile, device,
                               EvaluatePlan(graph, profile, device, NoOffloadReference{})),
             !Catch::Contains("compute units"));
}
