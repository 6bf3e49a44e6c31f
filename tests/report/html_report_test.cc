// The HTML report (src/report/html_report.h): well-formed, self-contained, carrying the plan's
// numbers (computed here from the plan's own fields), bounded in size for big plans.
#include "report/html_report.h"

#include <catch2/catch.hpp>

#include "hyperplan/loop.h"
#include "hyperplan/units.h"
#include "report/device_memory.h"
#include "report/html_checker.h"
#include "report/plan_facts.h"
#include "report/sample_plans.h"

using namespace hyperplan;
using hyperplan::report::ReportProvenance;
using hyperplan::testing::CheckHtml;
using hyperplan::testing::ComputeFacts;
using hyperplan::testing::ExpectedPercentChange;
using hyperplan::testing::HtmlDocument;
using hyperplan::testing::PlanFacts;
using hyperplan::testing::SamplePlan;

namespace {

ReportProvenance Provenance(const SamplePlan& sample) {
  ReportProvenance provenance;
  provenance.model_path = sample.model_path.empty() ? "in-memory/tiny.onnx" : sample.model_path;
  provenance.tool_version = "hyperplan 9.8.7-test";
  provenance.options = sample.options;
  provenance.command_line = "hyperplan plan model.onnx --report out.html";
  return provenance;
}

std::string Render(const SamplePlan& sample) {
  return report::HtmlReport(sample.graph, sample.profile, sample.plan, sample.evaluation,
                            Provenance(sample));
}

// The cell `id` shows `text` and carries `value` exactly in `attribute`.
void CheckCell(const HtmlDocument& doc, const std::string& id, const std::string& attribute,
               int64_t value, const std::string& text) {
  INFO("cell " << id);
  REQUIRE(doc.by_id.count(id) == 1);
  const auto& cell = doc.by_id.at(id);
  CHECK(cell.text == text);
  REQUIRE(cell.attributes.count(attribute) == 1);
  CHECK(cell.attributes.at(attribute) == std::to_string(value));
}

void CheckBytes(const HtmlDocument& doc, const std::string& id, int64_t bytes) {
  CheckCell(doc, id, "data-bytes", bytes, FormatBytes(bytes));
}

void CheckNs(const HtmlDocument& doc, const std::string& id, int64_t ns) {
  CheckCell(doc, id, "data-ns", ns, FormatDuration(ns));
}

void CheckCount(const HtmlDocument& doc, const std::string& id, int64_t count) {
  CheckCell(doc, id, "data-count", count, std::to_string(count));
}

// Every summary number the report prints, against the facts computed from the plan.
void CheckSummaryNumbers(const SamplePlan& sample, const HtmlDocument& doc) {
  const PlanFacts facts =
      ComputeFacts(sample.graph, sample.profile, sample.plan, sample.evaluation);
  CheckBytes(doc, "peak-before", facts.baseline_peak_bytes);
  CheckBytes(doc, "peak-after", facts.peak_bytes);
  CHECK(doc.by_id.at("peak-change").text ==
        ExpectedPercentChange(facts.peak_bytes - facts.baseline_peak_bytes,
                              facts.baseline_peak_bytes));
  CheckBytes(doc, "arena-after", sample.plan.layout.arena_bytes);
  CheckBytes(doc, "live-bound", sample.plan.layout.live_peak_bytes);
  CheckNs(doc, "makespan-before", facts.baseline_makespan_ns);
  CheckNs(doc, "makespan-after", facts.makespan_ns);
  CHECK(doc.by_id.at("makespan-change").text ==
        ExpectedPercentChange(facts.makespan_ns - facts.baseline_makespan_ns,
                              facts.baseline_makespan_ns));
  CheckNs(doc, "stall", facts.stall_ns);
  CheckNs(doc, "compute", facts.compute_ns);
  // The compute time split by what bounds each node (plan/bottleneck.h): the parts add up to it.
  int64_t bound_ns = 0;
  for (const char* id : {"bound-flops", "bound-hbm", "bound-launches"}) {
    bound_ns += std::stoll(doc.by_id.at(id).attributes.at("data-ns"));
  }
  CHECK(bound_ns == facts.compute_ns);
  CHECK_THAT(doc.by_id.at("bottleneck").text, Catch::Contains("% of the "));
  for (size_t l = 0; l < facts.moved_per_link.size(); ++l) {
    const std::string id = "moved-" + std::to_string(l);
    if (facts.moved_per_link[l] == 0) {
      CHECK(doc.by_id.count(id) == 0);
    } else {
      CheckBytes(doc, id, facts.moved_per_link[l]);
    }
  }
  CheckCount(doc, "ops-prefetch", facts.prefetches);
  CheckCount(doc, "ops-store", facts.stores);
  CheckCount(doc, "ops-detach", facts.detaches);
  CheckCount(doc, "offloaded-values", facts.offloaded_values);
  for (size_t t = 0; t < facts.tier_peaks.size(); ++t) {
    if (static_cast<TierId>(t) == sample.profile.device_tier) continue;
    CheckBytes(doc, "tier-peak-" + std::to_string(t), facts.tier_peaks[t]);
  }
}

void CheckProvenance(const SamplePlan& sample, const HtmlDocument& doc) {
  REQUIRE(doc.by_id.count("provenance") == 1);
  const std::string& text = doc.by_id.at("provenance").text;
  CHECK_THAT(text, Catch::Contains(Provenance(sample).model_path));
  CHECK_THAT(text, Catch::Contains(sample.profile.name));
  CHECK_THAT(text, Catch::Contains(sample.profile.source));
  CHECK_THAT(text, Catch::Contains("hyperplan 9.8.7-test"));
  CHECK_THAT(text, Catch::Contains("hyperplan plan model.onnx --report out.html"));
  for (const auto& [name, size] : sample.graph.bound_dims) {
    CHECK_THAT(text, Catch::Contains(name + "=" + std::to_string(size)));
  }
  if (sample.options.budget_bytes) {
    CHECK_THAT(text, Catch::Contains("device budget " + FormatBytes(*sample.options.budget_bytes)));
  }
}

}  // namespace

