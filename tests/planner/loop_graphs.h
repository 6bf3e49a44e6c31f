// Loop test graphs shared by the planner's loop tests (loop_test.cc, which works their plans
// out by hand) and the executor's tests (tests/executor), which run those plans: one weight read
// twice an iteration, a decode-like step with an in-place KV append, and a weight an optimizer
// step updates in place; plus the plan edits both use to build a plan the planner would not.
// Unit rates (planner_support.h).
#pragma once

#include <algorithm>
#include <vector>

#include "hyperplan/layout/plan_layout.h"
#include "hyperplan/loop.h"
#include "hyperplan/plan/simulate.h"
#include "planner_support.h"

namespace hyperplan::planner_test {

// w (50 B weight, home ddr) is read at steps 0 and 3; steps 1 and 4 need 200 B of scratch.
//   n0 w -> a      10 ns       T = [0, 10, 110, 210, 220, 230]
//   n1 a -> b     100 ns, 200 B scratch
//   n2 b -> c     100 ns
//   n3 c, w -> d   10 ns
//   n4 d -> y      10 ns, 200 B scratch
// Peak 50 + 1 + 1 + 200 = 252 at steps 1 and 4. With a 210 B budget w leaves after each use:
// two Prefetches, two Detaches an iteration.
struct TwiceRead {
  Graph graph;
  ValueId w, a;
  TwiceRead() {
    w = Weight(graph, "w", 50);
    a = Work(graph, "n0", {w}, "a", 1, 10);
    const ValueId b = Work(graph, "n1", {a}, "b", 1, 100, 200);
    const ValueId c = Work(graph, "n2", {b}, "c", 1, 100);
    const ValueId d = Work(graph, "n3", {c, w}, "d", 1, 10);
    MarkOutput(graph, Work(graph, "n4", {d}, "y", 1, 10, 200));
  }
};

// A decode-like step with an in-place KV append. past (100 B) is a graph input, present
// (110 B: one more token) a graph output named by the exporter convention, so they alias.
//   n0 () -> a            100 ns       T = [0, 100, 110, 120, 220]
//   n1 past, a -> present  10 ns       (the append: writes 110 - 100 = 10 new bytes)
//   n2 present -> y        10 ns
//   n3 y -> z (output)    100 ns, 300 B scratch
// In the loop graph past is one 110 B buffer owned outside the run, read at steps 1 and 2.
// Resident per step: 110 + 1 = 111, 111, 110 + 1 = 111, 110 + 1 + 1 + 300 = 412.
struct KvAppend {
  Graph graph;
  ValueId past, present;
  KvAppend() {
    past = Input(graph, "past_key_values.0.key", 100);
    const ValueId a = Work(graph, "n0", {}, "a", 1, 100);
    present = Work(graph, "n1", {past, a}, "present.0.key", 110, 10);
    MarkOutput(graph, present);
    const ValueId y = Work(graph, "n2", {present}, "y", 1, 10);
    MarkOutput(graph, Work(graph, "n3", {y}, "z", 1, 100, 300));
  }
  PlanOptions Options(int64_t budget_bytes) const {
    PlanOptions options = Budget(budget_bytes);
    options.aliases = FindAliases(graph, {});
    return options;
  }
};

// An optimizer-like step: w (50 B weight, home ddr) is read by n0 at step 0 and by n2 at step
// 2, which also writes it in place (w.updated aliases w by the exporter convention: an
// overwrite, all 50 bytes change). Step 1 needs 200 B of scratch.
//   n0 w -> a                1 B, 10 ns
//   n1 a -> b                1 B, 100 ns, 200 B scratch
//   n2 b, w -> w.updated    50 B, 10 ns
// Resident per step with w on the device throughout: 50 + 1 = 51, 1 + 1 + 200 + 50 = 252, 51.
// With `after_update_ns` > 0, n3 (b -> z, 1 B) runs that long after n2. ReadOnlyByTheUpdate():
// n0 makes a from nothing, so n2 is w's only use (the same bytes per step).
// WithStepBeforeTheUpdate(ns): nm (b -> c, 1 B) runs that long between n1 and n2, which then
// reads c instead of b.
struct UpdatedWeight {
  Graph graph;
  ValueId w;
  explicit UpdatedWeight(int64_t after_update_ns = 0) : UpdatedWeight(after_update_ns, true, 0) {}
  static UpdatedWeight ReadOnlyByTheUpdate() { return UpdatedWeight(0, false, 0); }
  static UpdatedWeight WithStepBeforeTheUpdate(int64_t step_ns) {
    return UpdatedWeight(0, true, step_ns);
  }
  PlanOptions Options(int64_t budget_bytes) const {
    PlanOptions options = Budget(budget_bytes);
    options.aliases = FindAliases(graph, {});
    return options;
  }

