// The KV cache and the experts compete for the same device memory (issue 31): the planner keeps
// experts resident in the room the budget leaves over the live peak
// (planner/expert_placement.h), so a longer context leaves fewer of them, and the residency
// line says how many (plan/expert_residency.h). Hand arithmetic on support/routed_moe.h (unit
// rates, 1000 ns link latency, fc1's expert slices 2048 B) with a KV cache the router reads.
#include "hyperplan/plan/expert_residency.h"

#include <catch2/catch.hpp>

#include "hyperplan/plan/layer_summary.h"
#include "hyperplan/planner/problem.h"
#include "planner/expert_placement.h"
#include "support/routed_moe.h"

namespace hyperplan {
namespace {

using testing::RoutedMoe;

// `f` with a KV cache of `kv_bytes` (the context's) read by the router and held the whole run.
struct MoeWithCache {
  RoutedMoe f;
  ValueId kv = kNoValue;
  explicit MoeWithCache(int64_t kv_bytes) {
    kv = testing::Input(f.graph, "past_key", kv_bytes);
    f.graph.values[kv].value_class = ValueClass::kKvCache;
    f.graph.nodes[f.route].inputs.push_back(kv);
    f.graph.values[kv].consumers.push_back(f.route);
  }
};

// The planner's plan with fc1 streamed whole, then placed expert by expert under the budget.
PlanResult Placed(const MoeWithCache& m, int64_t budget_bytes) {
  PlanOptions options;
  options.single_run = true;
  options.node_time_ns = {RoutedMoe::kRouteNs, RoutedMoe::kMoeNs};
  const Problem problem = BuildProblem(m.f.graph, m.f.profile, options);
  Plan whole = m.f.HandPlan(false, 16384, 16384);
  const int64_t kv_bytes = m.f.graph.values[m.kv].bytes;
  whole.residency.push_back({m.kv, kNoNode, 0, 1, kv_bytes, -1, -1});
  whole.budget_bytes = budget_bytes;
  PlanResult planned;
  static_cast<EvaluatedPlan&>(planned) = m.f.Finish(std::move(whole));
  return planner::PlaceExpertsAfterRoute(problem, options, std::move(planned));
}

int64_t ResidentOf(const MoeWithCache& m, const PlanResult& placed) {
  const std::vector<MoeLayerExperts> layers =
      FindResidentExperts(m.f.graph, m.f.profile, placed.plan);
  REQUIRE(layers.size() == 1);
  CHECK(layers[0].node == m.f.moe);
  CHECK(layers[0].experts == 8);
  return layers[0].resident;
}

}  // namespace

TEST_CASE("a longer context leaves fewer experts resident") {
  // Routed, the live peak is 64 (x) + 32 (router) + 4096 (fc1's routed block, 2 experts) +
  // 2 * 16384 (fc2, fc3) + 64 (y) = 37024 B, plus the KV cache. Budget 37024 + 8000 B.
  constexpr int64_t kBudgetBytes = 37024 + 8000;
  // Short context, a 1024 B cache: room 8000 - 1024 = 6976 B, three 2048 B experts (6144 B);
  // uniform routing, ties by expert index: 0, 1 and 2.
  const MoeWithCache short_context(1024);
  const PlanResult short_plan = Placed(short_context, kBudgetBytes);
  REQUIRE(short_plan.evaluation.fits);
  CHECK(ResidentOf(short_context, short_plan) == 3);
  // Long context, 4096 B more cache: room 8000 - 5120 = 2880 B, one expert.
  const MoeWithCache long_context(5120);
  const PlanResult long_plan = Placed(long_context, kBudgetBytes);
  REQUIRE(long_plan.evaluation.fits);
  CHECK(ResidentOf(long_context, long_plan) == 1);
  // fc2 and fc3 stay whole, so an expert is resident exactly when fc1 holds it; the residency
  // line ends with the count (no "layers.N." names here).
  const std::string line =
      DescribeLayerResidency(long_context.f.graph, long_context.f.profile, long_plan.plan);
  CHECK_THAT(line, Catch::EndsWith("; experts: 1 of 8 resident in 1 MoE node without a layer, "
                                   "the rest fetched after route"));
}

TEST_CASE("resident experts are described by runs of MoE layers") {
  const std::vector<MoeLayerExperts> layers = {
      {1, 10, 8, 3}, {2, 20, 8, 3}, {3, 30, 8, 2}, {5, 50, 8, 2}};
  CHECK(DescribeResidentExperts(layers) ==
        "experts: 3 of 8 resident in MoE layers 1-2, 2 of 8 in layer 3, 2 of 8 in layer 5, the "
        "rest fetched after route");
  CHECK(DescribeResidentExperts({}).empty());
}

}  // namespace hyperplan
