// The fidelity table's data and arithmetic (tools/bench/fidelity_data.h, fidelity_ratio.h):
// the shipped measurements parse, each names a shipped profile, a config and a source; a bad
// row is one line naming the row and field; the ratio and band by hand.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

#include "fidelity_data.h"
#include "fidelity_ratio.h"
#include "hyperplan/adapters/profile_yaml.h"
#include "support/scratch_dir.h"

namespace hyperplan::bench {
namespace {

using Catch::Matchers::Contains;

const std::string kDataPath = std::string(HYPERPLAN_SOURCE_DIR) + "/tools/bench/fidelity.yaml";

std::string Written(const testing::ScratchDir& scratch, const std::string& name,
                    const std::string& text) {
  const std::string path = scratch.File(name);
  std::ofstream(path) << text;
  return path;
}

// One valid row, whose `field: value` lines a test may replace.
std::string RowText(const std::string& profile, const std::string& source_line) {
  return "rows:\n"
         "  - id: r1\n"
         "    model: Llama-2-7B\n"
         "    hf_config: tests/data/hf-configs/llama-2-7b.json\n"
         "    form: decode\n"
         "    profile: " +
         profile +
         "\n"
         "    batch: 1\n"
         "    prompt: 5\n"
         "    past: 105\n"
         "    precision: bf16\n"
         "    generator: [--weights, bf16]\n"
         "    generator_today: [--dtype, bf16]\n"
         "    published: {value: 104.9, unit: tokens/s}\n" +
         source_line + "    method: m\n";
}

TEST_CASE("The shipped fidelity data parses: 15+ rows, each with a shipped profile and a source",
          "[fidelity]") {
  const std::vector<FidelityRow> rows = LoadFidelityRows(kDataPath);
  CHECK(rows.size() >= 15);
  const std::vector<std::string> shipped = ShippedProfileNames();
  std::set<std::string> forms;
  for (const FidelityRow& row : rows) {
    INFO(row.id);
    CHECK(std::find(shipped.begin(), shipped.end(), row.profile) != shipped.end());
    CHECK_THAT(row.source, Contains("https://"));
    CHECK(std::filesystem::exists(std::string(HYPERPLAN_SOURCE_DIR) + "/" + row.hf_config));
    CHECK(!row.generator.empty());
    CHECK(!row.generator_today.empty());
    forms.insert(row.form);
  }
  // The issue asks for decode, prefill and a training step.
  CHECK(forms == std::set<std::string>{"decode", "prefill", "train"});
}

TEST_CASE("A fidelity row's dims and tokens per step follow its form", "[fidelity]") {
  FidelityRow row;
  row.form = "decode";
  row.batch = 112;
  row.prompt = 128;
  row.past = 1152;
  CHECK(FidelityDims(row) ==
        std::vector<std::string>{"batch=112", "sequence=1", "past_sequence=1152"});
  CHECK(TokensPerStep(row) == 112);  // one new token per sequence
  CHECK(ContextLabel(row) == "past 1152");
  row.form = "train";
  row.batch = 2;
  row.prompt = 4096;
  CHECK(FidelityDims(row) == std::vector<std::string>{"batch=2", "sequence=4096"});
  CHECK(TokensPerStep(row) == 8192);  // 2 x 4096 tokens processed
  CHECK(ContextLabel(row) == "seq 4096");
}

TEST_CASE("A bad fidelity row is one error naming the file, row and field", "[fidelity]") {
  const testing::ScratchDir scratch("fidelity");
  const std::string source = "    source: \"https://example.org, table 1\"\n";
  const std::vector<FidelityRow> ok =
      LoadFidelityRows(Written(scratch, "ok.yaml", RowText("a100-sxm", source)));
  REQUIRE(ok.size() == 1);
  CHECK(ok[0].today_precision == "bf16");  // no today_precision: the row's own precision
  CHECK(ok[0].budget.empty());
  const std::string unknown = Written(scratch, "unknown.yaml", RowText("h100", source));
  CHECK_THROWS_WITH(
      LoadFidelityRows(unknown),
      unknown + ": row 'r1': field 'profile': 'h100' is not a shipped profile " + "(configs/)");
  const std::string unsourced = Written(scratch, "unsourced.yaml", RowText("h100-sxm", ""));
  CHECK_THROWS_WITH(LoadFidelityRows(unsourced), unsourced + ": row 'r1': field 'source': missing");
  const std::string twice =
      Written(scratch, "twice.yaml",
              RowText("h100-sxm", source) +
                  RowText("h100-sxm", source).substr(std::string("rows:\n").size()));
  const std::string fp4 =
      Written(scratch, "fp4.yaml", RowText("h100-sxm", source) + "    today_precision: fp4\n");
  CHECK_THROWS_WITH(LoadFidelityRows(fp4), fp4 + ": row 'r1': field 'today_precision': 'fp4' is " +
                                               "not one of bf16, fp16, fp8, int4, int8");
  CHECK_THROWS_WITH(LoadFidelityRows(twice),
                    twice + ": row 'r1': field 'id': used by an earlier row");
}

TEST_CASE("Fidelity arithmetic: predicted value, ratio and band by hand", "[fidelity]") {
  // 1 token in 10 ms: 1 / 0.010 s = 100 tokens/s
  CHECK(PredictedValue("tokens/s", 10'000'000, 1) == Approx(100.0));
  // 112 tokens in 16.4 ms: 112 / 0.0164 = 6829.27 tokens/s
  CHECK(PredictedValue("tokens/s", 16'400'000, 112) == Approx(6829.27).epsilon(1e-5));
  CHECK(PredictedValue("ms", 36'000'000, 1) == Approx(36.0));  // 36e6 ns = 36 ms
  CHECK(PredictedValue("s", 1'580'000'000, 4096) == Approx(1.58));
  CHECK_THROWS_AS(PredictedValue("tok/s", 1, 1), std::invalid_argument);
  CHECK_THROWS_AS(PredictedValue("ms", 0, 1), std::invalid_argument);
  // 66.0 predicted of 104.9 published: 66.0 / 104.9 = 0.6292
  CHECK(FidelityRatio(66.0, 104.9) == Approx(0.6292).epsilon(1e-4));
  CHECK(WithinBand(0.8));
  CHECK(WithinBand(1.25));
  CHECK(WithinBand(1.0));
  CHECK_FALSE(WithinBand(0.79));
  CHECK_FALSE(WithinBand(1.26));
}

TEST_CASE("Fidelity values print with three significant digits and grouped thousands",
          "[fidelity]") {
  CHECK(FormatValue(6818, "tokens/s") == "6,818 tokens/s");
  CHECK(FormatValue(1234567.4, "tokens/s") == "1,234,567 tokens/s");
  CHECK(FormatValue(104.9, "tokens/s") == "105 tokens/s");
  CHECK(FormatValue(55.94, "tokens/s") == "55.9 tokens/s");
  CHECK(FormatValue(7.0, "ms") == "7.00 ms");
  CHECK(FormatValue(0.416, "tokens/s") == "0.416 tokens/s");
}

}  // namespace
}  // namespace hyperplan::bench
