// Fetch after route end to end: the generator's tiny MoE with 64 experts (ort form, decode) on
// rtx-4090 under a 6 MiB budget is planned with routed Prefetches and resident experts, the
// summary JSON says how many experts each MoE layer keeps, and `hyperplan run` executes the
// plan: per iteration one drawn routing, its picked experts checked at each MoE node.
#include <catch2/catch.hpp>
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

hyperplan::testing::ScratchDir& Scratch() {
  static hyperplan::testing::ScratchDir dir("run-routed");
  return dir;
}

// tiny-moe decode with 64 routed experts: layers 1 and 2 are MoE (top 2), layer 0 dense.
const std::string& Model() {
  static const std::string path = [] {
    const std::string model = Scratch().File("tiny-moe-64.onnx");
    const CommandResult made = RunCommand({kGen, "--preset", "tiny-moe", "--experts", "64",
                                           "--form", "decode", "--moe-form", "ort", "-o", model});
    REQUIRE(made.exit_code == 0);
    return model;
  }();
  return path;
}

}  // namespace

TEST_CASE("run: a plan with experts fetched after route runs clean, one routing per iteration") {
  const std::string plan = Scratch().File("routed.json");
  const CommandResult planned =
      RunCommand({kCli, "plan", Model(), "--hw", "rtx-4090", "--dim", "batch=1", "--dim",
                  "sequence=1", "--dim", "past_sequence=64", "--budget", "6MiB",
                  "--routing-samples", "0", "--summary-json", "-o", plan});
  INFO(planned.stderr_text);
  REQUIRE(planned.exit_code == 0);
  const nlohmann::json summary = nlohmann::json::parse(planned.stdout_text);
  // Both MoE layers are fetched after route, each keeping some of its 64 experts resident:
  // fewer than all (else nothing would be routed), the rest fetched.
  REQUIRE(summary.contains("moe_experts"));
  REQUIRE(summary["moe_experts"].size() == 2);
  for (const nlohmann::json& layer : summary["moe_experts"]) {
    CHECK(std::stoll(layer["experts"].get<std::string>()) == 64);
    CHECK(std::stoll(layer["resident"].get<std::string>()) < 64);
  }
  CHECK(summary["moe_experts"][0]["layer"] == 1);

  const CommandResult ran =
      RunCommand({kCli, "run", plan, "--model", Model(), "--iterations", "4"});
  INFO(ran.stdout_text << ran.stderr_text);
  REQUIRE(ran.exit_code == 0);
  CHECK_THAT(ran.stdout_text, Catch::Contains("in 4 iterations (routings 0..3 of seed 1, as plan "
                                              "--routing-samples draws them)"));
  CHECK_THAT(ran.stdout_text, Catch::Contains("ok: every step ran"));
}
