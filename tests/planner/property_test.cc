// Properties on random DAGs (fixed seeds, printed on failure): every plan verifies, fits its
// budget when it says so, and is identical when planned twice.
#include <catch2/catch.hpp>
#include <sstream>

#include "hyperplan/lifetimes.h"
#include "planner_support.h"
#include "random_graphs.h"

using namespace hyperplan;
using namespace hyperplan::planner_test;

namespace {

// Everything a plan says, as text: two plans are identical iff their dumps are.
std::string Dump(const PlanResult& result) {
  const Plan& plan = result.plan;
  const PlanEvaluation& evaluation = result.evaluation;
  std::ostringstream out;
  out << static_cast<int>(result.status) << " " << result.infeasibility.message << "\n";
  for (NodeId node : plan.order) out << node << ",";
  out << "\n" << plan.reordered << plan.offload_enabled << evaluation.fits << "\n";
  for (const PlanStep& s : plan.steps) {
    out << static_cast<int>(s.kind) << " " << s.node << " " << s.value << " " << s.src_tier << " "
        << s.dst_tier << " " << s.link << " " << s.channel << " " << s.bytes << " " << s.boundary
        << " " << s.planned_start_ns << " " << s.planned_end_ns << " [";
    for (int32_t w : s.waits_for) out << w << ",";
    out << "]\n";
  }
  for (size_t r = 0; r < plan.residency.size(); ++r) {
    const ResidentInterval& i = plan.residency[r];
    out << i.value << " " << i.scratch_node << " " << i.first_step << " " << i.last_step << " "
        << i.bytes << " " << i.opened_by << " " << i.closed_by << " @"
        << plan.layout.offset_bytes[r] << "\n";
  }
  for (const TierCopy& c : plan.tier_copies) {
    out << c.value << " " << c.tier << " " << c.opened_by << " " << c.closed_by << "\n";
  }
  for (const Decision& d : plan.decisions) {
    out << d.value << " " << d.gap_after_step << " " << d.gap_before_step << " "
        << static_cast<int>(d.reason) << " " << d.detail << " " << d.freed_first_step << " "
        << d.freed_last_step << " " << d.predicted_stall_ns << "\n";
  }
  for (const StepTiming& t : evaluation.timeline.steps) out << t.start_ns << "-" << t.end_ns << ",";
  out << "\n"
      << plan.layout.arena_bytes << " " << evaluation.summary.peak_bytes << " "
      << evaluation.summary.makespan_ns << "\n";
  return out.str();
}

}  // namespace

TEST_CASE("property: random DAGs plan, verify and fit, in both modes") {
  RandomGraphShape shape;
  int planned = 0;
  int infeasible = 0;
  for (uint32_t seed = 100; seed < 160; ++seed) {
    shape.nodes = 10 + static_cast<int>(seed % 40);
    const Graph graph = RandomDag(seed, shape);
    const HardwareProfile profile = seed % 3 == 0 ? NvmeProfile() : UnitProfile();
    const int64_t peak = AnalyzeLifetimes(graph, ModelOrder(graph)).timeline.peak_bytes;
    for (int percent : {100, 70, 40}) {
      INFO("seed " << seed << " nodes " << shape.nodes << " budget " << percent << "% of " << peak);
      PlanOptions options;
      options.budget_bytes = peak * percent / 100;
      options.allow_reorder = seed % 2 == 0;
      const PlanResult result = PlanAndVerify(graph, profile, options);  // verifies
      if (result.status == PlanStatus::kPlanned) {
        ++planned;
        CHECK(result.plan.layout.arena_bytes <= *options.budget_bytes);
        CHECK(result.evaluation.summary.peak_bytes <= *options.budget_bytes);
      } else {
        ++infeasible;
        CHECK(result.infeasibility.lowest_peak_bytes > 0);
        CHECK(result.infeasibility.blocking_node != kNoNode);
      }
    }
    PlanOptions no_budget;
    no_budget.allow_reorder = seed % 2 == 0;
    const PlanResult cut = PlanAndVerify(graph, profile, no_budget);
    CHECK(cut.evaluation.timeline.makespan_ns - cut.evaluation.timeline.baseline_makespan_ns <=
          cut.evaluation.timeline.baseline_makespan_ns / 100);
    CHECK(cut.plan.layout.live_peak_bytes <= peak);
  }
  CHECK(planned > 0);
  CHECK(infeasible > 0);
}

TEST_CASE("property: the same inputs give the identical plan") {
  RandomGraphShape shape;
  shape.nodes = 60;
  for (uint32_t seed : {7u, 8u, 9u}) {
    INFO("seed " << seed);
    const Graph graph = RandomDag(seed, shape);
    const HardwareProfile profile = UnitProfile();
    const int64_t peak = AnalyzeLifetimes(graph, ModelOrder(graph)).timeline.peak_bytes;
    PlanOptions options;
    options.budget_bytes = peak / 2;
    const std::string first = Dump(PlanOffload(graph, profile, options));
    const std::string second = Dump(PlanOffload(graph, profile, options));
    CHECK(first == second);
    const std::string cut_first = Dump(PlanOffload(graph, profile, {}));
    const std::string cut_second = Dump(PlanOffload(graph, profile, {}));
    CHECK(cut_first == cut_second);
  }
}