 private:
  UpdatedWeight(int64_t after_update_ns, bool read_by_n0, int64_t before_update_ns) {
    w = Weight(graph, "w", 50);
    const ValueId a = Work(
        graph, "n0", read_by_n0 ? std::vector<ValueId>{w} : std::vector<ValueId>{}, "a", 1, 10);
    const ValueId b = Work(graph, "n1", {a}, "b", 1, 100, 200);
    const ValueId into_update =
        before_update_ns > 0 ? Work(graph, "nm", {b}, "c", 1, before_update_ns) : b;
    MarkOutput(graph, Work(graph, "n2", {into_update, w}, "w.updated", 50, 10));
    if (after_update_ns > 0) MarkOutput(graph, Work(graph, "n3", {b}, "z", 1, after_update_ns));
  }
};

// Applies `renumber` to every reference to a step: waits, residencies' and copies' openers
// and closers.
template <typename Renumber>
void RenumberSteps(Plan& plan, Renumber renumber) {
  for (PlanStep& step : plan.steps) {
    for (int32_t& wait : step.waits_for) renumber(wait);
  }
  for (ResidentInterval& interval : plan.residency) {
    renumber(interval.opened_by);
    renumber(interval.closed_by);
  }
  for (TierCopy& copy : plan.tier_copies) {
    renumber(copy.opened_by);
    renumber(copy.closed_by);
  }
}

// The index of `node`'s compute step in `plan.steps`, -1 when none.
inline int32_t ComputeStepOf(const Plan& plan, NodeId node) {
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    if (plan.steps[s].kind == StepKind::kCompute && plan.steps[s].node == node) return int32_t(s);
  }
  return -1;
}

// The arena offset of each of `value`'s residencies, in residency order.
inline std::vector<int64_t> ArenaOffsetsOf(const Plan& plan, ValueId value) {
  std::vector<int64_t> offsets;
  for (size_t r = 0; r < plan.residency.size(); ++r) {
    if (plan.residency[r].value == value) offsets.push_back(plan.layout.offset_bytes[r]);
  }
  return offsets;
}

// Makes `step` wait for step `on` too (waits stay ascending, each once).
inline void AddWait(PlanStep& step, int32_t on) {
  const auto at = std::lower_bound(step.waits_for.begin(), step.waits_for.end(), on);
  if (at == step.waits_for.end() || *at != on) step.waits_for.insert(at, on);
}

// The evaluation's timeline and summary peak and makespan replayed after its plan was edited.
inline void Resimulate(const Graph& graph, const HardwareProfile& profile, EvaluatedPlan& planned) {
  PlanEvaluation& evaluation = planned.evaluation;
  evaluation.timeline = Simulate(graph, profile, planned.plan);
  evaluation.summary.peak_bytes = evaluation.timeline.peak_bytes_per_tier[0];
  evaluation.summary.makespan_ns = evaluation.timeline.makespan_ns;
}

// Removes step `index` from a plan (and every wait on it); later steps move down one.
inline void EraseStep(Plan& plan, int32_t index) {
  plan.steps.erase(plan.steps.begin() + index);
  for (PlanStep& step : plan.steps) std::erase(step.waits_for, index);
  RenumberSteps(plan, [&](int32_t& step) {
    if (step > index) --step;
  });
}

// Inserts `step` at `index`; that step and later ones move up one.
inline void InsertStep(Plan& plan, int32_t index, PlanStep step) {
  RenumberSteps(plan, [&](int32_t& at) {
    if (at >= index) ++at;
  });
  plan.steps.insert(plan.steps.begin() + index, std::move(step));
}

// Where UpdatedWeight's update goes home when w stays on the device across the iteration
// boundary but leaves it over step 1.
enum class WriteBack {
  kAfterTheWrite,  // a Store right after n2
  kNextIteration,  // a Store at the next iteration's start, before the Detach, as the
                   // planner's own plan has it (LateWriteBacks::kAtStart)
  kNever,          // none: the Detach drops the only copy of the update (broken)
};

