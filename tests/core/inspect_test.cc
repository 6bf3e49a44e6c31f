// The inspect report on a hand-sized graph.
#include "hyperplan/inspect.h"

#include <catch2/catch.hpp>

#include "support/tiny_graph.h"

using namespace hyperplan;
using namespace hyperplan::testing;

TEST_CASE("inspect totals, peak and top live values") {
  // w(100, weight), x(10, input) -> mm -> a(20) -> relu -> b(30) -> add(b, x) -> y(40, output)
  Graph graph;
  const ValueId w = Weight(graph, "w", 100);
  const ValueId x = Input(graph, "x", 10);
  const ValueId a = Bytes(graph, "a", 20);
  const ValueId b = Bytes(graph, "b", 30);
  const ValueId y = Bytes(graph, "y", 40);
  MarkOutput(graph, y);
  Op(graph, "mm", "MatMul", {x, w}, {a});
  Op(graph, "relu", "Relu", {a}, {b});
  Op(graph, "add", "Add", {b, x}, {y});

  const InspectReport report = BuildInspectReport(graph, UnitProfile(1000), /*top_count=*/2);
  CHECK(report.node_count == 3);
  CHECK(report.value_count == 5);
  CHECK(report.total_bytes == 200);  // 100 + 10 + 20 + 30 + 40
  CHECK(report.class_totals[static_cast<int>(ValueClass::kWeight)].bytes == 100);
  CHECK(report.class_totals[static_cast<int>(ValueClass::kActivation)].count == 2);
  CHECK(report.class_totals[static_cast<int>(ValueClass::kActivation)].bytes == 50);
  // Peak at step 2 ("add"): w 100 + x 10 + b 30 + y 40 = 180.
  CHECK(report.peak_bytes == 180);
  CHECK(report.peak_step == 2);
  CHECK(graph.nodes[report.peak_node].name == "add");
  REQUIRE(report.largest_live_at_peak.size() == 2);
  CHECK(report.largest_live_at_peak[0].value == w);
  CHECK(report.largest_live_at_peak[1].value == y);
  CHECK(report.largest_live_at_peak[1].first_step == 2);
  CHECK(report.largest_live_at_peak[1].last_step == 2);
  // uint8 vectors: MatMul x[10] w[100] -> a[20] has K = 10: 2 * 20 * 10 = 400 FLOPs;
  // Relu 30, Add 40 (one per output element). Times: mm max(400, 130 B) = 400,
  // relu max(30, 50 B) = 50, add max(40, 80 B) = 80; total 530 ns.
  CHECK(report.total_flops == 470);
  CHECK(report.total_compute_ns == 530);
  CHECK(report.device_capacity_bytes == 1000);
  // Op types by count, ties by name: Add, MatMul, Relu.
  REQUIRE(report.op_type_counts.size() == 3);
  CHECK(report.op_type_counts[0].first == "Add");
}