TEST_CASE("the tiny plan's report is well-formed and shows its numbers") {
  const SamplePlan sample = testing::TinyOffloadSample();
  const Plan& plan = sample.plan;
  const PlanEvaluation& evaluation = sample.evaluation;
  // The sample does what it was built for: "big" leaves the device and the budget is met.
  REQUIRE(evaluation.fits);
  REQUIRE(evaluation.summary.steps_per_kind[static_cast<size_t>(StepKind::kStore)] >= 1);
  REQUIRE(evaluation.summary.steps_per_kind[static_cast<size_t>(StepKind::kPrefetch)] >= 1);

  const std::string html = Render(sample);
  const HtmlDocument doc = CheckHtml(html);
  CheckSummaryNumbers(sample, doc);
  CheckProvenance(sample, doc);
  // By hand: with nothing offloaded step 2 holds big 4096 + small0 512 + small1 512 + the input
  // 8 (graph inputs stay all run) = 5128 bytes; the nodes run back to back for
  // 100 + 4 x 5000 + 100 = 20200 ns.
  CheckBytes(doc, "peak-before", 5128);
  CheckNs(doc, "makespan-before", 20'200);
  // The graph's name is markup-hostile; it comes back intact, escaped.
  CHECK_THAT(doc.text, Catch::Contains("tiny <offload> & \"friends\""));
  // The biggest decision names the value offloaded and its reason.
  REQUIRE(doc.by_id.count("offloads") == 1);
  CHECK_THAT(doc.by_id.at("offloads").text, Catch::Contains("big"));
  // Small lanes draw one bar per step, each with a tooltip.
  CHECK(doc.element_counts.at("rect") >= static_cast<int>(plan.steps.size()));
  CHECK(doc.element_counts.at("title") >= static_cast<int>(plan.steps.size()));
}

TEST_CASE("the report is self-contained and byte-identical run to run") {
  const SamplePlan sample = testing::TinyOffloadSample();
  const std::string html = Render(sample);
  CHECK(html == Render(sample));
  // CheckHtml rejects <script>, src=, external href, url( and @import.
  CHECK_NOTHROW(CheckHtml(html));
  CHECK(html.find("http://") == html.find("http://www.w3.org/"));  // namespaces only
  CHECK(html.find("https://") == std::string::npos);
}

TEST_CASE("the plan's peak breakdown adds up to the simulated peak") {
  const SamplePlan sample = testing::TinyOffloadSample();
  const report::PeakComposition peak =
      report::DescribePlanPeak(sample.profile, sample.plan, sample.evaluation);
  const PlanFacts facts =
      ComputeFacts(sample.graph, sample.profile, sample.plan, sample.evaluation);
  CHECK(peak.bytes == facts.peak_bytes);
  CHECK(peak.shares_bytes == facts.peak_bytes);
  // Before: the peak is step 2 (work1) with big, small0, small1 and in, largest first.
  const report::BaselineMemory before = report::DescribeBaseline(sample.graph, sample.plan);
  CHECK(before.peak.step == 2);
  CHECK(before.peak.node == sample.graph.FindNode("work1"));
  REQUIRE(before.peak.shares.size() == 4);
  CHECK(before.peak.shares[0].value == sample.graph.FindValue("big"));
  CHECK(before.peak.shares_bytes == 5128);
  // The nodes before it took 100 + 5000 ns.
  CHECK(before.peak.time_ns == 5100);
}

// A decode step whose KV append is in place: past (100 B, input) and present (110 B, output)
// alias, so one iteration holds them as one 110 B buffer. Counted as two buffers the model's
// order would hold past 100 + a 1 + present 110 = 211 B while n1 appends; the planner's
// no-offload reference (the summary's baseline peak) counts the pair once, and the report's
// before curve and peak table must show that same number (Llama-3.1-70B decode at 32k showed
// 143 GiB in the summary and 153 GiB in the chart).
TEST_CASE("the report's no-offload peak is the summary's when the KV append is in place") {
  SamplePlan sample;
  Graph& g = sample.graph;
  g.name = "kv append";
  const ValueId x = testing::Input(g, "x", 1);
  const ValueId past = testing::Input(g, "past_key_values.0.key", 100);
  const ValueId a = testing::Bytes(g, "a", 1);
  testing::Op(g, "n0", "Relu", {x}, {a});
  const ValueId present = testing::Bytes(g, "present.0.key", 110);
  testing::Op(g, "n1", "Concat", {past, a}, {present});
  testing::MarkOutput(g, present);
  const ValueId y = testing::Bytes(g, "y", 1);
  testing::Op(g, "n2", "Relu", {present}, {y});
  testing::MarkOutput(g, y);
  sample.profile = testing::UnitProfile();
  sample.options.aliases = FindAliases(g, {});
  REQUIRE(sample.options.aliases.size() == 1);
  sample.options.node_time_ns = {10, 10, 10};
  PlanResult planned = PlanOffload(sample.graph, sample.profile, sample.options);
  sample.plan = std::move(planned.plan);
  sample.evaluation = std::move(planned.evaluation);
  REQUIRE(sample.plan.periodic);

  const int64_t summary_peak_bytes = sample.evaluation.summary.baseline_peak_bytes;
  const report::BaselineMemory before = report::DescribeBaseline(sample.graph, sample.plan);
  CHECK(before.peak.bytes == summary_peak_bytes);
  CHECK(before.peak.shares_bytes == summary_peak_bytes);
  // past is one 110 B buffer: nothing holds 100 + 110 bytes of KV at once, and present,
  // written into past's buffer, holds no bytes of its own.
  CHECK(summary_peak_bytes < 100 + 110);
  for (const report::PeakShare& share : before.peak.shares) {
    if (share.value == present) CHECK(share.bytes == 0);
  }
  const HtmlDocument doc = CheckHtml(Render(sample));
  CHECK(doc.text.find("What makes the peak before: " + FormatBytes(summary_peak_bytes)) !=
        std::string::npos);
}

TEST_CASE("a bundled model's report is well-formed and shows its numbers") {
  const SamplePlan sample = testing::BundledSample(
      "llama-tiny-decode.onnx", {{"batch", 1}, {"sequence", 1}, {"past_sequence", 64}}, 60);
  const HtmlDocument doc = CheckHtml(Render(sample));
  CheckSummaryNumbers(sample, doc);
  CheckProvenance(sample, doc);
  const report::PeakComposition peak =
      report::DescribePlanPeak(sample.profile, sample.plan, sample.evaluation);
  CHECK(peak.shares_bytes == peak.bytes);
}

TEST_CASE("a baseline plan's report says offloading is off and has no copy lanes") {
  SamplePlan sample = testing::TinyOffloadSample();
  sample.options.offload = false;
  sample.options.budget_bytes.reset();
  PlanResult result = PlanOffload(sample.graph, sample.profile, sample.options);
  sample.plan = std::move(result.plan);
  sample.evaluation = std::move(result.evaluation);
  const HtmlDocument doc = CheckHtml(Render(sample));
  CheckSummaryNumbers(sample, doc);
  CHECK_THAT(doc.text, Catch::Contains("offloading off"));
  CHECK(doc.text.find("\u2192ddr ch") == std::string::npos);
  CheckCount(doc, "ops-prefetch", 0);
}

TEST_CASE("a big plan's report stays small: aggregated, not one element per step") {
  // 6000 layers, each activation read again 50 layers later, planned to 40% of its peak.
  const SamplePlan sample = testing::ChainSample(6'000, 50, 40);
  const Plan& plan = sample.plan;
  const PlanFacts facts = ComputeFacts(sample.graph, sample.profile, plan, sample.evaluation);
  REQUIRE(facts.prefetches > 1000);  // enough transfers that lanes must turn into density
  const std::string html = Render(sample);
  const HtmlDocument doc = CheckHtml(html);
  CheckSummaryNumbers(sample, doc);
  INFO("html bytes " << html.size() << ", elements " << doc.element_total);
  CHECK(html.size() < 1'000'000);
  CHECK(doc.element_total < 5'000);  // against 6000 compute steps and thousands of transfers
}

namespace {

// The cy of the first `<circle class="marker plan"` at or after `from` in `html`.
double PlanMarkerY(const std::string& html, size_t from) {
  const size_t circle = html.find("<circle class=\"marker plan\"", from);
  REQUIRE(circle != std::string::npos);
  const size_t cy = html.find("cy=\"", circle);
  return std::stod(html.substr(cy + 4));
}

}  // namespace

TEST_CASE("the after curve gets its own scale when the before curve dwarfs it") {
  // 40% of the no-offload peak: the after curve sits in the lower part of the shared chart.
  const SamplePlan chain = testing::ChainSample(200, 10, 40);
  REQUIRE(chain.evaluation.summary.peak_bytes * 100 <
          chain.evaluation.summary.baseline_peak_bytes * 60);
  const std::string html = Render(chain);
  const HtmlDocument doc = CheckHtml(html);
  REQUIRE(doc.by_id.count("memory-after-zoom") == 1);
  const std::string& zoom_text = doc.by_id.at("memory-after-zoom").text;
  CHECK_THAT(zoom_text,
             Catch::Contains(
                 "after: peak " +
                 FormatBytes(
                     report::DescribePlanPeak(chain.profile, chain.plan, chain.evaluation).bytes)));
  CHECK(zoom_text.find("before") == std::string::npos);
  // The shared chart is 320 px tall with the plot's floor near 290 px; a peak at 40% of the
  // top sits below its middle (y > 160). In the 220 px zoom the same peak is near the top of
  // the axis (y < 110).
  const size_t zoom_at = html.find("id=\"memory-after-zoom\"");
  CHECK(PlanMarkerY(html, html.find("<section id=\"memory\"")) > 160.0);
  CHECK(PlanMarkerY(html, zoom_at) < 110.0);

  // The tiny plan's peak is within 10% of its before peak: one chart is enough.
  const HtmlDocument tiny = CheckHtml(Render(testing::TinyOffloadSample()));
  CHECK(tiny.by_id.count("memory-after-zoom") == 0);
}

TEST_CASE("the plan's makespan sits beside its lower bound and the best contender") {
  const SamplePlan sample = testing::TinyOffloadSample();
  // Bound and contenders are set relative to the plan's makespan M: the bound is M / 2, so
  // the plan is 2.00x it; contenders at 0.75 M and 1.5 M are 1.50x and 3.00x.
  const int64_t makespan_ns = sample.evaluation.timeline.makespan_ns;
  REQUIRE(makespan_ns % 4 == 0);
  const int64_t bound_ns = makespan_ns / 2;
  report::ReportOutcome outcome;
  outcome.makespan_lower_bound_ns = bound_ns;
  outcome.peak_floor_bytes = 4672;
  outcome.contenders = {{"op distance 4", false, makespan_ns * 3 / 4, 6000, 0},
                        {"layer streaming k=0", true, makespan_ns * 3 / 2, 4000, 8192}};
  outcome.own_makespan_ns = makespan_ns;
  outcome.own_fits = true;
  const HtmlDocument doc = CheckHtml(report::HtmlReport(
      sample.graph, sample.profile, sample.plan, sample.evaluation, Provenance(sample), outcome));
  REQUIRE(doc.by_id.count("comparison-line") == 1);
  const std::string& line = doc.by_id.at("comparison-line").text;
  CHECK_THAT(line, Catch::Contains("2.00\u00d7 the lower bound of " + FormatDuration(bound_ns)));
  // The contender that fits beats the faster one that does not.
  CHECK_THAT(line, Catch::Contains("the best contender, layer streaming k=0, runs " +
                                   FormatDuration(makespan_ns * 3 / 2)));
  CHECK_THAT(doc.by_id.at("comparison-contender-1").text, Catch::Contains("best contender"));
  CHECK_THAT(doc.by_id.at("comparison-contender-0").text, Catch::Contains("no"));
  // 0.75 M / (M / 2) = 1.50; 1.5 M / (M / 2) = 3.00.
  CHECK_THAT(doc.by_id.at("comparison-contender-0").text, Catch::Contains("1.50\u00d7"));
  CHECK_THAT(doc.by_id.at("comparison-contender-1").text, Catch::Contains("3.00\u00d7"));
  // The planner's own plan won: no "hyperplan alone" row.
  CHECK(doc.by_id.count("comparison-own") == 0);
  // Without a bound or contenders (a report made outside the CLI) the section is absent.
  CHECK(CheckHtml(Render(sample)).by_id.count("comparison") == 0);
}

TEST_CASE("the report says where compute waits and ranks offloads by the stall they cause") {
  const SamplePlan sample = testing::TinyOffloadSample();
  const PlanEvaluation& evaluation = sample.evaluation;
  // The tiny plan stalls: "consume" waits for big's Prefetch back from ddr.
  REQUIRE(evaluation.timeline.stall_ns > 0);
  const HtmlDocument doc = CheckHtml(Render(sample));
  REQUIRE(doc.by_id.count("stalls") == 1);
  // Every stall waits on big's Prefetch over ddr->hbm (UnitProfile's link 1), so that link
  // carries all of it; hbm->ddr (link 0) carried big's Store and is listed, busy, with none.
  // No layer names exist in this graph.
  CheckNs(doc, "stall-link-1", evaluation.timeline.stall_ns);
  CheckNs(doc, "stall-link-0", 0);
  CHECK(doc.by_id.count("stall-link-none") == 0);
  CheckNs(doc, "stall-layer-none", evaluation.timeline.stall_ns);
  CHECK_THAT(doc.by_id.at("stalls-by-transfer").text, Catch::Contains("big"));
  // The offloads table puts the decision that stalls first, with its simulated stall.
  const std::string& offloads = doc.by_id.at("offloads").text;
  CHECK_THAT(offloads, Catch::Contains("stall (simulated)"));
  CHECK_THAT(offloads, Catch::Contains(FormatDuration(evaluation.timeline.stall_ns)));
}

TEST_CASE("when a contender's plan won, the comparison names it and what hyperplan alone ran") {
  SamplePlan sample = testing::TinyOffloadSample();
  sample.plan.produced_by = "layer streaming k=1";
  const int64_t makespan_ns = sample.evaluation.timeline.makespan_ns;
  report::ReportOutcome outcome;
  outcome.makespan_lower_bound_ns = makespan_ns;
  outcome.contenders = {{"layer streaming k=1", true, makespan_ns, 4000, 8192}};
  outcome.own_makespan_ns = makespan_ns * 2;
  outcome.own_fits = false;
  const HtmlDocument doc = CheckHtml(report::HtmlReport(
      sample.graph, sample.profile, sample.plan, sample.evaluation, Provenance(sample), outcome));
  const std::string& line = doc.by_id.at("comparison-line").text;
  // The plan is the bound itself: 1.00x.
  CHECK_THAT(line, Catch::Contains("1.00\u00d7 the lower bound"));
  CHECK_THAT(line, Catch::Contains("it is the best contender's, layer streaming k=1, where "
                                   "hyperplan alone runs " +
                                   FormatDuration(makespan_ns * 2) + " and does not fit"));
  REQUIRE(doc.by_id.count("comparison-own") == 1);
  CHECK_THAT(doc.by_id.at("comparison-own").text, Catch::Contains("2.00\u00d7"));
}

TEST_CASE("a plan over its budget is not set against the lower bound") {
  SamplePlan sample = testing::TinyOffloadSample();
  sample.options.budget_bytes = 4000;  // below "consume"'s own 4672 bytes: nothing fits
  PlanResult planned = PlanOffload(sample.graph, sample.profile, sample.options);
  sample.plan = std::move(planned.plan);
  sample.evaluation = std::move(planned.evaluation);
  REQUIRE(!sample.evaluation.fits);
  report::ReportOutcome outcome;
  outcome.makespan_lower_bound_ns = sample.evaluation.timeline.makespan_ns * 4;
  outcome.contenders = {{"layer streaming k=0", false, 30'000, 4000, 8192}};
  const HtmlDocument doc = CheckHtml(report::HtmlReport(
      sample.graph, sample.profile, sample.plan, sample.evaluation, Provenance(sample), outcome));
  CHECK(doc.by_id.count("comparison-bound") == 0);
  const std::string& line = doc.by_id.at("comparison-line").text;
  CHECK(line.find("the lower bound of") == std::string::npos);
  CHECK_THAT(line, Catch::Contains("holds only for plans within the budget"));
  CHECK_THAT(doc.by_id.at("comparison-plan").text, Catch::Contains("n/a"));
}

TEST_CASE("a contender's plan says it explains no decisions instead of listing none") {
  SamplePlan sample = testing::TinyOffloadSample();
  sample.plan.produced_by = "layer streaming k=0";
  sample.plan.decisions.clear();
  const HtmlDocument doc = CheckHtml(Render(sample));
  REQUIRE(doc.by_id.count("decisions-contender") == 1);
  CHECK_THAT(doc.by_id.at("decisions-contender").text,
             Catch::Contains("layer streaming k=0's, which beat the planner's own"));
  CHECK(doc.by_id.count("offloads") == 0);
}
