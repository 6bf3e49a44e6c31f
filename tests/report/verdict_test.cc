// The report's verdict (src/report/header_section.cc): red with the planner's reason when no
// plan fits, amber with the gate's reason when the plan misses its overhead target, green only
// when nothing failed.
#include <catch2/catch.hpp>

#include "report/html_checker.h"
#include "report/html_report.h"
#include "report/sample_plans.h"

using namespace hyperplan;
using hyperplan::report::GateVerdict;
using hyperplan::report::ReportOutcome;
using hyperplan::testing::CheckHtml;
using hyperplan::testing::HtmlDocument;
using hyperplan::testing::SamplePlan;

namespace {

HtmlDocument Render(const SamplePlan& sample, const ReportOutcome& outcome) {
  report::ReportProvenance provenance;
  provenance.model_path = "in-memory/tiny.onnx";
  provenance.tool_version = "hyperplan test";
  provenance.options = sample.options;
  return CheckHtml(report::HtmlReport(sample.graph, sample.profile, sample.plan, sample.evaluation,
                                      provenance, outcome));
}

ReportOutcome Gate(GateVerdict verdict, std::string reason,
                   std::optional<int64_t> max_overhead_ppm) {
  ReportOutcome outcome;
  outcome.gate = verdict;
  outcome.reason = std::move(reason);
  outcome.max_overhead_ppm = max_overhead_ppm;
  return outcome;
}

std::string BadgeClass(const HtmlDocument& doc) {
  REQUIRE(doc.by_id.count("verdict") == 1);
  return doc.by_id.at("verdict").attributes.at("class");
}

}  // namespace

TEST_CASE("a plan that fits and passes its gate gets a green badge and no reason") {
  const SamplePlan sample = testing::TinyOffloadSample();
  REQUIRE(sample.evaluation.fits);
  const HtmlDocument doc = Render(sample, Gate(GateVerdict::kPassed, "", std::nullopt));
  CHECK(BadgeClass(doc) == "badge good");
  CHECK(doc.by_id.count("verdict-reason") == 0);
  // The tiny sample's budget is 4672 bytes: "4.56 KiB".
  CHECK_THAT(doc.by_id.at("verdict").text, Catch::Contains("fits the 4.56 KiB budget"));
}

TEST_CASE("an infeasible plan's page says why at the top, in red") {
  SamplePlan sample = testing::TinyOffloadSample();
  // The "consume" step needs big 4096 + small3 512 + out 64 = 4672 bytes at once, so a
  // 4000-byte budget is below that node's own floor: no plan fits.
  sample.options.budget_bytes = 4000;
  const PlanResult result = PlanOffload(sample.graph, sample.profile, sample.options);
  REQUIRE(result.status == PlanStatus::kInfeasible);
  REQUIRE(!result.infeasibility.message.empty());
  sample.plan = result.plan;
  sample.evaluation = result.evaluation;
  const HtmlDocument doc =
      Render(sample, Gate(GateVerdict::kInfeasible, result.infeasibility.message, std::nullopt));
  CHECK(BadgeClass(doc) == "badge bad");
  REQUIRE(doc.by_id.count("verdict-reason") == 1);
  CHECK(doc.by_id.at("verdict-reason").attributes.at("class") == "alert bad");
  CHECK_THAT(doc.by_id.at("verdict-reason").text, Catch::Contains("Why no plan fits"));
  CHECK_THAT(doc.by_id.at("verdict-reason").text,
             Catch::Contains(result.infeasibility.message.substr(0, 20)));
  // The reason comes before the first section: it is the first thing a reader sees.
  CHECK(doc.text.find("Why no plan fits") < doc.text.find("Device memory"));
}

TEST_CASE("a plan without a gate that does not fit is red with the arena as the reason") {
  SamplePlan sample = testing::TinyOffloadSample();
  sample.options.budget_bytes = 4000;
  PlanResult planned = PlanOffload(sample.graph, sample.profile, sample.options);
  sample.plan = std::move(planned.plan);
  sample.evaluation = std::move(planned.evaluation);
  REQUIRE(!sample.evaluation.fits);
  const HtmlDocument doc = Render(sample, {});
  CHECK(BadgeClass(doc) == "badge bad");
  CHECK_THAT(doc.by_id.at("verdict-reason").text, Catch::Contains("above the 3.91 KiB budget"));
}

TEST_CASE("a missed overhead target is amber with the gate's reason, never green") {
  const SamplePlan sample = testing::TinyOffloadSample();
  REQUIRE(sample.evaluation.fits);
  const std::string reason =
      "the plan runs in 21 us, 4.0% over the no-offload 20.2 us, above the overhead target of 1%";
  const HtmlDocument doc = Render(sample, Gate(GateVerdict::kOverOverhead, reason, 10'000));
  CHECK(BadgeClass(doc) == "badge warn");
  // 10'000 ppm is 1.0%.
  CHECK_THAT(doc.by_id.at("verdict").text, Catch::Contains("misses the overhead target of 1.0%"));
  CHECK(doc.by_id.at("verdict-reason").attributes.at("class") == "alert warn");
  CHECK_THAT(doc.by_id.at("verdict-reason").text, Catch::Contains(reason));
  CHECK(doc.text.find("badge good") == std::string::npos);
}
