// The residency line of the plan summary: layers by name, in runs; other weights by name; the
// KV cache; the fallback without layer names. Plans are written by hand (only the order, the
// Prefetch steps and the copies at the start matter here), so each expected line follows
// from the steps listed beside it.
#include "hyperplan/plan/layer_summary.h"

#include <catch2/catch.hpp>

#include "hyperplan/layers.h"
#include "planner/planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// One node per weight, in the order given, each reading its weight.
Graph Reading(const std::vector<std::pair<std::string, int64_t>>& weights) {
  Graph graph;
  graph.name = "layers";
  for (size_t i = 0; i < weights.size(); ++i) {
    const ValueId weight = Weight(graph, weights[i].first, weights[i].second);
    Work(graph, Named("n", static_cast<int>(i)), {weight}, Named("y", static_cast<int>(i)), 1, 1);
  }
  return graph;
}

Plan InModelOrder(const Graph& graph) {
  Plan plan;
  plan.order = ModelOrder(graph);
  return plan;
}

// `value` brought to the device (tier 0) from `from`, with its copy there from the start.
void Stream(Plan& plan, ValueId value, TierId from, TierId home) {
  PlanStep step;
  step.kind = StepKind::kPrefetch;
  step.value = value;
  step.src_tier = from;
  step.dst_tier = 0;
  plan.steps.push_back(step);
  TierCopy copy;
  copy.value = value;
  copy.tier = home;
  copy.opened_by = -1;
  plan.tier_copies.push_back(copy);
}

}  // namespace

TEST_CASE("layer summary: runs of layers, then the other weights") {
  const Graph graph = Reading({{"model.layers.0.mlp.weight", 100},
                               {"model.layers.1.mlp.weight", 100},
                               {"model.layers.2.mlp.weight", 100},
                               {"model.layers.3.mlp.weight", 100},
                               {"model.embed_tokens.weight", 300},
                               {"lm_head.weight", 200},
                               {"model.norm.weight", 4}});
  const HardwareProfile profile = UnitProfile();  // tier 0 hbm (device), tier 1 ddr
  Plan plan = InModelOrder(graph);
  // Layers 2 and 3 and the LM head come from ddr each iteration.
  Stream(plan, graph.FindValue("model.layers.2.mlp.weight"), 1, 1);
  Stream(plan, graph.FindValue("model.layers.3.mlp.weight"), 1, 1);
  Stream(plan, graph.FindValue("lm_head.weight"), 1, 1);
  // Groups of other weights by bytes: resident 304 B (embed_tokens 300, norm 4), streamed 200.
  CHECK(DescribeLayerResidency(graph, profile, plan) ==
        "layers 0-1 resident, 2-3 streamed from ddr; embed_tokens and norm resident; lm_head "
        "streamed from ddr");
}

TEST_CASE("layer summary: a long weight name is cut to its first 37 characters and ...") {
  // An exporter's constant named after its contents: 11 + 1 + 2 * 39 + 1 = 91 characters.
  std::string contents = "const.i64.[";
  for (int i = 0; i < 40; ++i) contents += i == 0 ? "1" : ",1";
  contents += "]";
  const Graph graph = Reading({{"layers.0.w", 100}, {contents, 8}});
  // "const.i64.[" is 11 characters, then 26 of "1,1,...": 13 ones and 13 commas (one layer:
  // "layer 0", singular).
  CHECK(DescribeLayerResidency(graph, UnitProfile(), InModelOrder(graph)) ==
        "layer 0 resident; const.i64.[1,1,1,1,1,1,1,1,1,1,1,1,1,... resident");
}

