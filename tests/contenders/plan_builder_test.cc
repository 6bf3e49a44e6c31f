// PlanBuilder: the bookkeeping every contender shares (plan_builder.h). Unit rates as in
// contender_support.h, times in plain arithmetic beside each assertion.
#include "contenders/plan_builder.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "contender_support.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::BuildContenderContext;
using contenders::PlanBuilder;

TEST_CASE("plan builder: each transfer takes the channel of its link that frees first") {
  // n0(x 10 B, w0 300 B, w1 100 B, w2 100 B) -> y (10 B), 10 ns; the weights homed in ddr.
  // ddr -> hbm has two channels sharing 2 bytes/ns: 1 byte/ns each.
  Graph graph;
  const ValueId x = Input(graph, "x", 10);
  const ValueId w0 = Weight(graph, "w0", 300);
  const ValueId w1 = Weight(graph, "w1", 100);
  const ValueId w2 = Weight(graph, "w2", 100);
  const ValueId y = Bytes(graph, "y", 10);
  Op(graph, "n0", "Work", {x, w0, w1, w2}, {y});
  MarkOutput(graph, y);
  HardwareProfile profile = UnitProfile();
  profile.links[1].bandwidth_bytes_per_s = 2'000'000'000;  // ddr -> hbm
  profile.links[1].channels = 2;
  const auto context = BuildContenderContext(graph, profile, {10});
  PlanBuilder builder(context);
  builder.OpenAtStart(x);
  const int32_t fetch_w0 = builder.Fetch(w0, 0);
  const int32_t fetch_w1 = builder.Fetch(w1, 0);
  const int32_t fetch_w2 = builder.Fetch(w2, 0);
  const int32_t compute = builder.Compute(0);
  const auto [plan, evaluation] = builder.Finish({});
  RequireVerified(graph, profile, plan, evaluation);
  // w0 on channel 0 (0..300), w1 on channel 1 (0..100); w2 takes channel 1 again, free at 100
  // (100..200), not channel 0 (round robin: 300..400). n0 waits for all three: 300..310.
  CHECK(plan.steps[fetch_w0].channel == 0);
  CHECK(plan.steps[fetch_w1].channel == 1);
  CHECK(plan.steps[fetch_w2].channel == 1);
  CHECK(evaluation.timeline.steps[fetch_w2].end_ns == 200);
  CHECK(evaluation.timeline.steps[compute].start_ns == 300);
  CHECK(evaluation.timeline.steps[compute].end_ns == 310);
}

TEST_CASE("plan builder: a run of no steps opens nothing at its start, and drafts") {
  // Issue 32: a graph of no nodes whose input 'pixel_values' (12 B) no node reads. OpenAtStart
  // opened it at step 0, and Draft, closing what is open after the last step, closed it after
  // step -1: "cannot leave the device after step -1". With no step there is nothing to be
  // resident in, as in the planner's plan of the graph (no residency).
  Graph graph;
  const ValueId pixels = Input(graph, "pixel_values", 12);
  const ValueId w = Weight(graph, "w", 100);
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(graph, profile);
  REQUIRE(context.step_count() == 0);
  PlanBuilder builder(context);
  builder.OpenAtStart(pixels);
  builder.OpenAtStart(w);
  CHECK_FALSE(builder.Resident(pixels));
  CHECK_FALSE(builder.Resident(w));
  const auto [plan, evaluation] = builder.Finish({});
  RequireVerified(graph, profile, plan, evaluation);
  CHECK(plan.steps.empty());
  CHECK(plan.residency.empty());
  CHECK(plan.layout.arena_bytes == 0);
  CHECK(evaluation.timeline.makespan_ns == 0);
  CHECK(evaluation.fits);
}

TEST_CASE("plan builder: an input no node reads stays resident through the last step") {
  // pixel_values (12 B) unread beside n0(x 10 B) -> y (10 B): owned outside the run, it is
  // resident from the start to the end (step 0), as the lifetimes baseline has it.
  Graph graph;
  const ValueId pixels = Input(graph, "pixel_values", 12);
  const ValueId x = Input(graph, "x", 10);
  const ValueId y = Bytes(graph, "y", 10);
  Op(graph, "n0", "Work", {x}, {y});
  MarkOutput(graph, y);
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(graph, profile, {10});
  PlanBuilder builder(context);
  builder.OpenAtStart(pixels);
  builder.OpenAtStart(x);
  builder.Compute(0);
  const auto [plan, evaluation] = builder.Finish({});
  RequireVerified(graph, profile, plan, evaluation);
  const auto interval = std::find_if(plan.residency.begin(), plan.residency.end(),
                                     [&](const ResidentInterval& r) { return r.value == pixels; });
  REQUIRE(interval != plan.residency.end());
  CHECK(interval->first_step == 0);
  CHECK(interval->last_step == 0);
  CHECK(interval->opened_by == -1);
  CHECK(interval->closed_by == -1);
}

}  // namespace
}  // namespace hyperplan::contenders_test
