// What runs on the host, in --summary-json's RunSummary and fit's FitPoint (the same fields,
// filled by cli/run_summary.h's RecordHostPlacement): host time and node count, each layer
// with its parts, the parts outside the layers. A plan written by hand; nothing is filled
// for a plan all on the device.
#include <catch2/catch.hpp>

#include "cli/run_summary.h"
#include "schemas/fit.pb.h"
#include "support/tiny_graph.h"

using namespace hyperplan;
using namespace hyperplan::testing;

namespace {

// Layers 0 and 1, each a MatMul of its mlp.up_proj weight; then lm_head's MatMul.
Graph TwoLayers() {
  Graph g;
  ValueId h = Input(g, "x", 8);
  for (int i = 0; i < 2; ++i) {
    const ValueId out = Bytes(g, "h" + std::to_string(i), 8);
    Op(g, "up" + std::to_string(i), "MatMul",
       {h, Weight(g, "model.layers." + std::to_string(i) + ".mlp.up_proj.weight", 64)}, {out});
    h = out;
  }
  const ValueId logits = Bytes(g, "logits", 8);
  Op(g, "head", "MatMul", {h, Weight(g, "lm_head.weight", 64)}, {logits});
  MarkOutput(g, logits);
  return g;
}

// Nodes 0, 1, 2 in order; `host` on the host.
Plan Placed(std::vector<bool> host) {
  Plan plan;
  for (NodeId n = 0; n < 3; ++n) {
    PlanStep step;
    step.node = n;
    step.boundary = n;
    if (host[n]) step.unit = ComputeUnit::kHost;
    plan.order.push_back(n);
    plan.steps.push_back(step);
  }
  return plan;
}

}  // namespace

TEST_CASE("run summary: the host's time, nodes and parts") {
  const Graph graph = TwoLayers();
  SimulationResult timeline;
  timeline.host_compute_ns = 1234;
  plan::v1::RunSummary summary;
  cli::RecordHostPlacement(graph, Placed({true, true, true}), timeline, summary);
  CHECK(summary.host_compute_ns() == 1234);
  CHECK(summary.host_nodes() == 3);  // up0, up1, head
  REQUIRE(summary.host_layers_size() == 2);
  CHECK(summary.host_layers(0).layer() == 0);
  CHECK(summary.host_layers(1).layer() == 1);
  REQUIRE(summary.host_layers(1).parts_size() == 1);
  CHECK(summary.host_layers(1).parts(0) == "MLP");
  REQUIRE(summary.host_parts_size() == 1);
  CHECK(summary.host_parts(0) == "LM head");
}

TEST_CASE("run summary: a plan all on the device fills no host field; fit's point the same") {
  const Graph graph = TwoLayers();
  SimulationResult timeline;
  plan::v1::RunSummary summary;
  cli::RecordHostPlacement(graph, Placed({false, false, false}), timeline, summary);
  CHECK(summary.host_nodes() == 0);
  CHECK(summary.host_layers_size() == 0);
  fit::v1::FitPoint point;
  cli::RecordHostPlacement(graph, Placed({false, true, false}), timeline, point);
  CHECK(point.host_nodes() == 1);
  REQUIRE(point.host_layers_size() == 1);
  CHECK(point.host_layers(0).layer() == 1);
  CHECK(point.host_parts_size() == 0);
}

TEST_CASE("run summary and fit's point: the host's time split by its roofline term") {
  Bottleneck bottleneck;
  bottleneck.host_memory_ns = 270;
  bottleneck.host_flops_ns = 30;
  plan::v1::RunSummary summary;
  cli::RecordBottleneckShares(UnitProfile(), bottleneck, summary);
  CHECK(summary.host_memory_ns() == 270);
  CHECK(summary.host_flops_ns() == 30);
  fit::v1::FitPoint point;
  cli::RecordBottleneckShares(UnitProfile(), bottleneck, point);
  CHECK(point.host_memory_ns() == 270);
  CHECK(point.host_flops_ns() == 30);
}
