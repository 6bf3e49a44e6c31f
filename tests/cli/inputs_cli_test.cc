// End-to-end: inputs people already have. Shipped profiles by name (`--hw h100-sxm`,
// `hyperplan profiles`) and measured node times (`plan --node-times`, ONNX Runtime's
// profiling JSON).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/run_command.h"

using hyperplan::testing::CommandResult;
using hyperplan::testing::LineCount;
using hyperplan::testing::RunCommand;

namespace {

const std::string kCli = HYPERPLAN_CLI_PATH;
const std::string kDecodeModel =
    std::string(HYPERPLAN_SOURCE_DIR) + "/models/llama-tiny-decode.onnx";

CommandResult Hyperplan(std::vector<std::string> args) {
  args.insert(args.begin(), kCli);
  return RunCommand(args);
}

std::vector<std::string> InspectDecode(const std::string& hw) {
  return {"inspect", kDecodeModel,       "--dim", "batch=1", "--dim", "sequence=1",
          "--dim",   "past_sequence=16", "--hw",  hw};
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
                    "a100-pcie4, gh200, h100-sxm, h200-sxm, l40s, mi300x, rtx-4090, supernode");
}
