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

void WriteSample(const hyperplan::testing::SamplePlan& sample, const std::string& stem) {
  const char* dir = std::getenv("HYPERPLAN_REPORT_OUT");
  REQUIRE(dir != nullptr);
  std::filesystem::create_directories(dir);
  hyperplan::report::ReportProvenance provenance;
  provenance.model_path = sample.model_path;
  provenance.tool_version = "hyperplan (report tests)";
  provenance.options = sample.options;
  std::ofstream html(std::filesystem::path(dir) / (stem + ".html"), std::ios::binary);
  hyperplan::report::WriteHtmlReport(html, sample.graph, sample.profile, sample.plan, provenance);
  std::ofstream trace(std::filesystem::path(dir) / (stem + ".json"), std::ios::binary);
  hyperplan::report::WriteChromeTrace(trace, sample.graph, sample.profile, sample.plan,
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
}
