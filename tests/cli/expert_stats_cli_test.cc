// End-to-end: `--expert-stats FILE` (src/cli/expert_stats_flag.h) on the generator's tiny MoE
// in its ort form (one com.microsoft MoE node per MoE layer, stacked experts): a skewed
// routing profile makes a prefill's MoE nodes read fewer experts than uniform routing, and a
// file that does not fit the model is refused in one line naming the file and the field; and
// in its gather form (each MoE layer's gate, up and down tables picked by expert Gathers of
// one TopK), where the profile applies to every expert Gather of the layer.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_command.h"
#include "support/scratch_dir.h"

using hyperplan::testing::CommandResult;
using hyperplan::testing::RunCommand;

namespace {

const std::string kCli = HYPERPLAN_CLI_PATH;
const std::string kGen = HYPERPLAN_GEN_PATH;
const std::string kZipf =
    std::string(HYPERPLAN_SOURCE_DIR) + "/tests/data/expert_stats/tiny-moe-zipf.json";

hyperplan::testing::ScratchDir& Scratch() {
  static hyperplan::testing::ScratchDir dir("expert-stats");
  return dir;
}

// tiny-moe prefill, ort form: layers 1 and 2 are MoE (8 experts, top 2), layer 0 dense.
const std::string& OrtModel() {
  static const std::string path = [] {
    const std::string model = Scratch().File("tiny-moe-ort.onnx");
    const CommandResult made = RunCommand(
        {kGen, "--preset", "tiny-moe", "--form", "prefill", "--moe-form", "ort", "-o", model});
    REQUIRE(made.exit_code == 0);
    return model;
  }();
  return path;
}

CommandResult Plan(const std::vector<std::string>& extra, const std::string& out) {
  std::vector<std::string> args = {kCli,      "plan",  OrtModel(),   "--dim",
                                   "batch=1", "--dim", "sequence=8", "--no-offload",
                                   "-q",      "-o",    out};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunCommand(args);
}

// The planned time of the node named `name` in a plan's JSON.
int64_t NodeTime(const std::string& plan_path, const std::string& name) {
  std::ifstream in(plan_path);
  const nlohmann::json plan = nlohmann::json::parse(in);
  for (const auto& node : plan.at("nodes")) {
    if (node.at("name") == name) return std::stoll(node.at("time_ns").get<std::string>());
  }
  FAIL("no node " << name);
  return -1;
}

std::string Write(const std::string& name, const std::string& text) {
  const std::string path = Scratch().File(name);
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("a skewed routing profile lowers the MoE nodes' planned time") {
  const std::string uniform = Scratch().File("uniform.json");
  const std::string skewed = Scratch().File("skewed.json");
  REQUIRE(Plan({}, uniform).exit_code == 0);
  REQUIRE(Plan({"--expert-stats", kZipf}, skewed).exit_code == 0);
  // 8 tokens, top 2 of 8, uniform: 8 * (1 - 0.75^8) = 7.20 experts read. The Zipf file
  // (s = 1.2: 0.857, 0.373, ..., 0.071) gives sum_e 1 - (1 - p_e)^8 = 1.00 + 0.98 + 0.88 + 0.76
  // + 0.65 + 0.57 + 0.50 + 0.44 = 5.78: a fifth fewer weight bytes on a memory-bound node.
  for (const char* node : {"/model/layers.1/mlp/MoE", "/model/layers.2/mlp/MoE"}) {
    INFO(node);
    CHECK(NodeTime(skewed, node) < NodeTime(uniform, node));
  }
  // The dense layer 0 has no MoE node and keeps its time.
  CHECK(NodeTime(skewed, "/model/layers.0/mlp/down_proj/MatMul") ==
        NodeTime(uniform, "/model/layers.0/mlp/down_proj/MatMul"));
}

TEST_CASE("an expert-stats file that does not fit the model is refused, naming the field") {
  const std::string out = Scratch().File("refused.json");
  struct Case {
    const char* name;
    const char* text;
    const char* says;
  };
  const std::vector<Case> cases = {
      {"short.json", R"({"source": "t", "layers": [{"layer": 1, "frequency": [1, 1]}]})",
       "field 'layers[0].frequency': 2 values, but layer 1's MoE node stacks 8 experts"},
      {"dense-layer.json",
       R"({"source": "t", "layers": [{"layer": 0, "frequency": [0.25,0.25,0.25,0.25,0.25,0.25,0.25,0.25]}]})",
       "field 'layers[0].layer': layer 0 has 0 com.microsoft MoE/QMoE nodes"},
      {"sum.json",
       R"({"source": "t", "layers": [{"layer": 1, "frequency": [0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1]}]})",
       "field 'layers[0].frequency': sums to 0.8000, but each token selects k = 2 experts"},
      {"range.json",
       R"({"source": "t", "layers": [{"layer": 1, "frequency": [1.5,0.5,0,0,0,0,0,0]}]})",
       "field 'layers[0].frequency[0]': 1.5 is not a fraction of tokens in [0, 1]"},
      {"anonymous.json", R"({"layers": []})", "field 'source': missing"},
      {"garbage.json", R"({"layers": 3)", "not an expert-stats JSON file"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string path = Write(c.name, c.text);
    const CommandResult result = Plan({"--expert-stats", path}, out);
    CHECK(result.exit_code == 3);
    CHECK(result.stderr_text.find(path + ": ") != std::string::npos);
    CHECK(result.stderr_text.find(c.says) != std::string::npos);
    // One line, even where protobuf's parse error spans several.
    CHECK(std::count(result.stderr_text.begin(), result.stderr_text.end(), '\n') == 1);
  }
}

namespace {

// `plan --summary-json` on the ort model at `sequence` tokens, as JSON.
nlohmann::json PlanSummary(const std::string& sequence, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {kCli,    "plan",   OrtModel(),     "--dim",         "batch=1",
                                   "--dim", sequence, "--no-offload", "--summary-json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const CommandResult result = RunCommand(args);
  REQUIRE(result.exit_code == 0);
  return nlohmann::json::parse(result.stdout_text);
}

int64_t Field(const nlohmann::json& summary, const char* name) {
  return std::stoll(summary.at(name).get<std::string>());
}

}  // namespace

TEST_CASE("sampled routings: one token reads k experts in every routing; more tokens spread") {
  // One token: each of the 32 routings touches exactly k = 2 experts of each MoE node, the
  // expectation the plan was made for, so every sample replays the planned iteration.
  const nlohmann::json one = PlanSummary("sequence=1", {});
  CHECK(one.at("routing_samples") == 32);
  CHECK(one.at("routing_mean_distinct_experts").get<double>() == Approx(2.0));
  CHECK(Field(one, "routing_mean_ns") == Field(one, "makespan_ns"));
  CHECK(Field(one, "routing_p99_ns") == Field(one, "makespan_ns"));

  // 8 tokens, uniform: 8 * (1 - 0.75^8) = 7.199 experts in expectation; a routing touches 2 to
  // 8, so over 400 routings the mean is within 3 * 3 / sqrt(400) = 0.45 of it.
  const nlohmann::json eight = PlanSummary("sequence=8", {"--routing-samples", "400"});
  CHECK(eight.at("routing_mean_distinct_experts").get<double>() == Approx(7.199).margin(0.45));
  CHECK(Field(eight, "routing_p99_ns") >= Field(eight, "routing_mean_ns"));
  // The Zipf profile (5.78 experts expected, the case above) reads fewer.
  const nlohmann::json zipf =
      PlanSummary("sequence=8", {"--routing-samples", "400", "--expert-stats", kZipf});
  CHECK(zipf.at("routing_mean_distinct_experts").get<double>() == Approx(5.78).margin(0.45));
  CHECK(Field(zipf, "routing_mean_ns") < Field(eight, "routing_mean_ns"));

  // No samples asked for: none reported.
  const nlohmann::json none = PlanSummary("sequence=8", {"--routing-samples", "0"});
  CHECK(none.at("routing_samples") == 0);
  CHECK(Field(none, "routing_p99_ns") == 0);
}

namespace {

// tiny-moe prefill, gather form: layers 1 and 2 each have three expert Gathers (gate, up, down
// tables of 8 experts) fed by one TopK (top 2).
const std::string& GatherModel() {
  static const std::string path = [] {
    const std::string model = Scratch().File("tiny-moe-gather.onnx");
    const CommandResult made = RunCommand(
        {kGen, "--preset", "tiny-moe", "--form", "prefill", "--moe-form", "gather", "-o", model});
    REQUIRE(made.exit_code == 0);
    return model;
  }();
  return path;
}

CommandResult PlanGather(const std::vector<std::string>& extra, const std::string& out) {
  std::vector<std::string> args = {kCli,    "plan",       GatherModel(),  "--dim", "batch=1",
                                   "--dim", "sequence=8", "--no-offload", "-q",    "-o",
                                   out};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunCommand(args);
}

}  // namespace

TEST_CASE("a routing profile applies to every expert Gather of a gather-form layer") {
  const std::string uniform = Scratch().File("gather-uniform.json");
  const std::string skewed = Scratch().File("gather-skewed.json");
  REQUIRE(PlanGather({}, uniform).exit_code == 0);
  REQUIRE(PlanGather({"--expert-stats", kZipf}, skewed).exit_code == 0);
  // As the MoE node above: 7.20 experts of each table read under uniform routing, 5.78 under
  // the Zipf file, in all three Gathers of both MoE layers.
  for (const char* layer : {"1", "2"}) {
    for (const char* table : {"gate_proj", "up_proj", "down_proj"}) {
      const std::string node =
          std::string("/model/layers.") + layer + "/mlp/experts/" + table + "/Gather";
      INFO(node);
      CHECK(NodeTime(skewed, node) < NodeTime(uniform, node));
    }
  }
  // The dense layer 0 has no expert Gather and keeps its time.
  CHECK(NodeTime(skewed, "/model/layers.0/mlp/down_proj/MatMul") ==
        NodeTime(uniform, "/model/layers.0/mlp/down_proj/MatMul"));
}

TEST_CASE("a gather-form profile with the wrong expert count is refused, naming the field") {
  const std::string out = Scratch().File("gather-refused.json");
  const std::string short_file = Write(
      "gather-short.json", R"({"source": "t", "layers": [{"layer": 2, "frequency": [1, 1]}]})");
  const CommandResult result = PlanGather({"--expert-stats", short_file}, out);
  CHECK(result.exit_code == 3);
  CHECK(result.stderr_text.find(short_file + ": field 'layers[0].frequency': 2 values, but layer "
                                             "2's expert Gathers pick from 8 experts") !=
        std::string::npos);
  CHECK(std::count(result.stderr_text.begin(), result.stderr_text.end(), '\n') == 1);
  // Layer 0 is dense: neither a MoE node nor an expert Gather.
  const std::string dense = Write(
      "gather-dense.json",
      R"({"source": "t", "layers": [{"layer": 0, "frequency": [0.25,0.25,0.25,0.25,0.25,0.25,0.25,0.25]}]})");
  const CommandResult refused = PlanGather({"--expert-stats", dense}, out);
  CHECK(refused.exit_code == 3);
  CHECK(refused.stderr_text.find("field 'layers[0].layer': layer 0 has 0 com.microsoft MoE/QMoE "
                                 "nodes and 0 expert Gathers") != std::string::npos);
}

TEST_CASE("a gather-form profile on a model with unbound dims says the dims are why") {
  // inspect takes a model with its dims unbound; an expert Gather is recognised by its indices'
  // size, so none is found and the refusal names the unbound dims, not only "0 expert Gathers".
  const CommandResult result =
      RunCommand({kCli, "inspect", GatherModel(), "--expert-stats", kZipf});
  CHECK(result.exit_code == 3);
  CHECK(result.stderr_text.find("expert Gathers are found only with the model's dims bound") !=
        std::string::npos);
  CHECK(result.stderr_text.find("sequence") != std::string::npos);
  CHECK(std::count(result.stderr_text.begin(), result.stderr_text.end(), '\n') == 1);
}
