// Per-class policies at unit rates: kv cache by layer, optimizer state per update, MoE experts
// as separate candidates, pinned weights, and the empty graph.
#include <catch2/catch.hpp>

#include "planner_support.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// Steps of a plan's residency for one value: is it on the device during `step`?
bool ResidentAt(const Plan& plan, ValueId value, Step step) {
  for (const ResidentInterval& interval : plan.residency) {
    if (interval.value == value && interval.first_step <= step && step <= interval.last_step) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("policies: each layer's kv cache comes in before its attention and leaves after") {
  //   step 2i:   attn_i (h, past_i) -> a_i   100 ns
  //   step 2i+1: mlp_i  a_i -> h_{i+1}       100 ns, 50 B scratch
  // past_i: 100 B kv cache fed as a graph input (it lives off the device between calls).
  // T = [0, 100, ..., 600]. Baseline: the three caches stay resident: 300 B + small.
  Graph graph;
  ValueId h = Input(graph, "x", 1);
  std::vector<ValueId> past;
  for (int i = 0; i < 3; ++i) {
    past.push_back(Input(graph, Named("past_key_values.", i), 100));
    graph.values[past.back()].value_class = ValueClass::kKvCache;
  }
  for (int i = 0; i < 3; ++i) {
    const ValueId a = Work(graph, Named("attn", i), {h, past[i]}, Named("a", i), 1, 100);
    h = Work(graph, Named("mlp", i), {a}, Named("h", i), 1, 100, 50);
  }
  MarkOutput(graph, h);
  const PlanResult result = PlanAndVerify(graph, UnitProfile(), Budget(200));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  // past_1 streams in during mlp0 ([100, 200), ending as attn1 starts), past_2 during mlp1.
  const auto fetch1 = StepsOf(plan, StepKind::kPrefetch, past[1]);
  const auto fetch2 = StepsOf(plan, StepKind::kPrefetch, past[2]);
  REQUIRE(fetch1.size() == 1);
  REQUIRE(fetch2.size() == 1);
  CHECK(plan.steps[fetch1[0]].planned_start_ns == 100);
  CHECK(plan.steps[fetch1[0]].planned_end_ns == 200);
  CHECK(plan.steps[fetch2[0]].planned_start_ns == 300);
  CHECK(plan.steps[fetch2[0]].planned_end_ns == 400);
  // Each leaves right after its attention: Detach before the next step.
  CHECK(StepsOf(plan, StepKind::kDetach, past[0]).size() == 1);
  CHECK(StepsOf(plan, StepKind::kDetach, past[1]).size() == 1);
  CHECK(StepsOf(plan, StepKind::kStore).empty());  // their home copies already exist
  for (int i = 0; i < 3; ++i) {
    CHECK(ResidentAt(plan, past[i], 2 * i));
    for (Step step = 0; step < 2 * i - 1; ++step) CHECK(!ResidentAt(plan, past[i], step));
  }
  CHECK(evaluation.summary.stall_ns == 0);
  CHECK(evaluation.summary.makespan_ns == 600);
  CHECK(plan.layout.arena_bytes <= 200);
}

TEST_CASE("policies: optimizer state is in only for the update that uses it") {
  //   step 0: fwd    x -> a            100 ns, 200 B scratch
  //   step 2i+1: grad_i a -> g_i      100 ns
  //   step 2i+2: update_i (g_i, m_i) -> m'_i (100 B, graph output) 100 ns
  // m_i (100 B) are optimizer moments fed as graph inputs; m'_i the updated moments.
  // Step 0 holds x 1 + a 1 + 200 scratch + the three moments 300 = 502: at 220 B all three
  // must be away during the forward pass, and each update step holds a, g_i, m_i, m'_i
  // (202 B), so m'_i must leave once written for the next update to fit.
  Graph graph;
  const ValueId x = Input(graph, "x", 1);
  std::vector<ValueId> moments;
  for (int i = 0; i < 3; ++i) {
    moments.push_back(Input(graph, Named("w", i, ".exp_avg"), 100));
    graph.values[moments.back()].value_class = ValueClass::kOptimizerState;
  }
  const ValueId a = Work(graph, "fwd", {x}, "a", 1, 100, 200);
  std::vector<ValueId> updated;
  for (int i = 0; i < 3; ++i) {
    const ValueId g = Work(graph, Named("grad", i), {a}, Named("g", i), 1, 100);
    updated.push_back(
        Work(graph, Named("update", i), {g, moments[i]}, Named("m", i, "_new"), 100, 100));
    graph.values[updated.back()].value_class = ValueClass::kOptimizerState;
    MarkOutput(graph, updated.back());
    graph.values[updated.back()].value_class = ValueClass::kOptimizerState;
  }
  const PlanResult result = PlanAndVerify(graph, UnitProfile(), Budget(220));
  REQUIRE(result.status == PlanStatus::kPlanned);
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  for (int i = 0; i < 3; ++i) {
    INFO("moment " << i);
    CHECK(ResidentAt(plan, moments[i], 2 * i + 2));  // present for its update
    CHECK(!ResidentAt(plan, moments[i], 0));         // not during the forward pass
  }
  // Updated moments leave once written (Store then Detach), except the last (written last).
  CHECK(StepsOf(plan, StepKind::kStore, updated[0]).size() == 1);
  CHECK(evaluation.summary.stall_ns == 0);
  CHECK(plan.layout.arena_bytes <= 220);
}

TEST_CASE("policies: MoE experts are separate candidates") {
  //   router x -> r (1 B) 10 ns; expert_i (r, e_i) -> y_i 100 ns; combine (y_0..y_3) -> y
  // e_i: 100 B expert weights. Each expert weight has its own decisions and moves on its own.
  Graph graph;
  const ValueId x = Input(graph, "x", 1);
  std::vector<ValueId> experts;
  for (int i = 0; i < 4; ++i) experts.push_back(Weight(graph, Named("expert", i), 100));
  const ValueId r = Work(graph, "router", {x}, "r", 1, 10);
  std::vector<ValueId> outs;
  for (int i = 0; i < 4; ++i) {
    outs.push_back(Work(graph, Named("expert", i, ".ffn"), {r, experts[i]}, Named("y", i), 1, 100));
  }
  MarkOutput(graph, Work(graph, "combine", outs, "y", 1, 10));
  const PlanResult result = PlanAndVerify(graph, UnitProfile(), Budget(250));
  REQUIRE(result.status == PlanStatus::kPlanned);
  int moved = 0;
  for (ValueId e : experts) {
    bool has_decision = false;
    for (const Decision& d : result.plan.decisions) has_decision |= d.value == e;
    CHECK(has_decision);
    moved += !StepsOf(result.plan, StepKind::kPrefetch, e).empty() ||
             !StepsOf(result.plan, StepKind::kDetach, e).empty();
  }
  CHECK(moved >= 2);  // 400 B of experts cannot all stay within 250 B
  CHECK(result.plan.layout.arena_bytes <= 250);
}

TEST_CASE("policies: without a weight home tier, weights stay on the device") {
  Graph graph;
  const ValueId w = Weight(graph, "w", 100);
  const ValueId a = Work(graph, "n0", {w}, "a", 1, 10);
  MarkOutput(graph, Work(graph, "n1", {a}, "y", 1, 10, 100));
  HardwareProfile profile = UnitProfile();
  profile.weight_home_tier = kNoTier;
  const PlanResult result = PlanOffload(graph, profile, Budget(150));
  CHECK(result.status == PlanStatus::kInfeasible);  // step 1: w 100 + a 1 + y 1 + 100 scratch
  const Decision* decision = FindDecision(result.plan, w, -1);
  REQUIRE(decision != nullptr);
  CHECK(decision->reason == DecisionReason::kPinnedByPolicy);
  CHECK(result.infeasibility.pinned_bytes == 100);
}

TEST_CASE("policies: an empty graph plans to an empty plan") {
  Graph graph;
  const PlanResult result = PlanAndVerify(graph, UnitProfile(), Budget(0));
  CHECK(result.status == PlanStatus::kPlanned);
  CHECK(result.plan.steps.empty());
  CHECK(result.evaluation.summary.makespan_ns == 0);
}
