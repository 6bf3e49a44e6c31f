// End-to-end: the built `hyperplan` executable, its exit codes and its one-line errors.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "support/run_command.h"

using hyperplan::testing::CommandResult;
using hyperplan::testing::Hyperplan;
using hyperplan::testing::LineCount;

namespace {

const std::string kDecodeModel =
    std::string(HYPERPLAN_SOURCE_DIR) + "/models/llama-tiny-decode.onnx";
const std::vector<std::string> kDecodeDims = {"--dim",      "batch=1", "--dim",
                                              "sequence=1", "--dim",   "past_sequence=16"};

std::vector<std::string> InspectDecode(std::vector<std::string> extra) {
  std::vector<std::string> args = {"inspect", kDecodeModel};
  args.insert(args.end(), kDecodeDims.begin(), kDecodeDims.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

// One line on stderr, prefixed, and nothing on stdout: the contract for every failure.
void CheckOneLineError(const CommandResult& result, int exit_code, const std::string& fragment) {
  INFO(result.stderr_text);
  CHECK(result.exit_code == exit_code);
  CHECK(LineCount(result.stderr_text) == 1);
  CHECK_THAT(result.stderr_text, Catch::StartsWith("hyperplan: error: "));
  CHECK_THAT(result.stderr_text, Catch::Contains(fragment));
  CHECK(result.stdout_text.empty());
}

}  // namespace

TEST_CASE("usage errors exit 2 with one line") {
  CheckOneLineError(Hyperplan({}), 2, "no command given");
  CheckOneLineError(Hyperplan({"inspect"}), 2, "model");
  CheckOneLineError(Hyperplan({"frobnicate"}), 2, "unknown command 'frobnicate'");
  CheckOneLineError(Hyperplan(InspectDecode({"--dim", "batch"})), 2, "NAME=VALUE");
  CheckOneLineError(Hyperplan(InspectDecode({"--dim", "batch=-1"})), 2, "non-negative integer");
  CheckOneLineError(Hyperplan(InspectDecode({"--dim", "batch=2"})), 2, "bound twice");
  CheckOneLineError(Hyperplan(InspectDecode({"--class", "nope=x"})), 2, "unknown class 'nope'");
  CheckOneLineError(Hyperplan(InspectDecode({"--class", "kv_cache=(x"})), 2,
                    "invalid regular expression '(x' (RE2 syntax): missing ): (x");
}

TEST_CASE("missing input files exit 3 naming the file") {
  CheckOneLineError(Hyperplan({"inspect", "/nonexistent/model.onnx"}), 3,
                    "/nonexistent/model.onnx");
  CheckOneLineError(Hyperplan(InspectDecode({"--hw", "/nonexistent/hw.yaml"})), 3,
                    "/nonexistent/hw.yaml");
}

TEST_CASE("a file that is not ONNX exits 4") {
  const std::string path = WriteTemp("hyperplan-cli-not-onnx.onnx", "this is not a model\n");
  CheckOneLineError(Hyperplan({"inspect", path}), 4, path);
}

TEST_CASE("an unbound symbolic dim exits 4 naming the symbol") {
  const CommandResult result = Hyperplan({"plan", kDecodeModel, "--dim", "batch=1"});
  CheckOneLineError(result, 4, "past_sequence");
  // inspect fails the same way, after printing what it knows (tests/cli/hardening_test.cc).
  const CommandResult inspect = Hyperplan({"inspect", kDecodeModel, "--dim", "batch=1"});
  CHECK(inspect.exit_code == 4);
  CHECK(LineCount(inspect.stderr_text) == 1);
  CHECK_THAT(inspect.stderr_text, Catch::Contains("past_sequence"));
}

TEST_CASE("an invalid profile exits 5 with file:line:column") {
  const std::string path = WriteTemp("hyperplan-cli-bad.yaml",
                                     "name: bad\n"
                                     "tiers:\n"
                                     "  - name: hbm\n"
                                     "    capacity: 0GB\n"
                                     "    device: true\n"
                                     "compute:\n"
                                     "  peak: {float: 1TFLOPS}\n"
                                     "  memory_bandwidth: 1TB/s\n");
  const CommandResult result = Hyperplan(InspectDecode({"--hw", path}));
  INFO(result.stderr_text);
  CHECK(result.exit_code == 5);
  // "capacity: 0GB" is line 4; its value starts at column 15.
  CHECK_THAT(result.stderr_text, Catch::Contains(path + ":4:15:"));
}

TEST_CASE("inspect prints the report and says which profile applied") {
  const CommandResult with_profile = Hyperplan(InspectDecode({"--hw", "configs/h100-sxm.yaml"}));
  INFO(with_profile.stderr_text);
  REQUIRE(with_profile.exit_code == 0);
  CHECK_THAT(with_profile.stdout_text, Catch::Contains("no-offload peak"));
  CHECK_THAT(with_profile.stdout_text, Catch::Contains("configs/h100-sxm.yaml"));

  const CommandResult with_default = Hyperplan(InspectDecode({}));
  REQUIRE(with_default.exit_code == 0);
  CHECK_THAT(with_default.stdout_text,
             Catch::Contains("embedded default (configs/supernode.yaml)"));
}

TEST_CASE("inspect --json agrees with an independent count and is byte-identical run to run") {
  const CommandResult first = Hyperplan(InspectDecode({"--json"}));
  const CommandResult second = Hyperplan(InspectDecode({"--json"}));
  INFO(first.stderr_text);
  REQUIRE(first.exit_code == 0);
  CHECK(first.stdout_text == second.stdout_text);

  // Oracle: protobuf's own parse of the model, counted here.
  onnx::ModelProto model;
  std::ifstream in(kDecodeModel, std::ios::binary);
  REQUIRE(model.ParseFromIstream(&in));
  CHECK_THAT(first.stdout_text, Catch::Contains("\"node_count\": \"" +
                                                std::to_string(model.graph().node_size()) + "\""));
  CHECK_THAT(first.stdout_text, Catch::Contains("\"name\": \"past_sequence\""));
}

TEST_CASE("version and help flags exit 0") {
  CHECK(Hyperplan({"--version"}).exit_code == 0);
  const CommandResult help = Hyperplan({"inspect", "--help"});
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.stdout_text, Catch::Contains("--dim"));
}
