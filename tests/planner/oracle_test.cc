// A brute-force oracle for graphs with few candidates: every subset of candidates, each
// placed by the planner's own rules (the budget mode restricted to the subset), the lowest
// simulated makespan whose arena fits the budget. The planner must hit it on designed cases
// and stay within a stated ratio on random ones (printed).
#include <catch2/catch.hpp>
#include <cstdio>
#include <limits>

#include "hyperplan/lifetimes.h"
#include "hyperplan/plan/verify.h"
#include "planner/context.h"
#include "planner/modes.h"
#include "planner_support.h"
#include "random_graphs.h"

using namespace hyperplan;
using namespace hyperplan::planner;
using namespace hyperplan::planner_test;

namespace {

constexpr size_t kMaxOracleCandidates = 9;
constexpr int64_t kInfeasible = std::numeric_limits<int64_t>::max();

struct Oracle {
  int64_t makespan_ns = kInfeasible;  // kInfeasible: no subset fits
  size_t candidates = 0;
};

Oracle BruteForce(const Graph& graph, const HardwareProfile& profile, int64_t budget_bytes) {
  const PlanContext context = BuildContext(graph, profile, ModelOrder(graph), {}, {});
  Oracle oracle;
  oracle.candidates = context.candidates.candidates.size();
  REQUIRE(oracle.candidates <= kMaxOracleCandidates);
  Baseline baseline;
  baseline.peak_bytes = context.lifetimes.timeline.peak_bytes;
  for (uint32_t mask = 0; mask < (1u << oracle.candidates); ++mask) {
    std::vector<uint8_t> allowed(oracle.candidates);
    for (size_t c = 0; c < oracle.candidates; ++c) allowed[c] = (mask >> c) & 1u;
    // A subset that could not fit even if every gap freed all the steps it covers is skipped
    // (a necessary condition, so the optimum is unchanged).
    bool may_fit = true;
    for (Step k = 0; k < context.step_count() && may_fit; ++k) {
      int64_t bytes = context.base_live_bytes()[k];
      for (size_t c = 0; c < oracle.candidates; ++c) {
        const Candidate& candidate = context.candidates.candidates[c];
        if (allowed[c] && candidate.cover_first <= k && k <= candidate.cover_last) {
          bytes -= candidate.bytes;
        }
      }
      may_fit = bytes <= budget_bytes;
    }
    if (!may_fit) continue;
    const Outcome outcome = PlanToBudget(context, budget_bytes, baseline, &allowed);
    if (outcome.feasible) {
      // Only a valid plan may set the optimum the planner is held to.
      const VerifyResult verdict = VerifyPlan(graph, profile, outcome.plan, outcome.evaluation);
      INFO("subset " << mask << ": " << verdict.message);
      REQUIRE(verdict.ok);
      oracle.makespan_ns = std::min(oracle.makespan_ns, outcome.evaluation.timeline.makespan_ns);
    }
  }
  return oracle;
}

// Planner makespan at the budget, or kInfeasible. One run, as the oracle's context plans.
int64_t PlannerMakespan(const Graph& graph, const HardwareProfile& profile, int64_t budget) {
  PlanOptions options = Budget(budget);
  options.single_run = true;
  const PlanResult result = PlanAndVerify(graph, profile, options);
  if (result.status != PlanStatus::kPlanned) return kInfeasible;
  CHECK(result.plan.layout.arena_bytes <= budget);
  return result.evaluation.timeline.makespan_ns;
}

void ExpectOptimal(const Graph& graph, int64_t budget) {
  const HardwareProfile profile = UnitProfile();
  const Oracle oracle = BruteForce(graph, profile, budget);
  REQUIRE(oracle.makespan_ns != kInfeasible);
  CHECK(PlannerMakespan(graph, profile, budget) == oracle.makespan_ns);
}

}  // namespace

