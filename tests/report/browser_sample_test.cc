// Not run by default (hidden tag): writes sample reports and traces for tests/report/
// browser_test.sh, which renders them in headless Chromium, and for people to look at.
// HYPERPLAN_REPORT_OUT names the directory.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "report/chrome_trace.h"
#include "report/html_report.h"
#include "report/sample_plans.h"

namespace {

void WriteSample(const hyperplan::testing::SamplePlan& sample, const std::string& stem,
                 const hyperplan::report::ReportOutcome& outcome = {}) {
  const char* dir = std::getenv("HYPERPLAN_REPORT_OUT");
  REQUIRE(dir != nullptr);
  std::filesystem::create_directories(dir);
  hyperplan::report::ReportProvenance provenance;
  provenance.model_path = sample.model_path;
  provenance.tool_version = "hyperplan (report tests)";
  provenance.options = sample.options;
  std::ofstream html(std::filesystem::path(dir) / (stem + ".html"), std::ios::binary);
  hyperplan::report::WriteHtmlReport(html, sample.graph, sample.profile, sample.plan,
                                     sample.evaluation, provenance, outcome);
  std::ofstream trace(std::filesystem::path(dir) / (stem + ".json"), std::ios::binary);
  hyperplan::report::WriteChromeTrace(trace, sample.graph, sample.profile, sample.plan,
                                      sample.evaluation,
                                      {sample.model_path, provenance.tool_version});
  REQUIRE(html.good());
  REQUIRE(trace.good());
}

}  // namespace

TEST_CASE("write sample reports for the browser", "[.browser]") {
  WriteSample(
      hyperplan::testing::BundledSample(
          "llama-tiny-decode.onnx", {{"batch", 1}, {"sequence", 1}, {"past_sequence", 256}}, 60),
      "llama-tiny-decode");
  WriteSample(hyperplan::testing::TinyOffloadSample(), "tiny");
  WriteSample(hyperplan::testing::ChainSample(3000, 40, 40), "chain");
  // The verdicts a gate can give: red with the planner's reason, amber with the gate's.
  hyperplan::testing::SamplePlan infeasible = hyperplan::testing::TinyOffloadSample();
  infeasible.options.budget_bytes = 4000;
  const hyperplan::PlanResult result =
      hyperplan::PlanOffload(infeasible.graph, infeasible.profile, infeasible.options);
  infeasible.plan = result.plan;
  infeasible.evaluation = result.evaluation;
  hyperplan::report::ReportOutcome red;
  red.gate = hyperplan::report::GateVerdict::kInfeasible;
  red.reason = result.infeasibility.message;
  WriteSample(infeasible, "infeasible", red);
  hyperplan::report::ReportOutcome amber;
  amber.gate = hyperplan::report::GateVerdict::kOverOverhead;
  amber.reason = "the plan runs 20.3% over the no-offload makespan, above the target of 1%";
  amber.max_overhead_ppm = 10'000;
  WriteSample(hyperplan::testing::TinyOffloadSample(), "overhead", amber);
}