// UpdatedWeight's plan at a 210 B budget: w stays on the device from n2 to the next
// iteration's n0, one arena block, and leaves over step 1 (loop_test.cc works it out). Its
// Store is taken out and put back where `write_back` says. Re-simulated.
inline EvaluatedPlan KeptAcrossTheBoundary(const UpdatedWeight& g, WriteBack write_back) {
  EvaluatedPlan planned = PlanAndVerify(g.graph, UnitProfile(), g.Options(210));
  Plan& plan = planned.plan;
  const auto stores = StepsOf(plan, StepKind::kStore, g.w);
  REQUIRE(stores.size() == 1);
  REQUIRE(StepsOf(plan, StepKind::kDetach, g.w).size() == 1);
  EraseStep(plan, stores[0]);
  PlanStep store;  // w's 50 bytes, hbm -> ddr
  store.kind = StepKind::kStore;
  store.value = g.w;
  store.src_tier = 0;
  store.dst_tier = 1;
  store.link = 0;
  store.channel = 0;
  store.bytes = 50;
  if (write_back == WriteBack::kNextIteration) {
    store.boundary = 0;  // first in the sequence: n0 and the Detach come after it
    InsertStep(plan, 0, store);
    const auto detach = StepsOf(plan, StepKind::kDetach, g.w);
    REQUIRE(detach.size() == 1);
    AddWait(plan.steps[detach[0]], 0);
  } else if (write_back == WriteBack::kAfterTheWrite) {
    const int32_t n2 = ComputeStepOf(plan, 2);
    REQUIRE(n2 >= 0);
    store.boundary = 3;  // after the last step
    store.waits_for = {n2};
    InsertStep(plan, n2 + 1, store);
  }
  Resimulate(g.graph, UnitProfile(), planned);
  return planned;
}

// UpdatedWeight's plan at a 210 B budget with w homed on NVMe behind DDR: its write-back
// Store after n2 is two hops (hbm -> ddr, ddr -> nvme). Edited so the first hop runs at the
// iteration's start, before n2 (reading the last iteration's update), while the second still
// waits for n2: NVMe then never receives n2's update, and the next iteration's Prefetch
// before n2 reads the one before it. Laid out again and re-simulated.
inline EvaluatedPlan WriteBackSplitAroundTheWrite(const UpdatedWeight& g) {
  const HardwareProfile profile = NvmeProfile();
  EvaluatedPlan planned = PlanAndVerify(g.graph, profile, g.Options(210));
  Plan& plan = planned.plan;
  const auto stores = StepsOf(plan, StepKind::kStore, g.w);
  REQUIRE(stores.size() == 2);
  REQUIRE(plan.steps[stores[0]].dst_tier == 1);  // hbm -> ddr
  REQUIRE(plan.steps[stores[1]].dst_tier == 2);  // ddr -> nvme
  const int32_t n2 = ComputeStepOf(plan, 2);
  REQUIRE(n2 >= 0);
  REQUIRE(n2 < stores[0]);
  // Out of the sequence after n2, into it before everything (every reference shifts by one);
  // the second hop waits for it and for n2 itself, and the staging copy is the new hop's.
  PlanStep first_hop = plan.steps[stores[0]];
  first_hop.boundary = 0;
  first_hop.waits_for.clear();
  InsertStep(plan, 0, first_hop);
  const int32_t old_hop = stores[0] + 1;
  const int32_t second_hop = stores[1] + 1;
  AddWait(plan.steps[second_hop], 0);
  AddWait(plan.steps[second_hop], n2 + 1);
  for (TierCopy& copy : plan.tier_copies) {
    if (copy.opened_by == old_hop) copy.opened_by = 0;
  }
  EraseStep(plan, old_hop);
  const auto detach = StepsOf(plan, StepKind::kDetach, g.w);  // after n0: it reads first
  REQUIRE(detach.size() == 1);
  AddWait(plan.steps[detach[0]], 0);
  LayOutPlan(profile, LayoutOptions{}, plan);  // the staging copy now lives longer
  Resimulate(g.graph, profile, planned);
  return planned;
}

}  // namespace hyperplan::planner_test
