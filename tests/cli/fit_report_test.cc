// End-to-end: `hyperplan fit --report FILE.html`. The page is well-formed polyglot markup,
// byte-identical run to run, has one point per row in each chart (ids from the same run's
// --json: an independent path through the proto), the answer ringed where its point is, rows
// that do not fit drawn hollow, axes labelled in the text output's units, and --report is
// refused when it names an input.
// Oracles: the contrib model's arena arithmetic (fit_cli_test.cc: 313,888 + 1,024 P bytes on a
// byte-aligned 1 MB device), the scales' arithmetic in the comments, and the run's own JSON.
#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "report/html_checker.h"
#include "schemas/fit.pb.h"
#include "support/run_command.h"

using hyperplan::testing::CheckHtml;
using hyperplan::testing::CommandResult;
using hyperplan::testing::HtmlDocument;
using hyperplan::testing::RunCommand;
namespace fs = std::filesystem;
namespace fitpb = hyperplan::fit::v1;

namespace {

const std::string kContrib =
    std::string(HYPERPLAN_SOURCE_DIR) + "/models/llama-tiny-decode-contrib.onnx";

fs::path Temp(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("hyperplan-fit-report-" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir / name;
}

// The unit-rate machines of fit_cli_test.cc: a 1 MB byte-aligned device at 1 FLOP/ns and
// 1 byte/ns, alone or with 1 GB of host memory behind a 1 byte/ns link.
std::string UnitProfile(bool two_tier) {
  const fs::path path = Temp(two_tier ? "two-tier.yaml" : "device-only.yaml");
  std::ofstream out(path);
  out << "name: unit\ntiers:\n  - {name: hbm, capacity: 1MB, device: true, alignment: 1B}\n";
  if (two_tier) {
    out << "  - {name: ddr, capacity: 1GB, alignment: 1B}\nlinks:\n"
           "  - {from: ddr, to: hbm, bandwidth: 1GB/s, reverse_bandwidth: 1GB/s}\n";
  }
  out << "compute:\n  peak: {float: 1GFLOPS}\n  memory_bandwidth: 1GB/s\n  efficiency: 1\n"
         "  kernel_launch_overhead: 0ns\n";
  return path.string();
}

CommandResult Fit(const std::string& profile, std::vector<std::string> extra) {
  std::vector<std::string> args = {
      HYPERPLAN_CLI_PATH, "fit",   kContrib,     "--hw",   profile, "--dim",
      "batch=1",          "--dim", "sequence=1", "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunCommand(args);
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

fitpb::FitReport ParseJson(const CommandResult& result) {
  fitpb::FitReport report;
  INFO(result.stdout_text);
  REQUIRE(google::protobuf::util::JsonStringToMessage(result.stdout_text, &report).ok());
  return report;
}

// Circles whose id starts with "<chart>-point-".
int PointCount(const HtmlDocument& doc, const std::string& chart) {
  int count = 0;
  for (const auto& [id, element] : doc.by_id) {
    if (id.rfind(chart + "-point-", 0) == 0 && element.name == "circle") ++count;
  }
  return count;
}

const char* const kCharts[] = {"tokens", "time", "arena", "overhead"};

}  // namespace

TEST_CASE("fit --sweep --report: one point per row, the answer ringed, misses hollow") {
  const std::string profile = UnitProfile(false);
  const fs::path page = Temp("sweep.html");
  // --json and --report in one run: the page is checked against the JSON it came with.
  const CommandResult result =
      Fit(profile, {"--sweep", "past_sequence=512..1024:128", "--json", "--report", page.string()});
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  const fitpb::FitReport report = ParseJson(result);
  REQUIRE(report.points_size() == 5);
  const HtmlDocument doc = CheckHtml(ReadFile(page));

  // arena(P) = 313,888 + 1,024 P <= 1,000,000 up to P = 670: rows 512 and 640 pass, the
  // answer is 640; 768, 896 and 1024 do not fit.
  CHECK(doc.by_id.at("answer").text == "largest past_sequence = 640");
  CHECK(doc.by_id.at("verdict").attributes.at("class") == "badge good");
  for (const char* chart : kCharts) {
    INFO(chart);
    CHECK(PointCount(doc, chart) == report.points_size());
    for (const fitpb::FitPoint& row : report.points()) {
      const std::string id = std::string(chart) + "-point-" + std::to_string(row.value());
      REQUIRE(doc.by_id.count(id) == 1);
      CHECK(doc.by_id.at(id).attributes.at("class") ==
            (row.result() == "ok" ? "point ok" : "point fails"));
      CHECK(doc.by_id.count("row-" + std::to_string(row.value())) == 1);
    }
    // The ring sits on the answer's point.
    const auto& ring = doc.by_id.at(std::string(chart) + "-answer");
    const auto& answer_point = doc.by_id.at(std::string(chart) + "-point-640");
    CHECK(ring.attributes.at("cx") == answer_point.attributes.at("cx"));
    CHECK(ring.attributes.at("cy") == answer_point.attributes.at("cy"));
  }
  // 5 rows and a span of 2x: a linear axis over x from 112 px to 1184 px (1,072 px for 512
  // values), so 640 sits at 112 + 1,072 x 128 / 512 = 380.
  CHECK(doc.by_id.at("arena-point-512").attributes.at("cx") == "112");
  CHECK(doc.by_id.at("arena-point-640").attributes.at("cx") == "380");
  CHECK(doc.by_id.at("arena-point-1024").attributes.at("cx") == "1184");
  // The byte axis reaches the largest arena, 313,888 + 1,024 x 1,024 = 1,362,464 B, in at most
  // 5 power-of-two steps: 512 KiB (3 steps; 256 KiB would need 6), top 1.5 MiB = 1,572,864.
  // The plot runs from y 196 px (0 B) up to 14 px: 640's 969,248 B sit 182 x 969,248 /
  // 1,572,864 = 112.15 px up, at 196 - 112.2 = 83.8.
  CHECK(doc.by_id.at("arena-point-640").attributes.at("cy") == "83.8");
  const std::string arena_text = doc.by_id.at("chart-arena").text;
  CHECK_THAT(arena_text, Catch::Contains("512 KiB"));
  CHECK_THAT(arena_text, Catch::Contains("1.5 MiB"));
  CHECK_THAT(arena_text, Catch::Contains("budget 977 KiB"));  // 1,000,000 B = 976.6 KiB
  // The x ticks are the rows, in the flags' spelling: 1,024 is "1k".
  CHECK_THAT(arena_text, Catch::Contains("896"));
  CHECK_THAT(arena_text, Catch::Contains("1k"));
  // Tooltips carry the text output's numbers; the table repeats its cells.
  CHECK_THAT(doc.by_id.at("arena-point-640").text,
             Catch::Contains("past_sequence=640: 947 KiB (passes)"));  // 969,248 B = 946.5 KiB
  CHECK_THAT(doc.by_id.at("arena-point-768").text, Catch::Contains("(does not fit)"));
  CHECK(doc.by_id.at("row-640").attributes.at("class") == "answer-row");
  CHECK_THAT(doc.by_id.at("row-768").text, Catch::Contains("over budget"));
  CHECK_THAT(doc.by_id.at("why-not").text, Catch::StartsWith("why not 768: past_sequence=768"));
  CHECK_THAT(doc.by_id.at("residency").text, Catch::StartsWith("residency at past_sequence=640"));
  // No target: no target rule, and the overhead chart has no "over" point.
  CHECK(doc.by_id.at("target").text == "none (fitting is enough)");
  CHECK(doc.by_id.at("chart-overhead").text.find("target") == std::string::npos);
  CHECK(doc.by_id.at("budget").text == "977 KiB (the device's capacity)");
  CHECK(doc.by_id.at("fixed-dims").text == "batch=1, sequence=1");

  SECTION("byte-identical run to run; the text run says where it wrote") {
    const fs::path again = Temp("sweep-again.html");
    const CommandResult text =
        Fit(profile, {"--sweep", "past_sequence=512..1024:128", "--report", again.string()});
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.stdout_text, Catch::EndsWith("  wrote " + again.string() + "\n"));
    CHECK(ReadFile(again) == ReadFile(page));
  }
}

TEST_CASE("fit --grow --report: every probed value once, on a log axis") {
  const fs::path page = Temp("grow.html");
  const CommandResult result =
      Fit(UnitProfile(false), {"--grow", "past_sequence", "--json", "--report", page.string()});
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  const fitpb::FitReport report = ParseJson(result);
  const HtmlDocument doc = CheckHtml(ReadFile(page));
  // 25 distinct values probed (fit_cli_test.cc: 1, 2, ..., 2048, bisection to 670/671, then
  // 953, 882, 812, 741 around the flip).
  REQUIRE(report.points_size() == 25);
  for (const char* chart : kCharts) CHECK(PointCount(doc, chart) == 25);
  CHECK(doc.by_id.at("answer").text == "largest past_sequence = 670");
  CHECK(doc.by_id.at("arena-answer").attributes.at("cx") ==
        doc.by_id.at("arena-point-670").attributes.at("cx"));
  CHECK(doc.by_id.at("arena-point-671").attributes.at("class") == "point fails");
  CHECK(doc.by_id.at("arena-point-670").attributes.at("class") == "point ok");
  // 1..2048 spans 2048x: log2, so 1 at x 112 px, 2048 at 1184, and 32 = 2^5 five elevenths of
  // the way: 112 + 1,072 x 5 / 11 = 599.27 (the page writes tenths of a pixel).
  CHECK_THAT(doc.by_id.at("charts").text, Catch::Contains("log scale, base 2"));
  CHECK(doc.by_id.at("arena-point-1").attributes.at("cx") == "112");
  CHECK(std::stod(doc.by_id.at("arena-point-32").attributes.at("cx")) ==
        Approx(599.27).margin(0.1));
  CHECK(doc.by_id.at("arena-point-2048").attributes.at("cx") == "1184");
  // Power-of-two ticks: 2^0 .. 2^11, every other one (12 would be more than 10): 1, 4, 16,
  // 64, 256, 1k.
  CHECK_THAT(doc.by_id.at("bounds").text, Catch::StartsWith("bound at past_sequence=670: "));
  const std::string time_text = doc.by_id.at("chart-time").text;
  CHECK_THAT(time_text, Catch::Contains("256"));
  CHECK_THAT(time_text, Catch::Contains("1k"));
  CHECK(doc.by_id.count("row-671") == 1);
  CHECK_THAT(doc.by_id.at("why-not").text, Catch::StartsWith("why not 671: "));
}

TEST_CASE("fit --report with a target: the rule, and rows over it drawn apart") {
  const fs::path page = Temp("target.html");
  const CommandResult result =
      Fit(UnitProfile(true), {"--sweep", "past_sequence=256..2048", "--max-overhead", "5", "--json",
                              "--report", page.string()});
  INFO(result.stderr_text);
  REQUIRE((result.exit_code == 0 || result.exit_code == 7));
  const fitpb::FitReport report = ParseJson(result);
  const HtmlDocument doc = CheckHtml(ReadFile(page));
  CHECK(doc.by_id.at("target").text == "within 5% of no offloading");
  CHECK_THAT(doc.by_id.at("chart-overhead").text, Catch::Contains("target 5%"));
  // The page's classes follow the JSON's results, row by row.
  int over = 0;
  for (const fitpb::FitPoint& row : report.points()) {
    const std::string expected = row.result() == "ok"              ? "point ok"
                                 : row.result() == "over_overhead" ? "point over"
                                                                   : "point fails";
    over += row.result() == "over_overhead";
    CHECK(doc.by_id.at("overhead-point-" + std::to_string(row.value())).attributes.at("class") ==
          expected);
  }
  // 2,048 tokens of cache (2,411,040 B) cannot stay on the 1 MB device; it streams at 1 byte/ns
  // and compute cannot hide that within 5%.
  CHECK(over >= 1);
  if (!report.found()) {
    CHECK(doc.by_id.at("answer").text == "none");
    CHECK(doc.by_id.at("verdict").attributes.at("class") == "badge warn");
  }
}

TEST_CASE("fit --report refuses an input as its output, before any work") {
  const std::string profile = UnitProfile(false);
  const CommandResult model = Fit(profile, {"--grow", "past_sequence", "--report", kContrib});
  CHECK(model.exit_code == 2);
  CHECK_THAT(model.stderr_text, Catch::Contains("--report"));
  CHECK_THAT(model.stderr_text, Catch::Contains("model"));
  const CommandResult hw = Fit(profile, {"--grow", "past_sequence", "--report", profile});
  CHECK(hw.exit_code == 2);
  CHECK_THAT(hw.stderr_text, Catch::Contains("hardware profile"));
  CHECK(hw.stdout_text.empty());
}

TEST_CASE("fit --report to an unwritable place exits 9, and says where") {
  const CommandResult result = Fit(UnitProfile(false), {"--sweep", "past_sequence=1..2", "--report",
                                                        "/nonexistent-dir/x/fit.html"});
  CHECK(result.exit_code == 9);
  CHECK_THAT(result.stderr_text, Catch::Contains("/nonexistent-dir/x/fit.html"));
}