TEST_CASE("oracle: designed cases hit the optimum") {
  SECTION("skip value hidden exactly") {
    Graph graph;
    const ValueId s = Work(graph, "n0", {}, "s", 100, 10);
    const ValueId a = Work(graph, "n1", {s}, "a", 1, 100);
    const ValueId b = Work(graph, "n2", {a}, "b", 1, 50, 200);
    const ValueId c = Work(graph, "n3", {b}, "c", 1, 100);
    MarkOutput(graph, Work(graph, "n4", {c, s}, "y", 1, 10));
    ExpectOptimal(graph, 250);  // 270 ns, no stall
  }
  SECTION("slack short by 7 ns") {
    Graph graph;
    const ValueId s = Work(graph, "n0", {}, "s", 100, 10);
    const ValueId a = Work(graph, "n1", {s}, "a", 1, 100);
    const ValueId b = Work(graph, "n2", {a}, "b", 1, 50, 200);
    const ValueId c = Work(graph, "n3", {b}, "c", 1, 93);
    MarkOutput(graph, Work(graph, "n4", {c, s}, "y", 1, 10));
    ExpectOptimal(graph, 250);  // 263 + 7 ns: nothing else can free step 2
  }
  SECTION("two transfers on one link") {
    Graph graph;
    const ValueId s1 = Work(graph, "n0", {}, "s1", 100, 10);
    const ValueId s2 = Work(graph, "n1", {s1}, "s2", 100, 10);
    const ValueId a = Work(graph, "n2", {s2}, "a", 1, 200);
    const ValueId b = Work(graph, "n3", {a}, "b", 1, 50, 300);
    const ValueId c = Work(graph, "n4", {b}, "c", 1, 200);
    MarkOutput(graph, Work(graph, "n5", {c, s1, s2}, "y", 1, 10));
    ExpectOptimal(graph, 310);  // 480 ns
  }
  SECTION("rank trap: the best-ranked candidate stalls, a lower one hides") {
    //   n0 () -> A (200 B)  10 ns      T = [0, 10, 20, 30, 130, 1130, 1140]
    //   n1 A -> a           10 ns
    //   n2 a -> b           10 ns, 300 B scratch  (peak: 200 + 50 + 1 + 1 + 300 = 552)
    //   n3 b -> c          100 ns
    //   n4 c, B -> d      1000 ns      (B: 50 B weight)
    //   n5 d, A -> y        10 ns
    // A ranks first (200 B x 1110 ns / 400 ns) but its Store cannot finish before step 2
    // (190 ns stall); B (50 B x 130 ns / 50 ns) hides its Prefetch in [80, 130).
    Graph graph;
    const ValueId big_b = Weight(graph, "B", 50);
    const ValueId big_a = Work(graph, "n0", {}, "A", 200, 10);
    const ValueId a = Work(graph, "n1", {big_a}, "a", 1, 10);
    const ValueId b = Work(graph, "n2", {a}, "b", 1, 10, 300);
    const ValueId c = Work(graph, "n3", {b}, "c", 1, 100);
    const ValueId d = Work(graph, "n4", {c, big_b}, "d", 1, 1000);
    MarkOutput(graph, Work(graph, "n5", {d, big_a}, "y", 1, 10));
    ExpectOptimal(graph, 510);  // 1140 ns: B out, no stall
  }
}

TEST_CASE("oracle: random small graphs stay within the stated ratio") {
  // Stated bound: the planner's makespan is at most 1.5x the oracle's, and feasible whenever
  // the oracle is (the property "peak <= budget whenever the oracle says feasible"). Most
  // cases match the oracle exactly; the rest lose to arena fragmentation, which pushes the
  // budget mode to cut deeper with stalls where another subset happens to pack tighter.
  constexpr double kStatedRatio = 1.5;
  const HardwareProfile profile = UnitProfile();
  RandomGraphShape shape;
  shape.nodes = 7;
  int compared = 0;
  double worst = 1.0;
  double sum = 0.0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    const Graph graph = RandomDag(seed, shape);
    const PlanContext context = BuildContext(graph, profile, ModelOrder(graph), {}, {});
    const size_t candidates = context.candidates.candidates.size();
    if (candidates == 0 || candidates > kMaxOracleCandidates) continue;
    const int64_t peak = context.lifetimes.timeline.peak_bytes;
    for (int percent : {85, 65}) {
      const int64_t budget = peak * percent / 100;
      const Oracle oracle = BruteForce(graph, profile, budget);
      if (oracle.makespan_ns == kInfeasible) continue;
      const int64_t planned = PlannerMakespan(graph, profile, budget);
      INFO("seed " << seed << " budget " << budget << " (" << percent << "% of " << peak << ")");
      REQUIRE(planned != kInfeasible);
      const double ratio = static_cast<double>(planned) / static_cast<double>(oracle.makespan_ns);
      ++compared;
      sum += ratio;
      worst = std::max(worst, ratio);
      CHECK(ratio <= kStatedRatio);
    }
  }
  std::printf("oracle: %d random cases, planner/oracle makespan mean %.4f, worst %.4f\n", compared,
              compared ? sum / compared : 1.0, worst);
  CHECK(compared >= 20);
}