TEST_CASE("layer summary: states alternating past eight runs are counted instead") {
  // Twelve layers; 0, 3, 6 and 9 stream from nvme, 1-2, 4-5, 7-8 and 10 from ddr, 11 stays:
  // nine runs (0, 1-2, 3, 4-5, 6, 7-8, 9, 10, 11).
  std::vector<std::pair<std::string, int64_t>> weights;
  for (int i = 0; i < 12; ++i) weights.push_back({Named("layers.", i, ".w"), 100});
  const Graph graph = Reading(weights);
  Plan plan = InModelOrder(graph);
  for (int i = 0; i < 11; ++i) {
    const TierId home = i % 3 == 0 ? 2 : 1;  // nvme, else ddr
    Stream(plan, graph.FindValue(Named("layers.", i, ".w")), 1, home);
  }
  // In order of first appearance: layer 0 (nvme), 1 (ddr), 11 (resident).
  CHECK(DescribeLayerResidency(graph, NvmeProfile(), plan) ==
        "12 layers: 4 streamed from nvme, 7 streamed from ddr, 1 resident");
  // Eight runs are listed: layer 11 streamed from ddr too joins 10 (0, 1-2, ..., 9, 10-11).
  Stream(plan, graph.FindValue("layers.11.w"), 1, 1);
  CHECK(DescribeLayerResidency(graph, NvmeProfile(), plan) ==
        "layers 0 streamed from nvme, 1-2 streamed from ddr, 3 streamed from nvme, 4-5 streamed "
        "from ddr, 6 streamed from nvme, 7-8 streamed from ddr, 9 streamed from nvme, 10-11 "
        "streamed from ddr");
}

TEST_CASE("layer summary: a layer is streamed when under 1% of its bytes stay") {
  Graph graph = Reading({{"layers.0.big", 100},
                         {"layers.0.norm", 1},  // 100 of 101: 99.0%
                         {"layers.1.big", 100},
                         {"layers.1.norm", 2}});  // 100 of 102: 98.0%
  Plan plan = InModelOrder(graph);
  Stream(plan, graph.FindValue("layers.0.big"), 1, 1);
  Stream(plan, graph.FindValue("layers.1.big"), 1, 1);
  CHECK(DescribeLayerResidency(graph, UnitProfile(), plan) ==
        "layers 0 streamed from ddr, 1 partly streamed from ddr");
}

TEST_CASE("layer summary: a multi-hop stream names its home, gaps in numbers split runs") {
  // layers 0, 1 and 3 (no layer 2); nvme -> ddr -> hbm: the device's Prefetch leaves from ddr,
  // but the copy there at the start is on nvme (tier 2), the home.
  const Graph graph = Reading({{"layers.0.w", 10}, {"layers.1.w", 10}, {"layers.3.w", 10}});
  Plan plan = InModelOrder(graph);
  for (const char* name : {"layers.0.w", "layers.1.w", "layers.3.w"}) {
    Stream(plan, graph.FindValue(name), 1, 2);
  }
  CHECK(DescribeLayerResidency(graph, NvmeProfile(), plan) ==
        "layers 0-1 streamed from nvme, 3 streamed from nvme");
}

TEST_CASE("layer summary: the KV cache, and graphs without layer names") {
  Graph graph = Reading({{"w_q", 10}, {"w_k", 10}, {"w_v", 10}});
  for (int i = 0; i < 4; ++i) {
    const ValueId cache = Input(graph, Named("past_key_values.", i, ".key"), 64);
    graph.values[cache].value_class = ValueClass::kKvCache;
    Work(graph, Named("attention", i), {cache}, Named("a", i), 1, 1);
  }
  Plan plan = InModelOrder(graph);
  CHECK(DescribeLayerResidency(graph, UnitProfile(), plan) ==
        "weights (no layer names): 3 resident; kv cache resident");
  Stream(plan, graph.FindValue("w_v"), 1, 1);
  Stream(plan, graph.FindValue("past_key_values.0.key"), 1, 1);
  // One cache tensor of four streams: 64 of 256 bytes.
  CHECK(DescribeLayerResidency(graph, UnitProfile(), plan) ==
        "weights (no layer names): 2 resident, 1 streamed from ddr; kv cache partly streamed "
        "from ddr (1 of 4 tensors)");
}

TEST_CASE("layers: the groups layer streaming and the summary share") {
  const Graph graph = Reading({{"model.layers.1.a", 1},
                               {"model.layers.0.b", 1},
                               {"model.layers.1.c", 1},
                               {"lm_head.weight", 1}});
  const WeightLayers layers = FindWeightLayers(graph, ModelOrder(graph));
  // Ranked by first use: layer 1 (step 0), then layer 0 (step 1).
  CHECK(layers.number_of_rank == std::vector<int>{1, 0});
  CHECK(layers.rank_of_value[graph.FindValue("model.layers.1.c")] == 0);
  CHECK(layers.rank_of_value[graph.FindValue("lm_head.weight")] == -1);
  // Visits: layer 1 at step 0, layer 0 at step 1, layer 1 again at step 2.
  REQUIRE(layers.visits.size() == 3);
  CHECK(layers.visits[2].rank == 0);
  CHECK(layers.visits[2].first == 2);
}
