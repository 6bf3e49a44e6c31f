// PrepEarlyOrder (planner/prep_early_order.h): which device nodes move into the device's wait
// for the host, and where. Node ids follow creation, so the model's order is 0, 1, 2, ...
#include "planner/prep_early_order.h"

#include <catch2/catch.hpp>
#include <vector>

#include "hyperplan/lifetimes.h"
#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// Two host parts, each followed by a device node reading its output (a wait):
//   0 n0 (device)  x -> a            5 n3 (device)  h, q2 -> c
//   1 n1 (host)    a -> b            6 n4 (host)    c -> e
//   2 n2 (device)  b -> h (wait)     7 n5 (device)  e -> y (wait)
//   3 d  (device)  w -> q  (prep)    8 d2 (device)  v -> r  (prep, after the last host step)
//   4 d_b (device) q -> q2 (prep)   and 9 n6 (device) y, r -> z, the output.
struct TwoHostParts {
  Graph graph;
  std::vector<ComputeUnit> units;
  TwoHostParts() {
    const ValueId x = Input(graph, "x", 4);
    const ValueId a = Work(graph, "n0", {x}, "a", 4, 1);
    const ValueId b = Work(graph, "n1", {a}, "b", 4, 1);
    const ValueId h = Work(graph, "n2", {b}, "h", 4, 1);
    const ValueId q = Work(graph, "d", {Weight(graph, "w", 8)}, "q", 8, 1);
    // A prep node reading another's output moves with it, after it.
    const ValueId q2 = Work(graph, "d_b", {q}, "q2", 8, 1);
    const ValueId c = Work(graph, "n3", {h, q2}, "c", 4, 1);
    const ValueId e = Work(graph, "n4", {c}, "e", 4, 1);
    const ValueId y = Work(graph, "n5", {e}, "y", 4, 1);
    const ValueId r = Work(graph, "d2", {Weight(graph, "v", 8)}, "r", 8, 1);
    MarkOutput(graph, Work(graph, "n6", {y, r}, "z", 4, 1));
    units.assign(graph.nodes.size(), ComputeUnit::kDevice);
    units[1] = units[6] = ComputeUnit::kHost;  // n1, n4
  }
};

}  // namespace

TEST_CASE("prep-early order: a weight's preparation moves before the wait ahead of it",
          "[planner][host]") {
  const TwoHostParts model;
  // Nodes: 0 n0, 1 n1, 2 n2, 3 d, 4 d_b, 5 n3, 6 n4, 7 n5, 8 d2, 9 n6.
  // d and d_b lie between the wait n2 and the host step n4: they move before n2, in their
  // order. d2 follows the last host step: it stays.
  const std::vector<NodeId> order = ModelOrder(model.graph);
  CHECK(planner::PrepEarlyOrder(model.graph, order, model.units) ==
        std::vector<NodeId>{0, 1, 3, 4, 2, 5, 6, 7, 8, 9});
}

TEST_CASE("prep-early order: nothing moves without a host step or a wait before it",
          "[planner][host]") {
  const TwoHostParts model;
  const std::vector<NodeId> order = ModelOrder(model.graph);
  // Every node on the device: no wait, the model's order.
  const std::vector<ComputeUnit> device(model.graph.nodes.size(), ComputeUnit::kDevice);
  CHECK(planner::PrepEarlyOrder(model.graph, order, device) == order);
  // n4 alone on the host: the wait is n5, after d and d_b; none before them, so they stay.
  std::vector<ComputeUnit> late(model.graph.nodes.size(), ComputeUnit::kDevice);
  late[6] = ComputeUnit::kHost;
  CHECK(planner::PrepEarlyOrder(model.graph, order, late) == order);
}
