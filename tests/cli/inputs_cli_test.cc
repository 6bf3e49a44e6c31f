// End-to-end: inputs people already have. Shipped profiles by name (`--hw h100-sxm`,
// `hyperplan profiles`) and measured node times (`plan --node-times`, ONNX Runtime's
// profiling JSON).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_command.h"

using hyperplan::testing::CommandResult;
using hyperplan::testing::Hyperplan;
using hyperplan::testing::LineCount;

namespace {

const std::string kDecodeModel =
    std::string(HYPERPLAN_SOURCE_DIR) + "/models/llama-tiny-decode.onnx";

std::vector<std::string> InspectDecode(const std::string& hw) {
  return {"inspect", kDecodeModel,       "--dim", "batch=1", "--dim", "sequence=1",
          "--dim",   "past_sequence=16", "--hw",  hw};
}

const std::string kNodeTimes =
    std::string(HYPERPLAN_SOURCE_DIR) + "/tests/data/ort-profile-llama-tiny-decode.json";

std::vector<std::string> PlanDecode(std::vector<std::string> extra) {
  std::vector<std::string> args = {"plan",         kDecodeModel, "--dim", "batch=1",
                                   "--dim",        "sequence=1", "--dim", "past_sequence=16",
                                   "--no-offload", "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("hyperplan-inputs-" + std::to_string(getpid()) + "-" + name))
      .string();
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// node name -> planned time, from a plan's JSON (int64 fields are strings in protobuf JSON).
std::map<std::string, int64_t> NodeTimes(const nlohmann::json& plan) {
  std::map<std::string, int64_t> times;
  for (const auto& node : plan.at("nodes")) {
    times[node.at("name").get<std::string>()] = std::stoll(node.at("time_ns").get<std::string>());
  }
  return times;
}

void CheckOneLineError(const CommandResult& result, int exit_code, const std::string& fragment) {
  INFO(result.stderr_text);
  CHECK(result.exit_code == exit_code);
  CHECK(LineCount(result.stderr_text) == 1);
  CHECK_THAT(result.stderr_text, Catch::StartsWith("hyperplan: error: "));
  CHECK_THAT(result.stderr_text, Catch::Contains(fragment));
  CHECK(result.stdout_text.empty());
}

}  // namespace

TEST_CASE("profiles lists every shipped profile with its description and sources") {
  const CommandResult result = Hyperplan({"profiles"});
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  for (const char* line : {
           "  h100-sxm     H100 SXM5 80GB HBM3, host DDR5 over PCIe 5.0 x16, NVMe behind DDR\n",
           "  rtx-4090     GeForce RTX 4090 24GB GDDR6X, host DDR5 over PCIe 4.0 x16, NVMe behind "
           "DDR\n",
           "  l40s         L40S 48GB GDDR6, host DDR over PCIe 4.0 x16, NVMe behind DDR\n",
           "  h200-sxm     H200 SXM 141GB HBM3e, host DDR5 over PCIe 5.0 x16, NVMe behind DDR\n",
           "  mi300x       Instinct MI300X 192GB HBM3, host DDR5 over PCIe 5.0 x16, NVMe behind "
           "DDR\n",
           "               embedded (configs/mi300x.yaml); hbm 192 GB (device), ddr 256 GB, nvme "
           "3.84 TB\n",
           "               [H100-DS] NVIDIA H100 Tensor Core GPU datasheet (SXM5 column)\n",
       }) {
    CHECK_THAT(result.stdout_text, Catch::Contains(line));
  }
  CHECK_THAT(result.stdout_text, Catch::Contains("CloudMatrix384 unified bus (the default)"));
}

TEST_CASE("The --hw flag takes a shipped profile name or a file path") {
  const CommandResult by_name = Hyperplan(InspectDecode("h100-sxm"));
  INFO(by_name.stderr_text);
  REQUIRE(by_name.exit_code == 0);
  CHECK_THAT(by_name.stdout_text,
             Catch::Contains("profile  h100-sxm [embedded (configs/h100-sxm.yaml)]"));
  const std::string path = std::string(HYPERPLAN_SOURCE_DIR) + "/configs/h100-sxm.yaml";
  const CommandResult by_path = Hyperplan(InspectDecode(path));
  REQUIRE(by_path.exit_code == 0);
  CHECK_THAT(by_path.stdout_text, Catch::Contains("profile  h100-sxm [" + path + "]"));
}

TEST_CASE("An unknown --hw name exits 2, suggesting a name and listing them") {
  CheckOneLineError(Hyperplan(InspectDecode("h100")), 2,
                    "unknown profile 'h100' (did you mean 'h100-sxm'?); shipped profiles: "
                    "a100-pcie4, a100-sxm, gh200, h100-sxm, h200-sxm, l40s, mi300x, rtx-4090, "
                    "rtx-4090-xeon-2s, supernode");
}

TEST_CASE("plan --node-times plans with the profile's median kernel times") {
  const std::string base_path = TempPath("base.json");
  const std::string measured_path = TempPath("measured.json");
  const CommandResult base = Hyperplan(PlanDecode({"-o", base_path}));
  REQUIRE(base.exit_code == 0);
  const CommandResult measured =
      Hyperplan(PlanDecode({"-o", measured_path, "--node-times", kNodeTimes, "--summary-json"}));
  INFO(measured.stderr_text);
  REQUIRE(measured.exit_code == 0);
  const nlohmann::json base_plan = ReadJson(base_path);
  const nlohmann::json measured_plan = ReadJson(measured_path);
  std::filesystem::remove(base_path);
  std::filesystem::remove(measured_path);

  // tests/data/ort-profile-llama-tiny-decode.json holds three runs: q_proj 40, 10, 20 us
  // (median 20 us); down_proj 7, 5, 6 and a fourth 8 us (median (6 + 7) / 2 = 6.5 us);
  // lm_head 900, 300, 310 us (median 310 us); and MemcpyToHost, which the model lacks.
  const std::map<std::string, int64_t> measured_ns = {
      {"/model/layers.0/attn/q_proj/MatMul", 20'000},
      {"/model/layers.0/mlp/down_proj/MatMul", 6'500},
      {"/lm_head/MatMul", 310'000}};
  const std::map<std::string, int64_t> before = NodeTimes(base_plan);
  const std::map<std::string, int64_t> after = NodeTimes(measured_plan);
  REQUIRE(before.size() == 264);
  REQUIRE(after.size() == 264);
  int64_t replaced_ns = 0;
  for (const auto& [name, time_ns] : before) {
    INFO(name);
    const auto measurement = measured_ns.find(name);
    if (measurement == measured_ns.end()) {
      CHECK(after.at(name) == time_ns);  // unmatched: the roofline estimate, unchanged
    } else {
      CHECK(after.at(name) == measurement->second);
      replaced_ns += time_ns;
    }
  }
  // Without offloading the makespan is the sum of node times: the old sum, less the three
  // estimates, plus 20 + 6.5 + 310 = 336.5 us.
  const int64_t base_makespan_ns =
      std::stoll(base_plan.at("summary").at("makespan_ns").get<std::string>());
  const nlohmann::json summary = nlohmann::json::parse(measured.stdout_text);
  CHECK(std::stoll(summary.at("makespan_ns").get<std::string>()) ==
        base_makespan_ns - replaced_ns + 336'500);
  CHECK(summary.at("node_times_file") == kNodeTimes);
  CHECK(summary.at("node_times_matched") == "3");
  CHECK(summary.at("node_times_unmatched") == "261");  // 264 - 3
  CHECK(summary.at("node_times_unknown") == "1");      // MemcpyToHost_token_0
}

TEST_CASE("plan --node-times says in the text summary how many nodes matched") {
  const CommandResult result = Hyperplan(PlanDecode({"--node-times", kNodeTimes}));
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.stdout_text,
             Catch::Contains("  node times: 3 of 264 nodes measured in " + kNodeTimes +
                             " (median of 4 runs); 261 keep the roofline estimate; 1 profiled "
                             "name is not in the model: 'MemcpyToHost_token_0'\n"));
}

TEST_CASE("plan --node-times errors name the file and exit 3") {
  CheckOneLineError(Hyperplan(PlanDecode({"--node-times", "/nonexistent/prof.json"})), 3,
                    "/nonexistent/prof.json: cannot read: No such file or directory");
  const std::string truncated = TempPath("truncated.json");
  std::ofstream(truncated) << "[{\"cat\": \"Node\", \"name\": \"a_kernel_time\",\n";
  CheckOneLineError(Hyperplan(PlanDecode({"--node-times", truncated})), 3,
                    truncated + ": not valid JSON: ");
  const std::string foreign = TempPath("foreign.json");
  std::ofstream(foreign) << R"([{"cat": "Node", "name": "conv1_kernel_time", "dur": 5},
{"cat": "Node", "name": "fc_kernel_time", "dur": 5}])";
  CheckOneLineError(Hyperplan(PlanDecode({"--node-times", foreign})), 3,
                    foreign +
                        ": none of its 2 profiled nodes is a node of the model (profiled: "
                        "'conv1', 'fc')");
  std::filesystem::remove(truncated);
  std::filesystem::remove(foreign);
}
