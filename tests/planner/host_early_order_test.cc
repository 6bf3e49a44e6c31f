// HostEarlyOrder (planner/host_early_order.h): the host's tail nodes that read nothing computed
// this iteration move to the order's start; in-place writers, readers of an updated value and
// host nodes before the device's last node keep their places. The model is
// forward_backward.h's UpdateAtTail, on its loop graph (the in-place updates as written_by).
#include "planner/host_early_order.h"

#include <catch2/catch.hpp>
#include <cstddef>
#include <vector>

#include "forward_backward.h"
#include "hyperplan/loop.h"
#include "hyperplan/planner/problem.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// HostEarlyOrder of `model`'s loop graph in its model order.
std::vector<NodeId> EarlyOrder(const UpdateAtTail& model, std::vector<ComputeUnit> units) {
  const HardwareProfile profile = HalfFlopHostProfile();
  PlanOptions options;
  options.aliases = FindAliases(model.graph, {});
  REQUIRE(options.aliases.size() == 3);  // M, S and W updated in place
  const Problem problem = BuildProblem(model.graph, profile, options);
  std::vector<NodeId> model_order(model.graph.nodes.size());
  for (size_t n = 0; n < model_order.size(); ++n) model_order[n] = static_cast<NodeId>(n);
  REQUIRE(problem.order == model_order);
  return planner::HostEarlyOrder(*problem.graph, problem.order, units);
}

}  // namespace

TEST_CASE("host early order: the tail's decay of a moment moves to the start", "[planner][host]") {
  const UpdateAtTail model;
  // The tail is n2..n7 (after n1, the device's last node). n2 reads M before n4 writes it:
  // moves. n3 reads g (computed), n4, n5 and n7 write in place, n6 reads M after n4 wrote it:
  // they stay, in order.
  CHECK(EarlyOrder(model, model.Units()) == std::vector<NodeId>{2, 0, 1, 3, 4, 5, 6, 7});
}

TEST_CASE("host early order: nothing moves without a host tail or a placement", "[planner][host]") {
  const UpdateAtTail model;
  // n2..n7 on the device too: no host node, nothing moves.
  CHECK(EarlyOrder(model, std::vector<ComputeUnit>(8, ComputeUnit::kDevice)) ==
        std::vector<NodeId>{0, 1, 2, 3, 4, 5, 6, 7});
  // No placement (an empty node_unit): the order as given.
  CHECK(EarlyOrder(model, {}) == std::vector<NodeId>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("host early order: host nodes before the device's last node stay", "[planner][host]") {
  const UpdateAtTail model(/*device_last=*/true);
  // n8 on the device runs after n2..n7: the host's tail is empty, so n2 stays where the eager
  // order put it (the host may be busy there; only the tail is sure to gain).
  CHECK(EarlyOrder(model, model.Units()) == std::vector<NodeId>{0, 1, 2, 3, 4, 5, 6, 7, 8});
}
