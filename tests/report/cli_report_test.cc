// End-to-end: `hyperplan plan --report --trace` writes both files, well-formed, with the plan's
// numbers; output paths that are inputs are refused before any work.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "report/html_checker.h"
#include "report/json_reader.h"
#include "support/run_command.h"

using hyperplan::testing::CheckHtml;
using hyperplan::testing::HtmlDocument;
using hyperplan::testing::ParseJson;
using hyperplan::testing::ReadWholeFile;
using hyperplan::testing::RunCommand;

namespace {

const std::string kModel = std::string(HYPERPLAN_SOURCE_DIR) + "/models/llama-tiny-decode.onnx";

std::vector<std::string> PlanArgs(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {HYPERPLAN_CLI_PATH, "plan",     kModel,       "--dim",
                                   "batch=1",          "--dim",    "sequence=1", "--dim",
                                   "past_sequence=64", "--budget", "1MiB"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::filesystem::path TempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("hyperplan-report-" + std::to_string(getpid()) + "-" + name);
}

}  // namespace

TEST_CASE("plan --report --trace writes a well-formed page and a valid trace") {
  const auto html_path = TempPath("plan.html");
  const auto trace_path = TempPath("plan.json");
  const auto result =
      RunCommand(PlanArgs({"--report", html_path.string(), "--trace", trace_path.string()}));
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.stdout_text, Catch::Contains("wrote " + html_path.string()));
  CHECK_THAT(result.stdout_text, Catch::Contains("wrote " + trace_path.string()));
  // stderr is a file here, not a terminal: no progress line.
  CHECK(result.stderr_text.find('\r') == std::string::npos);

  const HtmlDocument doc = CheckHtml(ReadWholeFile(html_path));
  // The summary the CLI prints and the page agree on the peak after the plan.
  const std::string peak_text = doc.by_id.at("peak-after").text;
  CHECK_THAT(result.stdout_text, Catch::Contains("-> " + peak_text + " ("));
  CHECK_THAT(doc.by_id.at("provenance").text, Catch::Contains("llama-tiny-decode.onnx"));
  CHECK_THAT(doc.by_id.at("provenance").text, Catch::Contains("past_sequence=64"));
  // A budget run: the plan passed its gate (green), and sits beside its lower bound and the
  // portfolio's seven other policies (contenders/portfolio.h), rows 0..6.
  CHECK(doc.by_id.at("verdict").attributes.at("class") == "badge good");
  CHECK(doc.by_id.count("comparison-bound") == 1);
  CHECK(doc.by_id.count("comparison-contender-6") == 1);
  CHECK(doc.by_id.count("comparison-contender-7") == 0);
  const auto trace = ParseJson(ReadWholeFile(trace_path));
  CHECK(!trace.at("traceEvents").empty());
  std::filesystem::remove(html_path);
  std::filesystem::remove(trace_path);
}

TEST_CASE("plan refuses a report or trace path that is one of its inputs") {
  const auto report = RunCommand(PlanArgs({"--report", kModel}));
  CHECK(report.exit_code == 2);
  CHECK_THAT(report.stderr_text, Catch::Contains("--report"));
  const auto trace = RunCommand(PlanArgs({"--trace", kModel, "--quiet"}));
  CHECK(trace.exit_code == 2);
  CHECK_THAT(trace.stderr_text, Catch::Contains("--trace"));
}

TEST_CASE("plan --report to an unwritable place exits 9") {
  const auto result = RunCommand(PlanArgs({"--report", "/nonexistent-dir/x/plan.html"}));
  CHECK(result.exit_code == 9);
  CHECK_THAT(result.stderr_text, Catch::Contains("/nonexistent-dir/x/plan.html"));
}

TEST_CASE("plan --trace FILE.pftrace writes Perfetto's protobuf format, not JSON") {
  const auto trace_path = TempPath("plan.pftrace");
  const auto result = RunCommand(PlanArgs({"--trace", trace_path.string(), "--quiet"}));
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  const std::string bytes = ReadWholeFile(trace_path);
  REQUIRE(bytes.size() > 2);
  // A Trace's first byte is the tag of field 1 (packet), length-delimited: (1 << 3) | 2.
  CHECK(bytes[0] == '\x0a');
  CHECK(bytes.find("\"traceEvents\"") == std::string::npos);
  std::filesystem::remove(trace_path);
}
