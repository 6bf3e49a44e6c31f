// The token embedding's lookup and gradient scatter taken along by the update of the table
// (planner/embedding_update.h): the host, which holds the table and updates it in place, also
// reads its rows and scatters their gradient, so only the rows and their gradient cross. Unit
// rates (planner_support.h): the links move 1 byte/ns each way. Every number is worked out
// beside its assertion.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "hyperplan/loop.h"
#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/problem.h"
#include "planner/forward_backward.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// The problem keeps pointers to `graph` and `profile`.
Problem LoopProblem(const Graph& graph, const HardwareProfile& profile, PlanOptions& options) {
  options.aliases = FindAliases(graph, {});
  return BuildProblem(graph, profile, options);
}

std::vector<HostPart> PartsWithReaders(const Problem& problem) {
  HostPartOptions readers;
  readers.embedding_readers = true;
  return FindHostParts(problem, readers);
}

std::vector<NodeId> OnlyPartNodes(const std::vector<HostPart>& parts) {
  REQUIRE(parts.size() == 1);
  CHECK(parts[0].kind == HostPartKind::kOptimizer);
  return parts[0].nodes;
}

}  // namespace

TEST_CASE("the table's update takes its lookup and the scatter of its gradient",
          "[planner][host]") {
  const EmbeddingStep step(10);
  const HardwareProfile profile = HalfFlopHostProfile();
  PlanOptions options;
  const Problem problem = LoopProblem(step.graph, profile, options);
  // The update (n5, n6), the Gather of the table it writes (n0, E's one reader outside it), the
  // scatter n4 (its computed input dx holds 10 B, fewer than E.grad's 1000 B) and the zeros n3
  // (reads nothing, feeds n4 alone); not n1, n2 (they make the rows' gradient from the rows).
  CHECK(OnlyPartNodes(PartsWithReaders(problem)) == std::vector<NodeId>{0, 3, 4, 5, 6});
  // Without embedding_readers (ZeRO-Offload's update, the placement search's parts): n5, n6.
  CHECK(OnlyPartNodes(FindHostParts(problem)) == std::vector<NodeId>{5, 6});
}

TEST_CASE("a gradient made from as many bytes as it holds stays with the backward pass",
          "[planner][host]") {
  const EmbeddingStep step(1000);
  const HardwareProfile profile = HalfFlopHostProfile();
  PlanOptions options;
  const Problem problem = LoopProblem(step.graph, profile, options);
  // dx holds 1000 B, E.grad 1000 B: carrying dx instead saves nothing, so n3 and n4 stay on
  // the device; the Gather still goes with the update (the table then never crosses).
  CHECK(OnlyPartNodes(PartsWithReaders(problem)) == std::vector<NodeId>{0, 5, 6});
}

TEST_CASE("with the table's lookup and scatter on the host only the rows cross",
          "[planner][host]") {
  const EmbeddingStep step(10);
  const HardwareProfile profile = HalfFlopHostProfile();
  PlanOptions options;
  const Problem problem = LoopProblem(step.graph, profile, options);
  PlanResult result = PlanOffload(
      PlaceUnits(problem, NodeUnitsOf(*problem.graph, PartsWithReaders(problem))), options);
  const VerifyResult verdict = VerifyPlan(step.graph, profile, result.plan, result.evaluation);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  // The device runs n1 and n2 alone: x (10 B) comes in, dx (10 B) goes out, and the token ids
  // (4 B), fed to the device, go out once for the host's Gather and scatter; the table (1000
  // B) and its gradient (1000 B) never cross: 24 B moved, where the lookup and the scatter on
  // the device moved the table in and its gradient out, 2000 B more.
  CHECK(StepsOf(result.plan, StepKind::kPrefetch, step.table).empty());
  CHECK(StepsOf(result.plan, StepKind::kStore, step.ids).size() == 1);
  CHECK(result.evaluation.timeline.total_bytes_moved() == 10 + 10 + 4);
}
