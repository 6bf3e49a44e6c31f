// The reference executor runs the planner's plan whose host lane takes the token table's
// lookup and gradient scatter with the table's update (planner/embedding_update.h): the host
// Gathers the rows from the table's home copy on ddr, scatters their gradient into the zeros
// it makes, and updates the table and its moment in place, over several iterations, every
// input's bytes checked. The model is planner/forward_backward.h's EmbeddingStep; unit rates
// (planner_support.h): the links move 1 byte/ns each way.
#include <catch2/catch.hpp>

#include "executor/executor.h"
#include "hyperplan/loop.h"
#include "hyperplan/planner/host_parts.h"
#include "hyperplan/planner/problem.h"
#include "planner/forward_backward.h"
#include "support/run_plan.h"

using namespace hyperplan;
using namespace hyperplan::executor;
using namespace hyperplan::planner_test;

TEST_CASE("embedding lane: the host's lookup, scatter and update of the table run clean") {
  const EmbeddingStep step(10);
  const HardwareProfile profile = HalfFlopHostProfile();
  PlanOptions options;
  options.aliases = FindAliases(step.graph, {});
  const Problem problem = BuildProblem(step.graph, profile, options);
  HostPartOptions readers;
  readers.embedding_readers = true;
  const Problem placed =
      PlaceUnits(problem, NodeUnitsOf(step.graph, FindHostParts(problem, readers)));
  const PlanResult planned = PlanOffload(placed, options);
  const VerifyResult verdict = VerifyPlan(step.graph, profile, planned.plan, planned.evaluation);
  INFO(verdict.message);
  REQUIRE(verdict.ok);
  const ExecutionReport report = testing::RunFullyChecked(step.graph, profile, planned.plan, 3);
  INFO(report.violation);
  REQUIRE(report.ok);
  CHECK(report.iterations_run == 3);
  CHECK(report.stream_count == 4);  // compute, hbm->ddr, ddr->hbm, the host lane
  // Per iteration the host runs n0 (Gather), n3 (zeros), n4 (scatter), n5 and n6 (Adam): 5
  // steps; the device n1 and n2. Three transfers: the rows x in (10 B), their gradient dx out
  // (10 B), the token ids out for the host's Gather and scatter (4 B): 24 B. The table (1000
  // B) and its gradient (1000 B) never cross, so a host read of a stale or unwritten copy
  // would be caught by its bytes here, not hidden behind a fetch.
  CHECK(report.host_computes == 3 * 5);
  CHECK(report.transfers == 3 * 3);
  CHECK(report.bytes_copied == 3 * 24);
}
