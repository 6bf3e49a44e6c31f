// HostEarlyOrder (planner/host_early_order.h): the host's tail nodes that read nothing computed
// this iteration move to the order's start; in-place writers, readers of an updated value and
// host nodes before the device's last node keep their places. The model is
// forward_backward.h's UpdateAtTail, on its loop graph (the in-place updates as written_by).
#include "planner/host_early_order.h"

#include <catch2/catch.hpp>
#include <cstddef>
#include <vector>

#include "forward_backward.h"
#include "hyperplan/lifetimes.h"
#include "hyperplan/loop.h"
#include "hyperplan/plan/verify.h"
#include "hyperplan/planner/planner.h"
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

namespace {

// `model` planned with n2..n7 on the host in `order` (nothing reordered after).
PlanResult PlanInOrder(const UpdateAtTail& model, const HardwareProfile& profile,
                       std::vector<NodeId> order) {
  PlanOptions options;
  options.aliases = FindAliases(model.graph, {});
  options.allow_reorder = false;
  Problem placed = PlaceUnits(BuildProblem(model.graph, profile, options), model.Units());
  placed.order = std::move(order);
  placed.lifetimes = AnalyzeLifetimes(*placed.graph, placed.order, placed.units);
  PlanResult result = PlanOffload(placed, options);
  const VerifyResult verdict = VerifyPlan(model.graph, profile, result.plan, result.evaluation);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  return result;
}

}  // namespace

TEST_CASE("host early order: the moved decay leaves the tail, the iteration ends sooner",
          "[planner][host]") {
  const UpdateAtTail model;
  const HardwareProfile profile = HalfFlopHostProfile();
  // As the eager-update order places it: n2 just before n4, its reader, after n3.
  const PlanResult late = PlanInOrder(model, profile, {0, 1, 3, 2, 4, 5, 6, 7});
  const PlanResult early = PlanInOrder(model, profile, {2, 0, 1, 3, 4, 5, 6, 7});
  // Each host node: 100 FLOP at 0.5 FLOP/ns = 200 ns (at most 200 B at 4 B/ns: 50 ns). The
  // device: W in (100 B, 0-100 ns), n0 100-200, n1 200-300, g out (100 B) 300-400. Late: the
  // host runs n3, n2, n4, n5, n6, n7 one after another from 400: ends at 400 + 6 * 200 = 1600.
  // Early: n2 runs 0-200 beside the device, the chain from 400 is n3, n4, n5, n6, n7: 1400.
  CHECK(late.evaluation.timeline.makespan_ns == 1600);
  CHECK(early.evaluation.timeline.makespan_ns == 1400);
}
