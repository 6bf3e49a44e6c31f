// The human summary the CLI prints.
#include "hyperplan/plan/summary.h"

#include <catch2/catch.hpp>

#include "planner/planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

TEST_CASE("summary: peak, arena, makespan, bytes per link, cache ops and top decisions") {
  // The skip graph of the catalogue, with s offloaded at budget 250.
  Graph graph;
  graph.name = "skip";
  const ValueId s = Work(graph, "n0", {}, "s", 100, 10);
  const ValueId a = Work(graph, "n1", {s}, "a", 1, 100);
  const ValueId b = Work(graph, "n2", {a}, "b", 1, 50, 200);
  const ValueId c = Work(graph, "n3", {b}, "c", 1, 100);
  MarkOutput(graph, Work(graph, "n4", {c, s}, "y", 1, 10));
  const HardwareProfile profile = UnitProfile();
  const PlanResult result = PlanAndVerify(graph, profile, Budget(250));
  const std::string text = FormatPlanSummary(graph, profile, result.plan, result.evaluation);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("plan for 'skip' on 'unit'"));
  CHECK_THAT(text, Catch::Contains("budget: 250 B (fits)"));
  CHECK_THAT(text, Catch::Contains("device peak: 302 B -> 202 B (-33.1%)"));
  CHECK_THAT(text, Catch::Contains("arena: 302 B -> 202 B"));
  CHECK_THAT(text, Catch::Contains("1-byte aligned)"));  // the unit profile states none
  // The one stored copy, 100 B on ddr, is its tier's whole buffer.
  CHECK_THAT(text, Catch::Contains("tier buffers: ddr 100 B\n"));
  CHECK_THAT(text, Catch::Contains("time per iteration: 270 ns -> 270 ns (+0.0%)"));
  // No weights and no aliases: nothing persists across iterations, so nothing to preload.
  CHECK_THAT(text, Catch::Contains("loop: one iteration, ends as it began (no output feeds "
                                   "back); cold start nothing, 0 ns before the first iteration"));
  CHECK_THAT(text, Catch::Contains("hbm->ddr 100 B, ddr->hbm 100 B"));
  CHECK_THAT(text, Catch::Contains("cache ops: 1 prefetch, 1 store, 1 detach"));
  CHECK_THAT(text, Catch::Contains("residency: no weights\n"));
  // Every node's time is its FLOPs (one per output element at 1 FLOP/ns; its bytes take 1 ns
  // at the unit profile's 2^62 bytes/s): 270 ns of FLOPs against 100 ns on each link (100 B at
  // 1 byte/ns, each way), 100 / 270 = 37%.
  CHECK_THAT(text, Catch::Contains("bottleneck: FLOPs 100% of the 270 ns iteration (hbm->ddr "
                                   "37%, ddr->hbm 37%)\n"));
  CHECK_THAT(text, Catch::Contains("1. 's' (activation, 100 B) to ddr: frees steps 2..2"));
  const PlanSummary& summary = result.evaluation.summary;
  CHECK(summary.steps_per_kind[static_cast<size_t>(StepKind::kCompute)] == 5);
  CHECK(summary.offloaded_values == 1);
}
