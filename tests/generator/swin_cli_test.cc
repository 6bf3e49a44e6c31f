// End-to-end: `hyperplan-gen --form swin` (a Swin-class classifier whose window arithmetic
// runs on the input's Shape, as torch.onnx exports torchvision's swin_t; issue 32) passes the
// generator's ONNX check, and hyperplan inspects it with every value sized and no dim to bind,
// plans it without --allow-unknown, verifies the plan and runs it in the reference executor.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/plan_checks.h"
#include "support/run_command.h"
#include "support/scratch_dir.h"

namespace {

using hyperplan::testing::CommandResult;
using hyperplan::testing::Hyperplan;
using hyperplan::testing::RunCommand;
using hyperplan::testing::ScratchDir;

const ScratchDir& Scratch() {
  static const ScratchDir scratch("swin-form");
  return scratch;
}

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_CASE("swin form: checked, sized without --dim, planned, verified and run") {
  const std::string model = Scratch().File("swin.onnx");
  const CommandResult gen =
      RunCommand({HYPERPLAN_GEN_PATH, "--form", "swin", "--check", "-o", model});
  INFO(gen.stdout_text + gen.stderr_text);
  REQUIRE(gen.exit_code == 0);
  CHECK(gen.stdout_text.find("onnx checker: ok") != std::string::npos);

  const CommandResult inspected = Hyperplan({"inspect", model, "--json"});
  INFO(inspected.stderr_text);
  REQUIRE(inspected.exit_code == 0);
  const nlohmann::json report = nlohmann::json::parse(inspected.stdout_text);
  CHECK(report.at("sized").get<bool>());
  CHECK(report.at("unknown_size_values").empty());
  CHECK(report.at("unbound_dims").empty());  // Gemmlogits_dim_0 is not demanded
  CHECK(report.at("bound_dims").empty());
  CHECK(report.at("node_count").get<std::string>() == "673");

  const std::string plan = Scratch().File("swin.plan.pb");
  const CommandResult planned = Hyperplan({"plan", model, "-o", plan});
  INFO(planned.stdout_text + planned.stderr_text);
  REQUIRE(planned.exit_code == 0);
  CHECK(planned.stderr_text.find("unknown size") == std::string::npos);
  hyperplan::testing::CheckVerifiesAndRuns(HYPERPLAN_CLI_PATH, plan, model);
}

TEST_CASE("swin form: the same flags write the same bytes; external weights are not written") {
  const std::string first = Scratch().File("first.onnx");
  const std::string second = Scratch().File("second.onnx");
  const std::string external = Scratch().File("external.onnx");
  REQUIRE(RunCommand({HYPERPLAN_GEN_PATH, "--form", "swin", "-o", first}).exit_code == 0);
  REQUIRE(RunCommand({HYPERPLAN_GEN_PATH, "--form", "swin", "-o", second}).exit_code == 0);
  CHECK(FileBytes(first) == FileBytes(second));
  REQUIRE(RunCommand({HYPERPLAN_GEN_PATH, "--form", "swin", "--weight-storage", "external", "-o",
                      external})
              .exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(external + ".data"));
  const CommandResult inspected = Hyperplan({"inspect", external, "--json"});
  REQUIRE(inspected.exit_code == 0);
  CHECK(nlohmann::json::parse(inspected.stdout_text).at("sized").get<bool>());
}

}  // namespace
